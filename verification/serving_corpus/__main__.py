"""``python -m verification.serving_corpus run [--only ID ...]``

Serves every architecture of the corpus (or those named), prints one line each, and writes
the results file the Serving page renders (not with ``--only``)."""

from __future__ import annotations

import argparse
import sys
import time

from verification.corpus_results import chosen
from verification.serving_corpus.results import RESULTS_FILE, provenance, write_results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verification.serving_corpus")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="serve every architecture and write the results")
    run.add_argument("--only", nargs="+", metavar="ID", help="run only these architectures")
    options = parser.parse_args(argv)
    from benchmarks.architectures import ARCHITECTURES
    from verification.serving_corpus.runner import run_architecture

    architectures = chosen(
        ARCHITECTURES, options.only, "verification.serving_corpus", "architecture"
    )
    if architectures is None:
        return 2
    started = time.monotonic()
    results = []
    for architecture in architectures:
        result = run_architecture(architecture)
        results.append(result)
        worst = max(result["errors"].values())
        print(
            f"{'ok  ' if result['passed'] else 'FAIL'} {result['id']:24} {result['route']:13} "
            f"traces {result['traces']}  largest difference {worst:.2g}  "
            f"stale {result['stale_keras_models']} unwarned {result['stale_unwarned']}  "
            f"{result['seconds']} s",
            flush=True,
        )
    passed = sum(r["passed"] for r in results)
    print(f"{passed}/{len(results)} architectures passed in {time.monotonic() - started:.0f} s")
    if not options.only:
        write_results(RESULTS_FILE, provenance(time.monotonic() - started), results)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
