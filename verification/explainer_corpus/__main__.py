"""``python -m verification.explainer_corpus run [--only ID ...] [--package-path DIR]
[--output FILE]``

Runs every case of the corpus (or those named) wrapped, whole-program and fixed, prints one
line per case, and writes the results file the Diagnosing page renders (by default
``verification/explainer_corpus/results.json``; with ``--only`` nothing is written unless
``--output`` is given). ``--package-path`` scores the ``tf_retracing`` found in DIR instead
of the installed one (an older release, to compare)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from verification.corpus_results import chosen
from verification.explainer_corpus.cases import CaseError, all_cases
from verification.explainer_corpus.results import RESULTS_FILE, provenance, write_results
from verification.explainer_corpus.runner import run_case, run_environment
from verification.harness.preloaded_python import PreloadedPython


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verification.explainer_corpus")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the corpus and write its results file")
    run.add_argument("--only", nargs="+", metavar="ID", help="run only these cases")
    run.add_argument("--package-path", help="import tf_retracing from this folder first")
    run.add_argument("--output", type=Path, help=f"results file (default {RESULTS_FILE})")
    options = parser.parse_args(argv)
    try:
        cases = all_cases()
    except CaseError as error:
        print(f"verification.explainer_corpus: {error}", file=sys.stderr)
        return 2
    cases = chosen(cases, options.only, "verification.explainer_corpus", "case")
    if cases is None:
        return 2
    output = options.output or (None if options.only else RESULTS_FILE)
    started = time.monotonic()
    python = PreloadedPython(run_environment(options.package_path))
    results = []
    try:
        for case in cases:
            result = run_case(python, case)
            results.append(result)
            print(_line(result), flush=True)
    finally:
        python.close()
    passed = sum(result["passed"] for result in results)
    seconds = time.monotonic() - started
    print(f"{passed}/{len(results)} cases passed in {seconds:.0f} s")
    if output is not None:
        write_results(output, provenance(options.package_path, seconds), results)
        print(f"wrote {output}")
    return 0 if passed == len(results) else 1


def _line(result: dict) -> str:
    parts = [f"{'ok  ' if result['passed'] else 'FAIL'} {result['id']}"]
    for mode in ("whole_program", "wrapped"):
        run = result[mode]
        if run is None:
            continue
        parts.append(f"{mode}: exit {run['exit_status']}")
        if run["missing"]:
            parts.append(f"missing {run['missing']}")
        if run["false"]:
            parts.append(f"false {run['false']}")
    fix = result["fix"]
    if fix is not None:
        parts.append(
            f"fix: exit {fix['exit_status']}, retraces {fix['retraces']}, "
            f"advice printed {fix['advice_printed']}"
        )
    return " | ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
