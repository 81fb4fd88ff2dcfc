"""MkDocs hook: the symptom index (verification/symptoms/messages.toml) rendered into
docs/guide/messages.md where the page holds its marker, with the census that checks it
against TensorFlow's source; the logic lives in ``verification.symptoms``."""

from __future__ import annotations

from pathlib import Path

from verification.symptoms import MARKER, PAGE, census, load, render


def on_page_markdown(markdown, page, config, **_):
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE} lost its marker {MARKER!r}")
    messages = load()
    count = f"{len(messages)} messages"
    body = render(messages, Path(config["docs_dir"]))
    if census.MARKER not in markdown:
        raise ValueError(f"{PAGE} lost its marker {census.MARKER!r}")
    checked = census.render(census.take(messages, census.load_set_aside()), _versions())
    return (
        markdown.replace(MARKER, body)
        .replace("<!-- symptom count -->", count)
        .replace(census.MARKER, checked)
    )


def _versions() -> dict[str, str]:
    import importlib.metadata

    packages = dict.fromkeys(census.SOURCES.values())
    return {package: importlib.metadata.version(package) for package in packages}
