"""The linter's table of rules is rendered from the package's registry on the Lint page and
the API reference: every rule has its row, linked to its section on the rules page, and
no page types the table by hand."""

from __future__ import annotations

import dataclasses
import re

import pytest
from tf_retracing.lint.rules import RULES

from verification.harness.codeblocks import ROOT
from verification.rule_table import (
    MARKER,
    RULES_PAGE,
    RuleTableError,
    rule_anchor,
    rule_table,
    with_rule_table,
)

DOCS = ROOT / "docs"
ROW = re.compile(r"^\| \[`(TFL\d{3})`\]\(([^)]*)\) \| ([a-z0-9-]+) \| (.+) \| (.+) \|$")


def test_every_rule_has_one_row_linked_to_its_section():
    rows = [ROW.match(line) for line in rule_table("rules.md").splitlines()[2:]]
    assert all(rows)
    for row, rule in zip(rows, RULES, strict=True):
        link = f"rules.md#{rule_anchor(rule)}"
        assert row.groups() == (rule.code, link, rule.name, rule.summary, rule.fix)


def test_the_marker_links_relative_to_the_page_that_holds_it():
    sources = {RULES_PAGE, "guide/lint.md", "reference.md"}
    lint = with_rule_table(f"before\n\n{MARKER}\n\nafter", "guide/lint.md", sources)
    assert lint == f"before\n\n{rule_table('lint/rules.md')}\n\nafter"
    assert "(guide/lint/rules.md#tfl001-" in with_rule_table(MARKER, "reference.md", sources)
    assert with_rule_table("no marker", "x.md", set()) == "no marker"
    with pytest.raises(RuleTableError, match=r"x\.md: the rules page 'guide/lint/rules\.md'"):
        with_rule_table(MARKER, "x.md", set())


def test_a_cell_that_would_break_the_table_is_refused(monkeypatch):
    from verification import rule_table as module

    broken = dataclasses.replace(RULES[0], summary="a | b")
    monkeypatch.setattr(module, "RULES", (broken,))
    with pytest.raises(RuleTableError, match="TFL001: a table cell cannot hold"):
        module.rule_table("rules.md")


def test_the_table_is_typed_on_no_page_and_each_rule_has_its_section():
    typed = [
        path.relative_to(DOCS).as_posix()
        for path in DOCS.rglob("*.md")
        if re.search(r"^\| \[`TFL\d{3}`\]", path.read_text("utf-8"), re.MULTILINE)
    ]
    assert typed == []
    holding = sorted(
        p.relative_to(DOCS).as_posix()
        for p in DOCS.rglob("*.md")
        if f"\n{MARKER}\n" in p.read_text("utf-8")
    )
    assert holding == ["guide/lint.md", "reference.md"]
    rules_page = (DOCS / RULES_PAGE).read_text("utf-8")
    for rule in RULES:
        assert f"## `{rule.code}` {rule.name}" in rules_page, rule.code


def test_the_built_pages_show_every_rule_linked_to_an_existing_section(built_site):
    sections = (built_site / "guide" / "lint" / "rules" / "index.html").read_text("utf-8")
    for page in ("guide/lint", "reference"):
        html = (built_site / page / "index.html").read_text("utf-8")
        assert MARKER not in html
        for rule in RULES:
            assert f"rules/#{rule_anchor(rule)}" in html, (page, rule.code)
            assert f'id="{rule_anchor(rule)}"' in sections, rule.code
