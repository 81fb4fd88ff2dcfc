"""``python -m verification.claims report [PAGE ...]``: per counted page (the guide, the
home, install and Versions pages, the Benchmarks pages and the README), the sentences that
must carry evidence and how many do, then each sentence still without it, and the same
counts by kind of text; exit status 1 when one is left. ``python -m verification.claims
check``: the coverage check the tests run (``verification/claims/check.py``): exit status
1, with one line per problem, when a marker is misspelt, its evidence is gone, a flagged
sentence has none and is not recorded as still without one, a recorded claim lost its
marker, or a claim cites a stale figure the record does not accept.
``python -m verification.claims record``: write the claims as they are now (and the
sentences still without a marker, and the stale figures accepted) to
``verification/claims/recorded.json``. ``python -m verification.claims baseline``:
record the counts of the pages as they are now in ``verification/claims/baseline.json``
(run once, before markers existed). ``python -m verification.claims stale``: how many
results figures the pages cite and which of them come from a stale run (older than its
code, or without a code hash); exit status 0, for CI's log."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from verification.claims.index import (
    BASELINE,
    counted_pages,
    guide_pages,
    kind_counts,
    page_counts,
    page_sentences,
)
from verification.claims.markers import ClaimError

DOCS = Path(__file__).resolve().parents[2] / "docs"


def report(pages: list[str]) -> int:
    missing = 0
    for page in pages:
        counts = page_counts(DOCS, page)
        print(
            f"{page}: {counts['flagged']} flagged, {counts['flagged_proof']} with evidence, "
            f"{counts['flagged_no_claim']} set aside, {counts['flagged_missing']} without"
        )
        for sentence in page_sentences(DOCS, page):
            if sentence.status == "missing":
                missing += 1
                print(f"    without evidence ({sentence.kind}): {sentence.text}")
    print("by kind of text:")
    for kind, status in kind_counts(DOCS, pages).items():
        print(
            f"  {kind}: {sum(status.values())} flagged, {status['proof']} with evidence, "
            f"{status['no-claim']} set aside, {status['missing']} without"
        )
    return 1 if missing else 0


def baseline() -> int:
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    document = {
        "commit": commit,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python -m verification.claims baseline",
        "pages": {
            page: {k: page_counts(DOCS, page)[k] for k in ("sentences", "flagged")}
            for page in guide_pages(DOCS)
        },
    }
    BASELINE.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {BASELINE}")
    return 0


def check() -> int:
    from verification.claims import check as coverage_check
    from verification.matrix.schema import RESULTS_FILE, ResultsError, read_document

    try:
        matrix_doc = read_document(RESULTS_FILE, require_complete=True)
        found = coverage_check.problems(DOCS, coverage_check.read_record(), matrix_doc)
    except (ResultsError, ClaimError) as error:
        print(error, file=sys.stderr)
        return 1
    for problem in found:
        print(problem)
    print(f"{len(found)} problems" if found else "every claim keeps its marker and evidence")
    return 1 if found else 0


def stale() -> int:
    from verification.claims.index import cited_figures, stale_summary

    figures = cited_figures(DOCS)
    for figure in figures:
        if figure.stale:
            print(f"stale: {figure.page}, claim {figure.claim}: {figure.file} {figure.key}")
    print(stale_summary(figures))
    return 0


def record() -> int:
    from verification.claims import check as coverage_check

    document = coverage_check.record(DOCS)
    total = sum(len(texts) for texts in document["pages"].values())
    print(f"wrote {coverage_check.RECORD}: {total} claims on {len(document['pages'])} pages")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verification.claims")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("report", help="coverage per page, and what lacks evidence")
    show.add_argument("pages", nargs="*", help="paths from docs/ (default: every guide page)")
    commands.add_parser("baseline", help="record the counts as they are now")
    commands.add_parser("check", help="fail on a lost, misspelt or unresolved marker")
    commands.add_parser("record", help="record the sentences that carry evidence now")
    commands.add_parser("stale", help="count the cited results figures of stale runs")
    args = parser.parse_args(argv)
    if args.command == "baseline":
        return baseline()
    if args.command == "check":
        return check()
    if args.command == "record":
        return record()
    if args.command == "stale":
        return stale()
    pages = [p.removeprefix("docs/") for p in args.pages] or counted_pages(DOCS)
    return report(pages)


if __name__ == "__main__":
    sys.exit(main())
