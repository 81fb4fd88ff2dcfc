"""The tally of the verdicts on the page that checks articles' claims
(``docs/guide/claims-checked.md``), counted at build time from its table of claims, so
that the page never carries a hand-typed count.

A claim is a row whose first cell is its number; its verdict is the fourth cell, read
without the claim marker that cites its evidence, and falls under the first of
``VERDICTS`` it starts with.
"""

from __future__ import annotations

import re

from verification.claims.markers import strip_markers

VERDICTS = ("holds only when", "holds", "wrong")
SHOWN = {"holds only when": "holds only when ...", "holds": "holds", "wrong": "wrong"}
MARKER = "<!-- claims-checked:tally -->"
_ROW = re.compile(r"^\|\s*(?P<number>\d+)\s*\|")


class TallyError(ValueError):
    """A row whose verdict starts with none of ``VERDICTS``, or a number used twice."""


def verdicts(markdown: str) -> dict[int, str]:
    """Each claim's number and the verdict it falls under, in page order."""
    found: dict[int, str] = {}
    for line in markdown.splitlines():
        match = _ROW.match(line)
        if not match:
            continue
        row = strip_markers(line, "the claims table")
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        number, verdict = int(match["number"]), cells[3] if len(cells) > 3 else ""
        kind = next((v for v in VERDICTS if verdict.startswith(v)), None)
        if kind is None:
            raise TallyError(f"claim {number}: verdict {verdict!r} starts with none of {VERDICTS}")
        if number in found:
            raise TallyError(f"claim {number} appears twice")
        found[number] = kind
    return found


def render(found: dict[int, str]) -> str:
    """A Markdown table: each verdict, its claims' numbers and their count."""
    rows = [
        f"Tally of the {len(found)} claims:",
        "",
        "| Verdict | Claims | Count |",
        "|---|---|---|",
    ]
    for kind in ("holds", "holds only when", "wrong"):
        numbers = [n for n, v in found.items() if v == kind]
        rows.append(f"| {SHOWN[kind]} | {', '.join(map(str, numbers))} | {len(numbers)} |")
    return "\n".join(rows)


def replace_marker(markdown: str) -> str:
    return markdown.replace(MARKER, render(verdicts(markdown))) if MARKER in markdown else markdown
