"""MkDocs hook: the version matrix, rendered at build time from verification/matrix/results.json.

The file is loaded and checked in ``on_config``, before MkDocs writes anything, and a bad
or partial file fails the build naming the file and the field. ``MATRIX_RESULTS`` names
another file (the scheduled workflow builds with the file it has just produced). The logic
lives in ``verification.matrix.render``; this file only wires it to MkDocs events.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from mkdocs.exceptions import PluginError

from verification.harness.codeblocks import HarnessError, page_blocks, snippets_config
from verification.matrix import render
from verification.matrix.entries import declared_tensorflow
from verification.matrix.schema import RESULTS_FILE, ResultsError, read_document
from verification.search_index import out_of_search

_loaded: dict[str, object] = {}


def results_path() -> Path:
    return Path(os.environ["MATRIX_RESULTS"]) if os.environ.get("MATRIX_RESULTS") else RESULTS_FILE


def load() -> dict:
    """The checked results document, loaded once per build."""
    if "doc" not in _loaded:
        try:
            _loaded["doc"] = read_document(results_path(), require_complete=True)
        except ResultsError as error:
            raise PluginError(f"version matrix results: {error}") from error
    return _loaded["doc"]  # type: ignore[return-value]


def on_config(config, **_):
    _loaded.clear()
    load()
    return config


def on_page_markdown(markdown, page, config, **_):
    doc = load()
    src = page.file.src_uri
    page_dir = posixpath.dirname(src)

    def link(target: str) -> str:
        return posixpath.relpath(target, page_dir or ".")

    def page_link(name: str) -> str | None:
        return link(name.removeprefix("docs/")) if name.startswith("docs/") else None

    name = f"docs/{src}"
    try:
        blocks = (
            _blocks(Path(config["docs_dir"]) / src, name, config) if name in doc["pages"] else None
        )
        markdown = render.replace_markers(
            _out_of_search(markdown),
            src,
            doc,
            declared_tensorflow(),
            page_link,
            blocks,
            _fresh(doc, config) if _lists_results(markdown) else None,
        )
        if blocks is not None:
            markdown = render.add_block_notes(
                markdown, name, blocks, doc, reference(), link(render.VERSIONS_PAGE)
            )
    except (render.MarkerError, HarnessError) as error:
        raise PluginError(str(error)) from error
    return markdown


def _blocks(path: Path, name: str, config) -> list:
    """The page's Python blocks, with includes resolved as this build resolves them."""
    return page_blocks(path, snippets_config(Path(config["config_file_path"])))


def _lists_results(markdown: str) -> bool:
    """The Versions page's table and the entry pages count each page's results."""
    return any(m.group("name") in ("table", "entry") for m in render.MARKER.finditer(markdown))


def _fresh(doc: dict, config) -> dict:
    """Per page the matrix ran, whether each of its blocks as they are now is the block it
    ran; read once per build."""
    if "fresh" not in _loaded:
        docs_dir = Path(config["docs_dir"])
        paths = {name: docs_dir / name.removeprefix("docs/") for name in doc["pages"]}
        _loaded["fresh"] = {
            name: render.current(doc, name, _blocks(path, name, config))
            for name, path in paths.items()
            if doc["pages"][name] and path.is_file()
        }
    return _loaded["fresh"]  # type: ignore[return-value]


def reference() -> str:
    from importlib.metadata import version

    return f"TensorFlow {version('tensorflow')} with Keras {version('keras')}"


def _out_of_search(markdown: str) -> str:
    """The matrix's data tables wrapped so that Material's search leaves them out."""

    def wrap(match) -> str:
        marker = match.group()
        return out_of_search(marker) if match.group("name") in render.UNSEARCHED_MARKERS else marker

    return render.MARKER.sub(wrap, markdown)
