"""``python -m verification.lint_corpus run --repositories DIR [--package-path DIR] [--output F]``
``python -m verification.lint_corpus export --mirror DIR --to DIR``
``python -m verification.lint_corpus blind --mirror DIR [--half tune|sealed]``

``run`` lints every corpus case (recall on the marked hazards, false findings), the
pinned repositories found in ``--repositories`` (precision, from the reviews), and two
generated modules (speed, on one core), prints a summary, and writes the results file the
Lint page renders (default ``verification/lint_corpus/results.json``). ``--package-path``
scores the ``tf_retracing`` found in DIR instead (an older release, to compare; nothing is
written unless ``--output`` is given). ``export`` writes the repositories' Python files
and notebooks at their pinned commits from git mirrors.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from verification.lint_corpus.blind import SPLIT_CORPORA


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verification.lint_corpus")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="score the linter and write the results file")
    run.add_argument("--repositories", type=Path, required=True, help="exported snapshots")
    run.add_argument("--package-path", help="import tf_retracing from this folder first")
    run.add_argument("--output", type=Path, help="results file")
    blind = commands.add_parser("blind", help="score the linter on the blind corpus")
    blind.add_argument("--mirror", type=Path, required=True, help="git mirrors of its repositories")
    blind.add_argument(
        "--half",
        choices=["tune", "sealed"],
        help="score one half of a split corpus (blind2_marks.json, or --corpus 3 to 8) instead",
    )
    blind.add_argument(
        "--corpus",
        type=int,
        choices=list(SPLIT_CORPORA),
        default=2,
        help="which split corpus --half scores (default 2)",
    )
    export = commands.add_parser("export", help="export the pinned repositories")
    export.add_argument("--mirror", type=Path, required=True)
    export.add_argument("--to", type=Path, required=True)
    options = parser.parse_args(argv)
    if options.command == "export":
        from verification.lint_corpus.repositories import export as export_repositories

        export_repositories(options.mirror, options.to)
        return 0
    if options.command == "blind":
        from verification.lint_corpus import blind

        if options.half:
            summary = blind.run(
                options.mirror,
                blind.split_marks_file(options.corpus),
                blind.split_results_file(options.half, options.corpus),
                options.half,
            )["summary"]
        else:
            summary = blind.run(options.mirror)["summary"]
        for key, value in summary.items():
            print(f"{key}: {value}")
        return 0
    if options.package_path:
        sys.path.insert(0, options.package_path)
    return _run(options)


def _run(options) -> int:
    from verification.lint_corpus.cases import CaseError, all_cases
    from verification.lint_corpus.results import RESULTS_FILE, provenance, totals, write_results
    from verification.lint_corpus.runner import score_case, score_repositories
    from verification.lint_corpus.speed import measure_speed

    started = time.monotonic()
    try:
        cases = [score_case(case) for case in all_cases()]
    except CaseError as error:
        print(f"verification.lint_corpus: {error}", file=sys.stderr)
        return 2
    repositories = score_repositories(options.repositories)
    speed = measure_speed()
    data = {"cases": cases, "repositories": repositories, "speed": speed}
    summary = totals(data)
    for key, value in summary.items():
        print(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}")
    print(f"speed: {speed}")
    output = options.output or (None if options.package_path else RESULTS_FILE)
    if output is not None:
        seconds = time.monotonic() - started
        write_results(output, provenance(options.package_path, seconds), cases, repositories, speed)
        print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
