"""MkDocs hook: the table of causes from the package's registry, where a page has the
marker (the logic lives in ``verification.cause_table``)."""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from verification.cause_table import CauseTableError, with_cause_table


def on_page_markdown(markdown, page, files, **_):
    pages = {file.url: file.src_uri for file in files.documentation_pages()}
    try:
        return with_cause_table(markdown, page.file.src_uri, pages)
    except CauseTableError as error:
        raise PluginError(str(error)) from error
