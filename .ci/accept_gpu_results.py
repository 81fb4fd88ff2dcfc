"""Checks the results the GPU runner uploaded, then copies them into benchmarks/results/.

The GPU runner is a machine outside GitHub's control, so what it uploads is checked on a
GitHub-hosted runner before the site is built with it: exactly the expected file, of a
sane size, holding a JSON object. The strict site build that follows renders the file and
fails on any field the benchmark renderer rejects.

    python .ci/accept_gpu_results.py INCOMING_DIR RESULTS_DIR
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

EXPECTED_NAME = "gpu.json"
MAX_BYTES = 2_000_000


class RejectedResults(Exception):
    """The uploaded results are not what the GPU job is meant to produce."""


def check_incoming(incoming: Path) -> Path:
    """Return the one results file in `incoming`, or raise RejectedResults saying why."""
    if not incoming.is_dir():
        raise RejectedResults(f"{incoming} is not a folder")
    entries = sorted(p.name for p in incoming.iterdir())
    if entries != [EXPECTED_NAME]:
        raise RejectedResults(f"{incoming} must hold only {EXPECTED_NAME}, found {entries}")
    results = incoming / EXPECTED_NAME
    if results.is_symlink() or not results.is_file():
        raise RejectedResults(f"{results} is not a regular file")
    size = results.stat().st_size
    if not 0 < size <= MAX_BYTES:
        raise RejectedResults(f"{results} has {size} bytes; expected 1 to {MAX_BYTES}")
    try:
        data = json.loads(results.read_text("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RejectedResults(f"{results} is not valid JSON: {error}") from error
    if not isinstance(data, dict):
        raise RejectedResults(f"{results} must hold a JSON object, not {type(data).__name__}")
    return results


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    incoming, results_dir = Path(argv[0]), Path(argv[1])
    try:
        results = check_incoming(incoming)
    except RejectedResults as error:
        print(f"error: rejected GPU results: {error}", file=sys.stderr)
        return 1
    results_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(results, results_dir / EXPECTED_NAME)
    print(f"accepted {results} -> {results_dir / EXPECTED_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
