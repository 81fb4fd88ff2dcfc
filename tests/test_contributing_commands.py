"""The pull request template and the contributing pages ask for the same commands."""

from __future__ import annotations

import re

import pytest

from tests.harness.codeblocks import ROOT

COMMAND = re.compile(r"`((?:make [a-z-]+)|(?:\.venv/bin/python -m [\w.]+[^`]*))`")
TEMPLATE = ROOT / ".github" / "pull_request_template.md"


def commands(text: str) -> set[str]:
    found = set(COMMAND.findall(text))
    found |= set(re.findall(r"^(make [a-z-]+)", text, re.MULTILINE))
    return found


def test_the_template_asks_for_commands():
    assert {"make test", "make lint"} <= commands(TEMPLATE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", ["CONTRIBUTING.md", "docs/contributing.md"])
def test_each_command_of_the_template_is_on_the_contributing_page(page):
    template = commands(TEMPLATE.read_text(encoding="utf-8"))
    text = (ROOT / page).read_text(encoding="utf-8")
    missing = template - commands(text)
    assert not missing, f"{page} does not give {sorted(missing)} as the PR template does"
