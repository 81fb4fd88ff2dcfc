"""MkDocs hook: the tally of verdicts on the page that checks articles' claims, counted at
build time from its table (``verification.article_tally``)."""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from verification.article_tally import TallyError, replace_marker


def on_page_markdown(markdown, page, **_):
    try:
        return replace_marker(markdown)
    except TallyError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from error
