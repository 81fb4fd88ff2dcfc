"""MkDocs hook: the site's search runs Material's worker followed by the project's query
changes (stemming, pasted data dropped, lone-word entries weighed down), and the pages
generated from results files are left out of search; the logic lives in
``verification.search_machinery`` and ``verification/search_worker.js``."""

from __future__ import annotations

from pathlib import Path

from verification.search_machinery import (
    WORKERS,
    material_worker,
    point_config_at,
    search_meta,
    worker_name,
    worker_text,
)

_TEXT = worker_text(material_worker().name)
_NAME = worker_name(_TEXT)


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
