"""Execute one page's Python blocks in order, in this fresh process, as a reader would.

Usage: python -m tests.harness.run_page PAGE.md RESULTS.json

Each page gets its own interpreter (TensorFlow keeps per-process state, such as the
retracing-warning counter), and its blocks share one namespace, as if pasted in page
order into a new Python session. Results are written as JSON for the pytest items.
The test session runs the site's pages in a reader's environment instead
(`reader_pages`); this entry point runs a page that is not part of the site, such as a
test's temporary page, in the development environment.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import linecache
import sys
import traceback
from pathlib import Path

from tests.harness.codeblocks import DocBlock, HarnessError, page_blocks


def register_source(filename: str, code: str) -> None:
    """Make the block's source visible to inspect (AutoGraph needs it) and to tracebacks."""
    lines = code.splitlines(keepends=True)
    linecache.cache[filename] = (len(code), None, lines, filename)


def run_block(block: DocBlock, namespace: dict) -> dict:
    filename = f"{block.page} [block {block.index}]"
    register_source(filename, block.code)
    captured = io.StringIO()
    try:
        # dont_inherit: a block must not inherit this module's `from __future__` imports
        # (postponed annotations would break e.g. tf.experimental.ExtensionType fields).
        compiled = compile(block.code, filename, "exec", dont_inherit=True)
        if block.not_run_reason is not None:
            # Compiled, so even an unexecuted block cannot carry a syntax error.
            return {"status": "not-run", "output": "", "error": block.not_run_reason}
        with contextlib.redirect_stdout(captured):
            exec(compiled, namespace)
    except BaseException:
        return {"status": "failed", "output": captured.getvalue(), "error": traceback.format_exc()}
    return {"status": "passed", "output": captured.getvalue(), "error": ""}


def run_page(page: Path) -> dict:
    try:
        blocks = page_blocks(page)
    except HarnessError as error:
        return {"error": str(error), "blocks": []}
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    results = []
    failed = False
    for block in blocks:
        if failed:  # a reader's session stops at the first error: so does the page's
            results.append({"status": "blocked", "output": "", "error": "an earlier block failed"})
            continue
        results.append(run_block(block, namespace))
        failed = results[-1]["status"] == "failed"
    return {"error": "", "blocks": results}


def main(argv: list[str]) -> int:
    page, out = Path(argv[1]), Path(argv[2])
    results = run_page(page)
    out.write_text(json.dumps(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
