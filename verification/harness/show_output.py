"""Print what each Python block of a page prints, to paste under it as its shown output.

Usage: python -m verification.harness.show_output docs/guide/PAGE.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from verification.harness.codeblocks import page_blocks
from verification.harness.run_page import run_page


def main(argv: list[str]) -> int:
    page = Path(argv[1])
    blocks = page_blocks(page)
    results = run_page(page)
    if results["error"]:
        print(results["error"], file=sys.stderr)
        return 1
    for block, result in zip(blocks, results["blocks"], strict=True):
        first_line = block.code.strip().splitlines()[0] if block.code.strip() else ""
        print(f"===== block {block.index} [{result['status']}] {first_line}")
        print(result["output"], end="")
        if result["error"]:
            print(result["error"], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
