"""Run many pages, each in its own forked interpreter, paying for `import tensorflow` once.

Usage: python -m tests.harness.page_server JOBS.json

JOBS.json lists {"page": ..., "out": ...} pairs. This process imports TensorFlow and
Keras, the state every page reaches with its first block anyway, and nothing else: no op
has run and no tf.function exists, so per-process state such as the retracing-warning
counter is as fresh as in a new session. Each page then runs in a forked child, at most
one per core at a time; the child writes its results to its "out" file. A child that dies
without writing them gets a crash record instead, so the caller never waits for nothing.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import keras  # noqa: F401 - imported once here, inherited by every forked page
import tensorflow  # noqa: F401

from tests.harness.run_page import run_page


def write_results(out: Path, results: dict) -> None:
    partial = out.with_suffix(".partial")
    partial.write_text(json.dumps(results), encoding="utf-8")
    partial.rename(out)  # atomic: a reader never sees half a file


def run_child(page: Path, out: Path) -> None:
    try:
        write_results(out, run_page(page))
    finally:
        os._exit(0)  # never return into the parent's loop


def main(argv: list[str]) -> int:
    jobs = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    running: dict[int, dict] = {}
    pending = list(jobs)
    while pending or running:
        while pending and len(running) < (os.cpu_count() or 2):
            job = pending.pop(0)
            pid = os.fork()
            if pid == 0:
                run_child(Path(job["page"]), Path(job["out"]))
            running[pid] = job
        pid, status = os.wait()
        job = running.pop(pid)
        if not Path(job["out"]).exists():
            crash = f"running {job['page']} crashed (wait status {status})"
            write_results(Path(job["out"]), {"error": crash, "blocks": []})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
