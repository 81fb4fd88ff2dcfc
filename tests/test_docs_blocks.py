"""Every Python block of every page (and of the README) is a test.

Blocks run in page order in a fresh interpreter per page; a block's printed output is
compared with the output shown under it on the page.
"""

from __future__ import annotations

import pytest

from verification.harness.codeblocks import (
    HarnessError,
    documented_pages,
    output_mismatch,
    page_blocks,
    relative_name,
)


def _cases():
    for page in documented_pages():
        try:
            blocks = page_blocks(page)
        except HarnessError as error:
            yield pytest.param(page, None, str(error), id=relative_name(page))
            continue
        for block in blocks:
            yield pytest.param(page, block, "", id=f"{block.page}::{block.index}")


@pytest.mark.parametrize(("page", "block", "extraction_error"), list(_cases()))
def test_block(page, block, extraction_error, page_runs):
    assert not extraction_error, extraction_error
    run = page_runs.results(page)
    assert not run["error"], run["error"]
    result = run["blocks"][block.index - 1]
    if result["status"] == "not-run":
        pytest.skip(f"{block.label} is marked on the page: {block.not_run_reason}")
    assert result["status"] == "passed", f"{block.label} {result['status']}:\n{result['error']}"
    mismatch = output_mismatch(block, result["output"])
    assert mismatch is None, mismatch
