"""python -m verification.matrix {run,lock,list}: see verification/matrix/runner.py."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from verification.matrix import runner, schema
from verification.matrix.entries import ENTRIES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verification.matrix")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run entries and merge them into the results file")
    lock = commands.add_parser("lock", help="resolve each entry's exact pins into its lock")
    commands.add_parser("list", help="the declared entries")
    merge = commands.add_parser("merge", help="merge the files of several runs into one")
    merge.add_argument("files", nargs="+", type=Path)
    merge.add_argument("--out", type=Path, default=schema.RESULTS_FILE)
    for sub in (run, lock):
        sub.add_argument("--only", nargs="+", metavar="ID", help="these entries only")
    run.add_argument("--out", type=Path, default=schema.RESULTS_FILE)
    run.add_argument("--cache", type=Path, default=runner.DEFAULT_CACHE)
    run.add_argument("--jobs", type=int, default=1, help="pages run at once (default 1)")
    run.add_argument("--no-package-tests", action="store_true")
    run.add_argument("--page", action="append", help="only this page (for trying a change)")
    args = parser.parse_args(argv)

    entries = list(ENTRIES)
    if getattr(args, "only", None):
        unknown = set(args.only) - {e.id for e in ENTRIES}
        if unknown:
            parser.error(f"unknown entries: {', '.join(sorted(unknown))}")
        entries = [e for e in ENTRIES if e.id in args.only]
    if args.command == "list":
        for entry in entries:
            print(f"{entry.id:18} Python {entry.python}  {' '.join(entry.requirements)}")
        return 0
    if args.command == "merge":
        try:
            parts = [(path, schema.read_document(path)) for path in args.files]
            merged = schema.merge_documents(parts, ENTRIES)
            problems = schema.validate(merged, require_complete=True)
            if problems:  # a job that did not deliver its entry
                raise schema.ResultsError(f"the merged results: {problems[0]}")
            schema.write_document(args.out, merged)
        except schema.ResultsError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        print(f"{len(merged['entries'])} entries merged into {args.out}")
        return 0
    if args.command == "lock":
        for entry in entries:
            try:
                print(runner.write_lock(entry))
            except runner.EnvironmentFailed as error:
                print(f"{entry.id}: cannot be resolved:\n{error}", file=sys.stderr)
        return 0
    if args.page and args.out == schema.RESULTS_FILE:
        parser.error("--page gives a partial run: write it elsewhere with --out")
    runner.run(
        entries,
        out=args.out,
        cache=args.cache,
        jobs=max(1, args.jobs),
        command=shlex.join(["python", "-m", "verification.matrix", *(argv or sys.argv[1:])]),
        run_tests=not args.no_package_tests,
        page_names=args.page,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
