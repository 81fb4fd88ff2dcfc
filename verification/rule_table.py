"""The linter's table of rules, rendered at build time from the package's own registry
(``tf_retracing.lint.rules.RULES``): a new rule is its module under ``lint/rules/`` and
its section on the rules page, and the tables on the Lint page and the API reference
follow. The hook is ``docs/hooks/registry_tables.py``."""

from __future__ import annotations

import posixpath
import re

from tf_retracing.lint.rules import RULES

MARKER = "<!-- lint-rule-table -->"
RULES_PAGE = "guide/lint/rules.md"  # source path of the page with one section per rule
_MARKER_LINE = re.compile(rf"^{re.escape(MARKER)}$", re.MULTILINE)  # a line of its own


class RuleTableError(Exception):
    """A rule whose text cannot sit in a table cell, or a site without the rules page."""


def rule_anchor(rule) -> str:
    """The anchor of the rule's section, a heading ``## `TFL001` function-per-call``."""
    return f"{rule.code.lower()}-{rule.name}"


def rule_table(rules_page: str) -> str:
    """The table in Markdown, each code linking to its section on ``rules_page`` (a link
    relative to the page that shows the table)."""
    rows = ["| Rule | Name | Catches | Fix |", "|---|---|---|---|"]
    for rule in RULES:
        cells = (rule.summary, rule.fix)
        if any("|" in cell or "\n" in cell for cell in cells):
            raise RuleTableError(f"{rule.code}: a table cell cannot hold '|' or a line break")
        link = f"[`{rule.code}`]({rules_page}#{rule_anchor(rule)})"
        rows.append(f"| {link} | {rule.name} | {rule.summary} | {rule.fix} |")
    return "\n".join(rows)


def with_rule_table(markdown: str, page: str, sources: set[str]) -> str:
    """``markdown`` of the page at source path ``page`` with the marker (a line of its
    own) replaced by the table; ``sources`` are the site's page source paths."""
    if not _MARKER_LINE.search(markdown):
        return markdown
    if RULES_PAGE not in sources:
        raise RuleTableError(f"{page}: the rules page {RULES_PAGE!r} is not in the site")
    link = posixpath.relpath(RULES_PAGE, posixpath.dirname(page) or ".")
    return _MARKER_LINE.sub(lambda _: rule_table(link), markdown)
