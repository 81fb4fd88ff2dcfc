"""MkDocs hook: stamp each page that has executed examples with the versions they ran on.

The versions are read from the environment that builds the site, which is the same
locked environment the tests execute every block in, so they are never typed by hand.
"""

from __future__ import annotations

import platform
import re
from functools import cache
from importlib.metadata import version

_PYTHON_FENCE = re.compile(r"^\s*```python\b", re.MULTILINE)
_FIRST_HEADING = re.compile(r"^# .*$", re.MULTILINE)


@cache
def versions_note() -> str:
    return (
        '!!! info "Verified versions"\n'
        f"    Every example on this page was executed by the test suite with "
        f"TensorFlow {version('tensorflow')}, Keras {version('keras')} and "
        f"Python {platform.python_version()}; the output shown is the output it printed.\n"
    )


def stamp(markdown: str) -> str:
    """Insert the versions note after the page title when the page has Python blocks."""
    if not _PYTHON_FENCE.search(markdown):
        return markdown
    heading = _FIRST_HEADING.search(markdown)
    at = heading.end() if heading else 0
    return f"{markdown[:at]}\n\n{versions_note()}\n{markdown[at:]}"


def on_page_markdown(markdown: str, **_: object) -> str:
    return stamp(markdown)
