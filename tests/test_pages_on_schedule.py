"""The pages left to the schedule (PAGES_ON_SCHEDULE in tests/conftest.py): each one does
start processes of its own, make test runs every other page and none of them, and the
scheduled run and make test-page run them."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import PAGES_ON_SCHEDULE
from verification.harness.codeblocks import ROOT, documented_pages, page_blocks, relative_name

# The tests that read a page's run: its blocks, its rendered blocks, its environment.
PAGE_RUN_TESTS = [
    "tests/test_docs_blocks.py",
    "tests/test_site_build.py::test_every_rendered_python_block_was_executed",
    "tests/test_fresh_install.py::test_every_page_ran_in_the_reader_environment",
]
STARTS_A_PROCESS = re.compile(r"ray\.init\(|subprocess\.run\(\s*\[sys\.executable")


def collected(*options: str) -> list[str]:
    """The ids of PAGE_RUN_TESTS that pytest selects with ``options`` (and this suite's
    conftest, without the project's addopts so that the marks chosen are the ones given),
    each after the run that gets it: ``scheduled`` or ``make-test``. One collection costs a
    few seconds (every page is read), so each test makes one."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts="]
    command += ["-p", "verification.harness.scheduled_marks"]
    done = subprocess.run(
        [*command, *options, *PAGE_RUN_TESTS],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [
        line for line in done.stdout.splitlines() if line.startswith(("scheduled ", "make-test "))
    ]


def pages_of(runs: list[str], run: str) -> set[str]:
    """The pages the tests ``run`` gets are about: ``test[docs/page.md]`` or
    ``test[docs/page.md::3]``."""
    ids = [line.split(" ", 1)[1] for line in runs if line.startswith(f"{run} ")]
    return {re.fullmatch(r"[^\[]+\[(.+?)(?:::\d+)?\]", test)[1] for test in ids}


def test_each_page_on_the_schedule_starts_processes_of_its_own():
    for name, reason in PAGES_ON_SCHEDULE.items():
        code = "\n".join(block.code for block in page_blocks(ROOT / name))
        assert STARTS_A_PROCESS.search(code), f"{name} starts no process: {reason}?"


def test_make_test_runs_every_page_but_those_on_the_schedule_which_the_scheduled_run_runs():
    every_page = {relative_name(page) for page in documented_pages()}
    runs = collected()
    assert pages_of(runs, "make-test") == every_page - set(PAGES_ON_SCHEDULE)
    assert pages_of(runs, "scheduled") == set(PAGES_ON_SCHEDULE)


def test_make_test_page_runs_a_page_on_the_schedule():
    chosen = collected(*(f"--page={name}" for name in PAGES_ON_SCHEDULE))
    assert pages_of(chosen, "make-test") == set(PAGES_ON_SCHEDULE)
    assert not pages_of(chosen, "scheduled")
    blocks = [run for run in chosen if run.startswith("make-test tests/test_docs_blocks.py")]
    assert len(blocks) == sum(len(page_blocks(ROOT / name)) for name in PAGES_ON_SCHEDULE)
