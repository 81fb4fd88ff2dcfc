"""MkDocs hook: the linter's recall, precision and speed, rendered at build time from
verification/lint_corpus/results.json (written by ``python -m verification.lint_corpus
run``) where a page has ``<!-- lint-corpus -->``. A missing or malformed file fails the
build, naming the file and the field; the logic lives in
``verification.lint_corpus.render``."""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from verification.lint_corpus import render
from verification.lint_corpus.results import ResultsError, read_results


def on_page_markdown(markdown, page, config, **_):
    if render.MARKER not in markdown:
        return markdown
    try:
        data = read_results()
    except ResultsError as error:
        raise PluginError(f"linter corpus results: {error}") from error
    repository = config["repo_url"].rstrip("/")

    def source_link(path: str) -> str:
        return f"{repository}/blob/main/{path}"

    return render.replace_marker(markdown, data, source_link)
