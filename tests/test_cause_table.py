"""The guide's table of causes is rendered from the package's registry: every cause has
its row, linked to its section, and no page types the table by hand."""

from __future__ import annotations

import re

import pytest
from tf_retracing import CAUSES
from tf_retracing.explainer_types import CAUSES_PAGE

from verification.cause_table import MARKER, CauseTableError, cause_table, with_cause_table
from verification.harness.codeblocks import ROOT

DOCS = ROOT / "docs"
ROW = re.compile(r"^\| \[(TFR\d{3})\]\(([^)]*)\) \| `([a-z-]+)` \| (.+) \| (.+) \|$")


def test_every_cause_has_one_row_linked_to_its_section_and_unknown_comes_last():
    rows = [ROW.match(line) for line in cause_table().splitlines()[2:]]
    assert all(rows)
    assert sorted(row[1] for row in rows) == sorted(cause.code for cause in CAUSES)
    for row, cause in zip(rows, sorted(CAUSES, key=lambda c: c.kind == "unknown"), strict=True):
        assert row.groups() == (
            cause.code,
            f"#{cause.code.lower()}",
            cause.kind,
            cause.changed,
            cause.fix,
        )
    assert rows[-1][3] == "unknown"


def test_the_marker_becomes_the_table_linked_from_the_page_that_holds_it():
    pages = {CAUSES_PAGE: "guide/diagnosing.md", "guide/other/": "guide/other/page.md"}
    same = with_cause_table(f"before\n\n{MARKER}\n\nafter", "guide/diagnosing.md", pages)
    assert same == f"before\n\n{cause_table()}\n\nafter"
    other = with_cause_table(MARKER, "guide/other/page.md", pages)
    assert "[TFR001](../diagnosing.md#tfr001)" in other
    assert with_cause_table("no marker", "x.md", {}) == "no marker"
    quoted = f"the marker `{MARKER}` in a sentence"
    assert with_cause_table(quoted, "x.md", {}) == quoted
    with pytest.raises(CauseTableError, match=r"x\.md: the causes' page 'guide/diagnosing/'"):
        with_cause_table(MARKER, "x.md", {})


def test_a_cell_that_would_break_the_table_is_refused(monkeypatch):
    from verification import cause_table as module

    broken = CAUSES[0].__class__(**{**CAUSES[0].__dict__, "fix": "a | b"})
    monkeypatch.setattr(module, "CAUSES", (broken,))
    with pytest.raises(CauseTableError, match="TFR001: a table cell cannot hold"):
        module.cause_table()


def test_the_table_is_rendered_on_the_causes_page_and_typed_on_none():
    typed = [
        path.relative_to(DOCS).as_posix()
        for path in DOCS.rglob("*.md")
        if re.search(r"^\| \[TFR\d{3}\]", path.read_text("utf-8"), re.MULTILINE)
    ]
    assert typed == []
    holding = [p for p in DOCS.rglob("*.md") if f"\n{MARKER}\n" in p.read_text("utf-8")]
    assert holding, f"no page has the marker {MARKER}"


def test_the_built_page_shows_every_cause_in_its_table(built_site):
    html = (built_site / CAUSES_PAGE / "index.html").read_text("utf-8")
    assert MARKER not in html
    for cause in CAUSES:
        assert f'<td><a href="#{cause.code.lower()}">{cause.code}</a></td>' in html
