"""How far two blind markers agree on which page answers a held-out search query.

A set's own marks (tests/fixtures/search/held_out_N.toml) were chosen by one marker reading
the pages; tests/fixtures/search/second_marker_N.toml holds a second marker's choices for the
same queries, made without seeing the first marks or any ranking. Where the two choose
different pages, no search can put "the" answering page first for both: the share of the
first marker's answerable queries that the second marker answered with the same page is
what a search that ranked exactly as a careful reader would still score against those marks.

Rendered where a page has ``<!-- search-marker-agreement -->`` (docs/hooks/corpora.py),
computed at build time from the two files, so the figures cannot drift from the marks.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from verification.corpus_results import ResultsError
from verification.search_heldout import HALVES, ROOT, SETS

MARKER = "<!-- search-marker-agreement -->"
FIXTURES = ROOT / "tests" / "fixtures" / "search"


def second_marks_path(name: str) -> Path:
    return FIXTURES / f"second_marker_{name}.toml"


def paired_marks(name: str) -> list[dict]:
    """The set's queries, each with both marks: ``half``, ``first`` (the set's own page),
    ``second`` (the second marker's page) and ``acceptable`` (its page and its ``also``).
    An error names the file and the mark when the two files do not hold the same queries."""
    queries = tomllib.loads(SETS[name][0].read_text("utf-8"))["query"]
    path = second_marks_path(name)
    marks = tomllib.loads(path.read_text("utf-8"))["mark"]
    if len(marks) != len(queries):
        raise ResultsError(f"{path}: {len(marks)} marks for the set's {len(queries)} queries")
    pairs = []
    for number, (query, mark) in enumerate(zip(queries, marks, strict=True), 1):
        if mark.get("id") != number or mark.get("text") != query["text"]:
            raise ResultsError(f"{path}: mark {number} is not for query {number}'s text")
        pairs.append(
            {
                "half": query["half"],
                "first": query["page"],
                "second": mark["page"],
                "acceptable": [mark["page"], *mark.get("also", [])],
            }
        )
    return pairs


def agreement(pairs: list[dict]) -> dict[str, int]:
    """Counts over ``pairs``: how often the two markers agree that a page answers, and on
    which page."""
    answered_first = [p for p in pairs if p["first"]]
    both = [p for p in answered_first if p["second"]]
    return {
        "queries": len(pairs),
        "answerable_first": len(answered_first),
        "answerable_second": sum(bool(p["second"]) for p in pairs),
        "answerability_agreed": sum(bool(p["first"]) == bool(p["second"]) for p in pairs),
        "both_answerable": len(both),
        "same_page": sum(p["first"] == p["second"] for p in both),
        "among_acceptable": sum(p["first"] in p["acceptable"] for p in both),
    }


def read_results() -> dict[str, dict[str, dict[str, int]]]:
    """Every set with a second marking: its agreement per half and over the whole set."""
    found = {}
    for name in SETS:
        if second_marks_path(name).is_file():
            pairs = paired_marks(name)
            found[name] = {
                half: agreement([p for p in pairs if p["half"] == half]) for half in HALVES
            }
            found[name]["both halves"] = agreement(pairs)
    if not found:
        raise ResultsError(f"no second marking in {FIXTURES}: second_marker_N.toml")
    return found


def replace_marker(markdown: str, data: dict, source_link) -> str:
    return markdown.replace(MARKER, render(data, source_link))


def render(data: dict, source_link) -> str:
    rows = [
        "| Set | Half | Queries | Answerable (first marker / second) | Agreed whether a page "
        "answers | Same page, of the first marker's answerable | First marker's page among "
        "the second's acceptable, of those both answer |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, halves in data.items():
        link = source_link(second_marks_path(name).relative_to(ROOT).as_posix())
        for half, counts in halves.items():
            rows.append(
                f"| [{name}]({link}) | {half} | {counts['queries']} | "
                f"{counts['answerable_first']} / {counts['answerable_second']} | "
                f"{counts['answerability_agreed']} | "
                f"{counts['same_page']} of {counts['answerable_first']} | "
                f"{counts['among_acceptable']} of {counts['both_answerable']} |"
            )
    return "\n".join(rows)
