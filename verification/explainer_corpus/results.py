"""The corpus's results file: written whole (never half), read and checked for the page."""

from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path

from benchmarks.files import write_json_whole
from benchmarks.provenance import git_commit

RESULTS_FILE = Path(__file__).resolve().parent / "results.json"
SCHEMA_VERSION = 1
CASE_FIELDS = ("id", "source", "summary", "expect", "whole_program", "wrapped", "fix", "passed")


class ResultsError(Exception):
    """A results file that cannot be rendered, named with the field."""


def provenance(package_path: str | None, seconds: float) -> dict:
    import tensorflow as tf
    import tf_retracing

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        # What a run's results depend on: the package and the cases.
        "commit": git_commit(("snippets", "verification/explainer_corpus/cases")),
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
    check(data, path)
    write_json_whole(path, data)


def read_results(path: Path = RESULTS_FILE) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path}: {error}") from error
    check(data, path)
    return data


def check(data, path: Path) -> None:
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        raise ResultsError(f"{path}: schema_version must be {SCHEMA_VERSION}")
    if not isinstance(data.get("provenance"), dict):
        raise ResultsError(f"{path}: provenance must be an object")
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise ResultsError(f"{path}: cases must be a non-empty list")
    for index, case in enumerate(cases):
        if not isinstance(case, dict):
            raise ResultsError(f"{path}: cases[{index}] must be an object")
        for field in CASE_FIELDS:
            if field not in case:
                raise ResultsError(f"{path}: cases[{index}] ({case.get('id')}) lacks {field!r}")
