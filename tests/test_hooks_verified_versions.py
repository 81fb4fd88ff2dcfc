"""The "Verified versions" note goes only on pages whose Python blocks the tests run."""

from __future__ import annotations

import importlib.util

import pytest

from verification.harness.codeblocks import ROOT, documented_pages, page_blocks


def load_hook():
    path = ROOT / "docs" / "hooks" / "verified_versions.py"
    spec = importlib.util.spec_from_file_location("verified_versions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = load_hook()


def test_python_shown_inside_a_markdown_example_is_not_executed():
    page = "# Title\n\n````markdown\n```python\nprint(1)\n```\n````\n"
    assert not hook.has_executed_python(page)
    assert hook.stamp(page) == page


def test_a_top_level_python_block_is_stamped():
    page = "# Title\n\n```python\nprint(1)\n```\n"
    assert hook.has_executed_python(page)
    assert "Verified versions" in hook.stamp(page)


def test_a_block_marked_not_run_is_not_a_reason_to_stamp():
    page = '# Title\n\n```python title="Not run: needs a GPU"\nprint(1)\n```\n'
    assert not hook.has_executed_python(page)


@pytest.mark.parametrize(
    "page", [p for p in documented_pages() if p.parent.name != ROOT.name], ids=lambda p: p.name
)
def test_stamp_agrees_with_the_blocks_the_tests_run(page):
    """A page is stamped exactly when the harness finds a block on it that it runs."""
    runs = any(block.not_run_reason is None for block in page_blocks(page))
    assert hook.has_executed_python(page.read_text(encoding="utf-8")) == runs, page
