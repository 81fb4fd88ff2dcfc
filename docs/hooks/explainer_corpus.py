"""MkDocs hook: the explainer's scores on its corpus of real reports, rendered at build time
from verification/explainer_corpus/results.json (written by ``python -m
verification.explainer_corpus run``) where a page has ``<!-- explainer-corpus -->``. A
missing or malformed file fails the build, naming the file and the field; the logic lives in
``verification.explainer_corpus.render``."""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from verification.explainer_corpus import render
from verification.explainer_corpus.results import ResultsError, read_results


def on_page_markdown(markdown, page, config, **_):
    if render.MARKER not in markdown:
        return markdown
    try:
        data = read_results()
    except ResultsError as error:
        raise PluginError(f"explainer corpus results: {error}") from error
    repository = config["repo_url"].rstrip("/")

    def source_link(path: str) -> str:
        return f"{repository}/blob/main/{path}"

    return render.replace_marker(markdown, data, source_link)
