"""``python -m verification.claims report [PAGE ...]``: per guide page, the sentences that
must carry evidence and how many do, then each sentence still without it; exit status 1
when one is left. ``python -m verification.claims baseline``: record the counts of the
pages as they are now in ``verification/claims/baseline.json``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from verification.claims.index import BASELINE, guide_pages, page_counts, page_sentences

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
                print(f"    without evidence: {sentence.text}")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verification.claims")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("report", help="coverage per page, and what lacks evidence")
    show.add_argument("pages", nargs="*", help="paths from docs/ (default: every guide page)")
    commands.add_parser("baseline", help="record the counts as they are now")
    args = parser.parse_args(argv)
    if args.command == "baseline":
        return baseline()
    pages = [p.removeprefix("docs/") for p in args.pages] or guide_pages(DOCS)
    return report(pages)


if __name__ == "__main__":
    sys.exit(main())
