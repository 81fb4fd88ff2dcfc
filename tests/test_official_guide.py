"""The pages that check TensorFlow's own documentation: their verdicts are read from their
tables (the index's counts are rendered from them at build time), and every statement not
marked "not measured here" or "cannot be checked" is named in the output its page shows."""

from __future__ import annotations

import re

import pytest

from verification.harness.codeblocks import ROOT
from verification.official_guide import (
    MARKER,
    UNCHECKED,
    VerdictError,
    page_statements,
    render_counts,
    replace_marker,
    statements,
)

FOLDER = ROOT / "docs" / "guide" / "official-guide"
TEXT_BLOCK = re.compile(r"^```text\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def test_rows_are_read_with_their_verdicts():
    page = "| ID | Statement | Verdict |\n|---|---|---|\n| A1 | x `a` y | holds |\n"
    page += "| A2 | z | holds with a caveat |\n| Other | row | wrong |\n"
    assert statements(page) == {"A1": "holds", "A2": "holds with a caveat"}


@pytest.mark.parametrize(
    "page",
    ["| A1 | x | maybe |\n", "| A1 | x | holds |\n| A1 | y | wrong |\n"],
)
def test_an_unknown_verdict_or_a_repeated_id_is_an_error(page):
    with pytest.raises(VerdictError, match="A1"):
        statements(page, "p.md")


def test_counts_add_up_per_page_and_in_total():
    table = render_counts({"a.md": {"A1": "holds", "A2": "wrong"}, "b.md": {"B1": "holds"}}, {})
    assert "| [a.md](a.md) | 2 | 1 | 0 | 1 | 0 | 0 | 0 |" in table
    assert table.splitlines()[-1] == "| **All** | **3** | 2 | 0 | 1 | 0 | 0 | 0 |"


def test_the_index_has_the_marker_and_every_page_has_statements():
    assert MARKER in (FOLDER / "index.md").read_text(encoding="utf-8")
    pages = page_statements(FOLDER)
    assert pages and all(pages.values())
    rendered = replace_marker(MARKER, FOLDER)
    assert all(f"({name})" in rendered for name in pages)


def test_ids_are_unique_across_the_pages():
    ids = [ident for found in page_statements(FOLDER).values() for ident in found]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("name", sorted(page_statements(FOLDER)))
def test_every_checked_statement_is_named_in_the_shown_output(name):
    text = (FOLDER / name).read_text(encoding="utf-8")
    shown = "\n".join(TEXT_BLOCK.findall(text))
    named = set(re.findall(r"\b([A-Z]\d+)\b", shown))
    for letter, start, end in re.findall(r"\b([A-Z])(\d+)-[A-Z](\d+)\b", shown):
        named.update(f"{letter}{n}" for n in range(int(start), int(end) + 1))
    verdicts = statements(text, name).items()
    checked = {i for i, verdict in verdicts if verdict not in UNCHECKED}
    assert sorted(checked - named) == []
    unchecked = {i for i, verdict in verdicts if verdict in UNCHECKED}
    assert sorted(unchecked & named) == []


def test_a_verdict_is_read_without_the_marker_that_cites_its_lines():
    row = '| F8 | Three dtypes trace | holds[[proof: "F8 traces: 3 | F9 then: 3"]] |\n'
    assert statements(row) == {"F8": "holds"}
    with pytest.raises(VerdictError, match="F9 has the verdict 'maybe'"):
        statements("| F9 | x | maybe[[no-claim: site]] |\n")
