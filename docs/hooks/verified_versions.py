"""MkDocs hook: stamp each page that has executed examples with the versions they ran on.

The versions are read from the environment that builds the site, which is the same
locked environment the tests execute every block in, so they are never typed by hand.
The note also states where else the page's blocks were run, from the version matrix's
results file (``verification/matrix/results.json``), with the range on which they all held.
"""

from __future__ import annotations

import os
import platform
import posixpath
import re
from functools import cache
from importlib.metadata import version
from pathlib import Path

from mkdocs.exceptions import PluginError

from verification.harness.codeblocks import HarnessError, page_blocks, snippets_config
from verification.matrix import render
from verification.matrix.schema import RESULTS_FILE, ResultsError, read_document
from verification.search_index import out_of_search

_FENCE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FIRST_HEADING = re.compile(r"^# .*$", re.MULTILINE)


def has_executed_python(markdown: str) -> bool:
    """Whether the page has a Python block the tests execute.

    Only fences at the top level count: a ```python fence shown inside a longer
    ````markdown fence is an example of Markdown, and it is never run. A block titled
    "Not run: ..." is not executed either.
    """
    open_fence = None
    for line in markdown.splitlines():
        match = _FENCE.match(line)
        if not match:
            continue
        fence, info = match["fence"], match["info"].strip()
        if open_fence is None:
            open_fence = fence
            words = info.lstrip("{").split()
            if words and words[0].lstrip(".") == "python" and 'title="Not run:' not in info:
                return True
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence) and not info:
            open_fence = None
    return False


@cache
def versions_note() -> str:
    # Folded: the versions are in its one-line title, and the page starts in the first
    # screen, on a phone too; the details open on a tap.
    versions = (
        f"TensorFlow {version('tensorflow')}, Keras {version('keras')}, "
        f"Python {platform.python_version()}"
    )
    return (
        f'??? info "Verified versions: {versions}"\n'
        f"    Every example on this page was executed by the test suite with "
        f"TensorFlow {version('tensorflow')}, Keras {version('keras')} and "
        f"Python {platform.python_version()}; the output shown is the output it printed.\n"
    )


def stamp(markdown: str, measured: str = "") -> str:
    """Insert the versions note after the page title when the page has executed Python
    blocks. ``measured`` is a sentence on the version matrix's range, added to the note."""
    if not has_executed_python(markdown):
        return markdown
    heading = _FIRST_HEADING.search(markdown)
    at = heading.end() if heading else 0
    note = versions_note() + (f"    {measured}\n" if measured else "")
    return f"{markdown[:at]}\n\n{out_of_search(note)}\n\n{markdown[at:]}"


@cache
def _matrix(path: str) -> dict:
    try:
        return read_document(Path(path), require_complete=True)
    except ResultsError as error:
        raise PluginError(f"version matrix results: {error}") from error


def on_config(config, **_):
    _matrix.cache_clear()
    _matrix(os.environ.get("MATRIX_RESULTS") or str(RESULTS_FILE))
    return config


def on_page_markdown(markdown: str, page, config, **_: object) -> str:
    doc = _matrix(os.environ.get("MATRIX_RESULTS") or str(RESULTS_FILE))
    src, name = page.file.src_uri, f"docs/{page.file.src_uri}"
    versions = posixpath.relpath(render.VERSIONS_PAGE, posixpath.dirname(src) or ".")
    blocks = None
    if name in doc["pages"]:
        options = snippets_config(Path(config["config_file_path"]))
        try:
            blocks = page_blocks(Path(config["docs_dir"]) / src, options)
        except HarnessError as error:
            raise PluginError(str(error)) from error
    return stamp(markdown, render.measured_range_sentence(doc, name, versions, blocks))
