"""The serving corpus's results file: written whole (never half), read and checked for the
page."""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path

from benchmarks.code_hash import code_hash
from benchmarks.provenance import git_commit
from verification.corpus_results import check_records, read_checked, write_checked

RESULTS_FILE = Path(__file__).resolve().parent / "results.json"
SCHEMA_VERSION = 1
FIELDS = (
    "id",
    "title",
    "source",
    "variables",
    "route",
    "reason",
    "traces",
    "errors",
    "stale_keras_models",
    "stale_unwarned",
    "passed",
    "seconds",
)
# What a run's results depend on: the predictor and the corpus.
MEASURED = (
    "snippets/tf_retracing/serving",
    "snippets/tf_retracing/_internals",
    "benchmarks/architectures.py",
    "verification/serving_corpus/*.py",
)


def provenance(seconds: float) -> dict:
    import keras
    import tensorflow as tf

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_commit(MEASURED),
        "measured": list(MEASURED),
        "code_hash": code_hash(MEASURED),
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "seconds": round(seconds),
        "command": "python -m verification.serving_corpus run",
    }


def write_results(path: Path, provenance_: dict, architectures: list[dict]) -> None:
    data = {
        "schema_version": SCHEMA_VERSION,
        "provenance": provenance_,
        "architectures": architectures,
    }
    write_checked(path, data, check)


def read_results(path: Path = RESULTS_FILE) -> dict:
    return read_checked(path, check)


def check(data, path: Path) -> None:
    check_records(data, path, SCHEMA_VERSION, {"architectures": FIELDS})
