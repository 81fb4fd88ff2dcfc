"""MkDocs hook: the site's search runs Material's worker followed by the project's query
changes (stemming, pasted data dropped, lone-word entries weighed down), the pages
generated from results files are left out of search, and each message of the symptom index
is searchable in the section that answers it; the logic lives in
``verification.search_machinery`` and ``verification/search_worker.js``."""

from __future__ import annotations

import json
from pathlib import Path

from verification import symptoms
from verification.search_machinery import (
    WORKERS,
    add_symptoms,
    material_worker,
    point_config_at,
    search_meta,
    worker_name,
    worker_text,
)

_TEXT = worker_text(material_worker().name)
_NAME = worker_name(_TEXT)
_URLS: dict[str, str] = {}  # docs-relative page -> its URL, as the search index writes it


def on_files(files, **_):
    _URLS.clear()
    _URLS.update({file.src_uri: file.url for file in files.documentation_pages()})
    return files


def on_page_markdown(markdown, page, **_):
    settings = search_meta(page.file.src_uri)
    if settings is not None and "search" not in page.meta:
        page.meta["search"] = settings
    return markdown


def on_post_page(output, page, config, **_):
    return point_config_at(output, _NAME)


def on_post_build(config, **_):
    target = Path(config["site_dir"]) / WORKERS / _NAME
    target.write_text(_TEXT, encoding="utf-8")
    # Runs after Material's search plugin has written its index (hooks follow plugins).
    path = Path(config["site_dir"]) / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    add_symptoms(index, symptoms.load(), _URLS.__getitem__)
    path.write_text(json.dumps(index, separators=(",", ":")), encoding="utf-8")
