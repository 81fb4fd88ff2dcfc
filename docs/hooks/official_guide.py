"""MkDocs hook: the verdict counts on the index of the pages that check TensorFlow's own
documentation, counted at build time from those pages' tables (``verification.official_guide``)."""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from verification.official_guide import VerdictError, replace_marker


def on_page_markdown(markdown, page, config, **_):
    folder = Path(config["docs_dir"]) / Path(page.file.src_uri).parent
    try:
        return replace_marker(markdown, folder)
    except VerdictError as error:
        raise PluginError(str(error)) from error
