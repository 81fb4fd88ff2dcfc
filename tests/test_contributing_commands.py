"""The pull request template and the contributing pages ask for the same commands."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED_FOLDER_VARIABLE
from verification.harness.codeblocks import ROOT, page_blocks
from verification.harness.processes import nested_pytest_environment

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


def test_page_option_keeps_only_the_tests_about_that_page():
    """``make test-page`` rests on ``--page``: the page-parametrized tests of other pages
    are deselected, and every block of the chosen page stays."""
    page = ROOT / "docs" / "guide" / "causes.md"
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "--collect-only", "-q",
         "--page", "docs/guide/causes.md", "tests/test_docs_blocks.py"],
        cwd=ROOT, capture_output=True, text=True, check=True, env=nested_pytest_environment(),
    ).stdout.splitlines()  # fmt: skip
    ids = [line for line in listed if "::test_block[" in line]
    assert len(ids) == len(page_blocks(page))
    assert all("[docs/guide/causes.md::" in line for line in ids), ids


def test_page_option_refuses_what_is_not_a_page():
    """Refused, the nested run leaves this session's shared folder and jobs alone (it
    inherits the variable that names them)."""
    shared = Path(os.environ[SHARED_FOLDER_VARIABLE])
    refused = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "--collect-only", "-q",
         "--page", "docs/nowhere.md", "tests/test_docs_blocks.py"],
        cwd=ROOT, capture_output=True, text=True, env=nested_pytest_environment(),
    )  # fmt: skip
    assert refused.returncode == 4, refused.stderr
    assert "--page: not a page of the site:" in refused.stderr
    assert "nowhere.md" in refused.stderr
    assert shared.is_dir(), "the refused run removed this session's shared folder"
