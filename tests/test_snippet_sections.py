"""Every named section in snippets/ is included by a page: no section is kept for nothing.

A page includes a section with ``--8<-- "file.py:name"``; the build and the tests fail on
an include whose section is missing, and this test fails on a section nothing includes
(its markers would only clutter the module readers copy from).
"""

from __future__ import annotations

import re

from verification.harness.codeblocks import ROOT

SECTION = re.compile(r"^\s*# --8<-- \[start:([\w-]+)\]\s*$", re.M)
INCLUDE = re.compile(r'--8<-- "([^":]+):([\w-]+)"')


def sections() -> set[tuple[str, str]]:
    found = set()
    for path in (ROOT / "snippets").rglob("*.py"):
        name = path.relative_to(ROOT / "snippets").as_posix()
        found |= {(name, section) for section in SECTION.findall(path.read_text("utf-8"))}
    return found


def includes() -> set[tuple[str, str]]:
    found = set()
    for path in [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.ipynb")]:
        found |= set(INCLUDE.findall(path.read_text("utf-8")))
    return found


def test_the_scan_finds_the_sections_and_the_includes():
    assert ("weight_swap_cache.py", "swap") in sections()
    assert ("weight_swap_cache.py", "swap") in includes()


def test_every_section_is_included_by_a_page():
    assert sections() - includes() == set()
