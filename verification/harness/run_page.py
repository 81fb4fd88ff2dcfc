"""Execute one page's Python blocks in order, in this fresh process, as a reader would.

Usage: python -m verification.harness.run_page PAGE.md RESULTS.json

Each page gets its own interpreter (TensorFlow keeps per-process state, such as the
retracing-warning counter), and its blocks share one namespace, as if pasted in page
order into a new Python session. Results are written as JSON for the pytest items.
The test session runs the site's pages in a reader's environment instead
(`reader_pages`); this entry point runs a page that is not part of the site, such as a
test's temporary page, in the development environment.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from verification.harness.codeblocks import HarnessError, page_blocks
from verification.harness.reader_pages import job_block
from verification.harness.standalone_runner import run_page as run_blocks


def run_page(page: Path) -> dict:
    try:
        blocks = page_blocks(page)
    except HarnessError as error:
        return {"error": str(error), "blocks": []}
    # The reader's-environment runner's own loop: both harnesses run blocks the same way.
    return {"error": "", "blocks": run_blocks([job_block(block) for block in blocks])}


def main(argv: list[str]) -> int:
    page, out = Path(argv[1]), Path(argv[2])
    results = run_page(page)
    out.write_text(json.dumps(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
