"""A block that uses names it does not define continues earlier blocks, and says so.

Copied alone, such a block fails with a NameError; its visible title tells the reader to
run the blocks above it first. The check is static: the names a block reads that it
neither imports, defines nor finds among the builtins.
"""

from __future__ import annotations

import ast
import builtins

import pytest

from verification.harness.codeblocks import ROOT, documented_pages, page_blocks, relative_name

CONTINUES_PREFIX = "Continues"

SNIPPETS = ROOT / "snippets"


def free_names(code: str) -> list[str]:
    tree = ast.parse(code)
    defined: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            defined |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            defined.add(node.id)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            defined.add(node.name)
    used = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    return sorted(used - defined - set(dir(builtins)))


def _blocks():
    for page in documented_pages():
        for block in page_blocks(page):
            yield pytest.param(block, id=f"{relative_name(page)}::{block.index}")


def test_free_names_are_found():
    assert free_names("import tensorflow as tf\nprint(tf, model(x))") == ["model", "x"]
    assert free_names("def f(a):\n    return a\nf(1)") == []


@pytest.mark.parametrize("block", list(_blocks()))
def test_a_continuing_block_is_labelled(block):
    if block.title.endswith(".py"):  # an excerpt of a source file, titled with its path
        path = block.title.removeprefix("snippets/")
        assert (SNIPPETS / path).is_file(), f"{block.label}: no source file {block.title}"
        return
    missing = free_names(block.code)
    if missing:
        assert block.title.startswith(CONTINUES_PREFIX), (
            f"{block.label} uses {missing} from earlier blocks: give its fence "
            f'title="{CONTINUES_PREFIX} the blocks above"'
        )
    else:
        assert not block.title.startswith(CONTINUES_PREFIX), (
            f"{block.label} runs on its own but is titled {block.title!r}"
        )
