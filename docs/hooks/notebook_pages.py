"""MkDocs hook: tidy the HTML mkdocs-jupyter makes of a notebook.

mkdocs-jupyter removes tagged outputs before it executes the notebook, so the outputs of
a cell tagged ``hide-output`` (TensorFlow's start-up log) come back. This hook removes
them after the fact, drops the cell-tag chips, keeps the copy buttons' text out of the
search index, and gives each figure the alt text its cell declares in its metadata
(``"alt": "..."``). The logic is a plain function, ``tidy``, tested on its own.
"""

from __future__ import annotations

import json
from pathlib import Path

from bs4 import BeautifulSoup

HIDE_OUTPUT_TAG = "hide-output"
PLACEHOLDER_ALT = "No description has been provided for this image"


def cell_alt_texts(notebook: dict) -> dict[str, str]:
    """Cell id -> the alt text its metadata gives for the figures it draws."""
    return {
        cell["id"]: cell["metadata"]["alt"]
        for cell in notebook.get("cells", [])
        if "id" in cell and isinstance(cell.get("metadata", {}).get("alt"), str)
    }


def tidy(html: str, alt_texts: dict[str, str] | None = None) -> str:
    soup = BeautifulSoup(html, "html.parser")
    for cell in soup.select(f".celltag_{HIDE_OUTPUT_TAG}"):
        for output in cell.select(".jp-Cell-outputWrapper"):
            output.decompose()
    for chips in soup.select(".celltoolbar"):
        chips.decompose()
    for copy in soup.select(".zeroclipboard-container, .clipboard-copy-txt"):
        copy["data-search-exclude"] = ""
    for cell in soup.select(".jp-Cell[id]"):
        cell_id = cell["id"].removeprefix("cell-id=")
        alt = (alt_texts or {}).get(cell_id)
        for image in cell.select(".jp-OutputArea img"):
            if alt:
                image["alt"] = alt
            elif image.get("alt") == PLACEHOLDER_ALT:
                raise ValueError(
                    f"notebook cell {cell_id} draws a figure without alt text: give the "
                    'cell an "alt" entry in its metadata'
                )
    return str(soup)


def on_page_content(html: str, page, **_: object) -> str:
    source = page.file.abs_src_path
    if not source or not source.endswith(".ipynb"):
        return html
    notebook = json.loads(Path(source).read_text(encoding="utf-8"))
    return tidy(html, cell_alt_texts(notebook))
