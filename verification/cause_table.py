"""The guide's table of causes, rendered at build time from the package's own registry
(``tf_retracing.explainer_types.CAUSES``): a new cause is its registry entry and the
comparison that recognises it, and the table follows. The hook is
``docs/hooks/registry_tables.py``."""

from __future__ import annotations

import posixpath
import re

from tf_retracing.explainer_types import CAUSES, CAUSES_PAGE

MARKER = "<!-- cause-table -->"
_MARKER_LINE = re.compile(rf"^{re.escape(MARKER)}$", re.MULTILINE)  # a line of its own


class CauseTableError(Exception):
    """The table's marker is on a page that cannot link to the causes' sections."""


def cause_table(sections: str = "") -> str:
    """The table in Markdown: each identifier links to its section (``sections`` is the
    link to the page that holds them, "" for the same page); ``unknown`` comes last."""
    rows = ["| identifier | kind | what changed | the usual fix |", "|---|---|---|---|"]
    for cause in sorted(CAUSES, key=lambda cause: cause.kind == "unknown"):
        cells = (cause.changed, cause.fix)
        if any("|" in cell or "\n" in cell for cell in cells):
            raise CauseTableError(f"{cause.code}: a table cell cannot hold '|' or a line break")
        link = f"[{cause.code}]({sections}#{cause.code.lower()})"
        rows.append(f"| {link} | `{cause.kind}` | {cause.changed} | {cause.fix} |")
    return "\n".join(rows)


def with_cause_table(markdown: str, page: str, pages: dict[str, str]) -> str:
    """``markdown`` of the page at source path ``page`` with the marker (a line of its
    own) replaced by the table; ``pages`` maps each page's URL to its source path, to
    find the page of ``CAUSES_PAGE``."""
    if not _MARKER_LINE.search(markdown):
        return markdown
    target = pages.get(CAUSES_PAGE)
    if target is None:
        raise CauseTableError(f"{page}: the causes' page {CAUSES_PAGE!r} is not in the site")
    sections = "" if target == page else posixpath.relpath(target, posixpath.dirname(page))
    return _MARKER_LINE.sub(lambda _: cause_table(sections), markdown)
