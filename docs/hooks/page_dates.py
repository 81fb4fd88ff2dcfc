"""MkDocs hook: the date each page last changed, from git, under the page (the logic and
its limits live in ``verification.page_dates``)."""

from __future__ import annotations

from pathlib import Path

from verification.page_dates import date_note, last_changed


def on_page_markdown(markdown, page, config, **_):
    docs = Path(config["docs_dir"])
    path = docs / page.file.src_uri
    date = last_changed(path, docs.parent)
    if date is None:
        return markdown
    source = path.relative_to(docs.parent).as_posix()
    history = f"{config['repo_url'].rstrip('/')}/commits/main/{source}"
    return markdown.rstrip("\n") + date_note(date, history)
