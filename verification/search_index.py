"""What the site keeps out of Material's search index: text that is data, or that stands
on every page (the versions note, other releases' outputs, the matrix and corpus tables,
the page date). It would match every query and push down the page that answers it."""

from __future__ import annotations


def out_of_search(markdown: str, css_class: str | None = None) -> str:
    """``markdown`` in an element Material's search leaves out; md_in_html renders the
    Markdown inside it as usual."""
    attributes = f' class="{css_class}"' if css_class else ""
    return f"<div{attributes} data-search-exclude markdown>\n\n{markdown.strip()}\n\n</div>"
