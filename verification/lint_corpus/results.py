"""The linter corpus's results file: totals computed from the per-case and per-repository
records, written whole, read and checked for the Lint page."""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path

from benchmarks.code_hash import code_hash
from benchmarks.provenance import cpu_model, git_commit
from verification.corpus_results import (
    ResultsError,
    check_records,
    read_checked,
    write_checked,
)

__all__ = ["ResultsError", "read_results", "totals", "write_results"]

RESULTS_FILE = Path(__file__).resolve().parent / "results.json"
SCHEMA_VERSION = 1
_CASE_FIELDS = ("id", "path", "source", "summary", "hazards", "missed", "false_findings")
_REPOSITORY_FIELDS = ("name", "commit", "files", "unparsable", "seconds", "findings")


# The code a run measures: the linter and the corpus's cases, reviews and runner.
MEASURED = (
    "snippets/tf_retracing/lint",
    "verification/lint_corpus/*.py",
    "verification/lint_corpus/cases",
    "verification/explainer_corpus/cases",
)


def provenance(package_path: str | None, seconds: float) -> dict:
    from tf_retracing import __version__

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        # What a run's results depend on: the package, the cases and their reviews.
        "commit": git_commit(
            ("snippets", "verification/lint_corpus", "verification/explainer_corpus/cases")
        ),
        "measured": list(MEASURED),
        "code_hash": code_hash(MEASURED),
        "tf_retracing": __version__,
        "package_path": package_path,
        "python": platform.python_version(),
        "machine": f"{cpu_model()}, {os.cpu_count()} CPUs, timed on one",
        "seconds": round(seconds),
        "command": "python -m verification.lint_corpus run --repositories DIR",
    }


def totals(data: dict) -> dict:
    """Recall, false findings and precision, from the records (never stored apart)."""
    cases = data["cases"]
    hazards = sum(len(case["hazards"]) for case in cases)
    missed = sum(len(case["missed"]) for case in cases)
    findings = [f for repository in data["repositories"] for f in repository["findings"]]
    reviewed = [f for f in findings if f["true"] is not None]
    true = sum(1 for f in reviewed if f["true"])
    return {
        "cases": len(cases),
        "sources": len({case["source"] for case in cases}),
        "hazards": hazards,
        "found": hazards - missed,
        "recall": (hazards - missed) / hazards if hazards else 0.0,
        "corpus_false_findings": sum(len(case["false_findings"]) for case in cases),
        "repository_files": sum(r["files"] for r in data["repositories"]),
        "repository_seconds": sum(r["seconds"] for r in data["repositories"]),
        "repository_findings": len(findings),
        "unreviewed": len(findings) - len(reviewed),
        "true_findings": true,
        "precision": true / len(reviewed) if reviewed else 1.0,
    }


def write_results(path: Path, provenance_: dict, cases, repositories, speed) -> None:
    data = {
        "schema_version": SCHEMA_VERSION,
        "provenance": provenance_,
        "cases": cases,
        "repositories": repositories,
        "speed": speed,
    }
    write_checked(path, data, check)


def read_results(path: Path = RESULTS_FILE) -> dict:
    return read_checked(path, check)


def check(data, path: Path) -> None:
    records = {"cases": _CASE_FIELDS, "repositories": _REPOSITORY_FIELDS}
    check_records(data, path, SCHEMA_VERSION, records)
    speed = data.get("speed")
    if not isinstance(speed, dict) or len(speed.get("modules", [])) != 2:
        raise ResultsError(f"{path}: speed must give two generated modules")
