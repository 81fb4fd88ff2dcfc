"""The blind corpora split in two halves (blind2 to blind8), on the linter's Measured page
at ``<!-- lint-split-corpora -->``: per corpus and half, the first score beside the latest.

Each corpus was marked from the rules pages before the linter ever ran on it. Its tune half
was then tuned on; its sealed half was scored once, at the end of that round. So the first
score of a sealed half is the blind measure, and every later score (kept as "latest") was
made by a linter changed since, some of it for what the sealed half had shown.
"""

from __future__ import annotations

from pathlib import Path

from verification.corpus_results import ResultsError, read_checked
from verification.lint_corpus.blind import SPLIT_CORPORA, split_results_file

MARKER = "<!-- lint-split-corpora -->"
HALVES = ("tune", "sealed")
_SUMMARY_FIELDS = ("files", "repositories", "clean_files", "hazards", "found", "unmarked_findings")


def read_results(corpora=SPLIT_CORPORA, results_file=split_results_file) -> dict:
    """(corpus, half) -> its results document, checked; a missing file is an error."""
    return {
        (corpus, half): read_checked(results_file(half, corpus), _check)
        for corpus in corpora
        for half in HALVES
    }


def _first(results: dict) -> dict:
    """The first run on these marks: kept as ``first_run`` once a later run replaced it."""
    return results.get("first_run") or results


def _check(data: dict, path: Path) -> None:
    for run_name, run in (("latest", data), ("first_run", _first(data))):
        summary = run.get("summary") if isinstance(run, dict) else None
        if not isinstance(summary, dict):
            raise ResultsError(f"{path}: {run_name}: summary is missing")
        for field in _SUMMARY_FIELDS:
            if not isinstance(summary.get(field), int):
                raise ResultsError(f"{path}: {run_name}: summary.{field}: expected a number")
        if not isinstance(run.get("provenance", {}).get("code_hash"), str):
            raise ResultsError(f"{path}: {run_name}: provenance.code_hash is missing")


def replace_marker(markdown: str, data: dict, source_link) -> str:
    return markdown.replace(MARKER, render(data, source_link))


def render(data: dict, source_link) -> str:
    rows = [
        "| Corpus | Half | Files (clean) | First score | Latest score |",
        "|---|---|---:|---:|---:|",
    ]
    for (corpus, half), results in data.items():
        first = _first(results)
        files = results["summary"]
        link = source_link(f"verification/lint_corpus/blind{corpus}_{half}_results.json")
        rows.append(
            f"| [{corpus}]({link}) | {half} | {files['files']} ({files['clean_files']}) | "
            f"{_score(first)} | {_score(results)} |"
        )
    return "\n".join(rows)


def _score(run: dict) -> str:
    """ "12 of 14 (85.7 %), 0 off, 2026-11-28, `978ada0398f5`"."""
    summary, provenance = run["summary"], run["provenance"]
    share = f"{summary['found'] / summary['hazards']:.1%}" if summary["hazards"] else "—"
    return (
        f"{summary['found']} of {summary['hazards']} ({share}), "
        f"{summary['unmarked_findings']} off, {provenance['date'][:10]}, "
        f"`{provenance['code_hash']}`"
    )
