"""The corpus's results file: written whole (never half), read and checked for the page."""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path

from benchmarks.code_hash import code_hashes
from benchmarks.provenance import git_commit
from verification.corpus_results import (
    ResultsError,
    check_records,
    read_checked,
    write_checked,
)

__all__ = ["ResultsError", "read_results", "write_results"]

RESULTS_FILE = Path(__file__).resolve().parent / "results.json"
SCHEMA_VERSION = 1
CASE_FIELDS = ("id", "source", "summary", "expect", "whole_program", "wrapped", "fix", "passed")
# The code a run measures: the package, the cases and the code that runs them.
MEASURED = (
    "snippets/tf_retracing",
    "verification/explainer_corpus/cases",
    "verification/explainer_corpus/cases.py",
    "verification/explainer_corpus/runner.py",
    "verification/explainer_corpus/wrapped.py",
)


def provenance(package_path: str | None, seconds: float) -> dict:
    import tensorflow as tf
    import tf_retracing

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        # What a run's results depend on: the package and the cases.
        "commit": git_commit(("snippets", "verification/explainer_corpus/cases")),
        "measured": list(MEASURED),
        **code_hashes(MEASURED),
        "tensorflow": tf.__version__,
        "tf_retracing": tf_retracing.__version__,
        "package_path": package_path,
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "seconds": round(seconds),
        "command": "python -m verification.explainer_corpus run",
    }


def write_results(path: Path, provenance_: dict, cases: list[dict]) -> None:
    data = {"schema_version": SCHEMA_VERSION, "provenance": provenance_, "cases": cases}
    write_checked(path, data, check)


def read_results(path: Path = RESULTS_FILE) -> dict:
    return read_checked(path, check)


def check(data, path: Path) -> None:
    check_records(data, path, SCHEMA_VERSION, {"cases": CASE_FIELDS})
