"""MkDocs hook: the tables made from the package's registries, where a page has their
marker: the explainer's causes (``verification.cause_table``) and the linter's rules
(``verification.rule_table``)."""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from verification.cause_table import CauseTableError, with_cause_table
from verification.rule_table import RuleTableError, with_rule_table


def on_page_markdown(markdown, page, files, **_):
    documents = files.documentation_pages()
    pages = {file.url: file.src_uri for file in documents}
    try:
        markdown = with_cause_table(markdown, page.file.src_uri, pages)
        return with_rule_table(markdown, page.file.src_uri, set(pages.values()))
    except (CauseTableError, RuleTableError) as error:
        raise PluginError(str(error)) from error
