"""Verdict counts of the pages that check TensorFlow's own documentation
(``docs/guide/official-guide/``), counted from the pages' tables so that the index never
carries a hand-typed number.

A statement is a table row whose first cell is an identifier (``F12``, ``G3``) and whose
last cell is one of ``VERDICTS``; any other last cell in such a row is an error.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from verification.claims.markers import strip_markers

VERDICTS = (
    "holds",
    "holds with a caveat",
    "wrong",
    "outdated",
    "not measured here",
    "cannot be checked",
)
# Verdicts of statements no output on the page settles: a timing the site does not take,
# or what no code can settle here (a TPU, a release older than the version matrix).
UNCHECKED = ("not measured here", "cannot be checked")
MARKER = "<!-- official-guide:verdict-counts -->"
_ROW = re.compile(r"^\|\s*(?P<id>[A-Z]\d+)\s*\|.*\|\s*(?P<verdict>[^|]+?)\s*\|\s*$")


class VerdictError(ValueError):
    """A statement row whose verdict is not one of ``VERDICTS``, or an id used twice."""


def statements(markdown: str, name: str = "page") -> dict[str, str]:
    """Each statement's id and verdict, in page order."""
    found: dict[str, str] = {}
    for line in markdown.splitlines():
        # a verdict cell ends with the marker citing its lines, whose quotes may hold a "|"
        match = _ROW.match(strip_markers(line, name))
        if not match:
            continue
        ident, verdict = match["id"], match["verdict"]
        if verdict not in VERDICTS:
            raise VerdictError(
                f"{name}: {ident} has the verdict {verdict!r}, not one of {VERDICTS}"
            )
        if ident in found:
            raise VerdictError(f"{name}: {ident} appears twice")
        found[ident] = verdict
    return found


def page_statements(folder: Path) -> dict[str, dict[str, str]]:
    """Statements of every page of ``folder`` but its index, by file name."""
    pages = {}
    for path in sorted(folder.glob("*.md")):
        if path.name != "index.md":
            pages[path.name] = statements(path.read_text(encoding="utf-8"), path.name)
    return pages


def render_counts(pages: dict[str, dict[str, str]], titles: dict[str, str]) -> str:
    """A Markdown table: one row per page, one column per verdict, and the totals."""
    header = "| Page | Statements | " + " | ".join(VERDICTS) + " |"
    rows = [header, "|---|" + "---:|" * (len(VERDICTS) + 1)]
    total: Counter = Counter()
    for name, found in pages.items():
        counts = Counter(found.values())
        total.update(counts)
        cells = " | ".join(str(counts[v]) for v in VERDICTS)
        rows.append(f"| [{titles.get(name, name)}]({name}) | {len(found)} | {cells} |")
    # Only the first two cells bold: a phone shows them without scrolling the table.
    cells = " | ".join(str(total[v]) for v in VERDICTS)
    rows.append(f"| **All** | **{sum(total.values())}** | {cells} |")
    return "\n".join(rows)


def page_title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def replace_marker(markdown: str, folder: Path) -> str:
    """The index's marker replaced by the counts of the pages beside it."""
    if MARKER not in markdown:
        return markdown
    found = page_statements(folder)
    # In the order the index links them (its reading order); pages it does not link last.
    order = {name: markdown.find(f"({name})") % (len(markdown) + 1) for name in found}
    pages = {name: found[name] for name in sorted(found, key=lambda name: order[name])}
    titles = {name: page_title(folder / name) for name in pages}
    return markdown.replace(MARKER, render_counts(pages, titles))
