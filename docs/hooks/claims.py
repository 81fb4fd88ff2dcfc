"""MkDocs hook: claim markers (``[[proof: ...]]``) become superscript links to their
evidence, each page with claims gets the list of them, and every line of a shown output
gets the id those links point at. A marker whose evidence cannot be found fails the build.
The logic lives in ``verification.claims``; the index page's table comes from there too.
The results pages those links land on come from ``benchmarks.results_pages``."""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, InclusionLevel

from benchmarks.results_pages import results_pages
from verification.claims.evidence import forget_results
from verification.claims.index import replace_index_marker
from verification.claims.markers import ClaimError
from verification.claims.render import anchor_output_lines, render_markers
from verification.matrix.schema import RESULTS_FILE, ResultsError, read_document

_matrix: dict[str, dict | None] = {}


def _matrix_document() -> dict | None:
    if "doc" not in _matrix:
        try:
            # The file the Versions page is built from (the scheduled workflow names its own).
            path = Path(os.environ.get("MATRIX_RESULTS") or RESULTS_FILE)
            _matrix["doc"] = read_document(path, require_complete=True)
        except ResultsError as error:
            raise PluginError(f"version matrix results: {error}") from error
    return _matrix["doc"]


def on_config(config, **_):
    forget_results()  # a rebuild of ``mkdocs serve`` reads the results and code again
    return config


def on_files(files, config, **_):
    """A page per scenario of each results file, with an anchor on every figure: what a
    claim citing a results figure links to. Out of the navigation (the Benchmarks index
    links to them); generated, so they are never out of date."""
    root = Path(config.config_file_path).resolve().parent
    for path, markdown in results_pages(root, config["repo_url"]).items():
        files.append(
            File.generated(config, path, content=markdown, inclusion=InclusionLevel.NOT_IN_NAV)
        )
    return files


def on_page_markdown(markdown, page, config, **_):
    docs_dir = Path(config["docs_dir"])
    try:
        markdown = replace_index_marker(markdown, docs_dir, page.file.src_uri)
        return render_markers(
            markdown, page.file.src_uri, docs_dir, config["repo_url"], _matrix_document()
        )
    except ClaimError as error:
        raise PluginError(str(error)) from error


def on_page_content(html, page, config, **_):
    path = Path(config["docs_dir"]) / page.file.src_uri
    if not page.file.src_uri.endswith(".md") or not path.is_file():
        return html
    try:
        html, ids = anchor_output_lines(html, path, page.file.src_uri)
    except ClaimError as error:
        raise PluginError(str(error)) from error
    # MkDocs checks links against the ids it found while converting the Markdown; these
    # are added after, so they are declared to it here.
    if page.present_anchor_ids is not None:
        page.present_anchor_ids.update(ids)
    return html
