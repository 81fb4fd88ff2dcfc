"""Shared fixtures: every page run once in a reader's environment, and the built site."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.harness.codeblocks import ROOT, documented_pages
from tests.harness.processes import run_page_in_subprocess, start_site_build
from tests.harness.reader_pages import results_file

MKDOCS_WARNING = re.compile(r"^WARNING\s+-\s")
PAGE_TIMEOUT_SECONDS = 900


class PageRuns:
    """Every page of the site, run once each in a reader's environment (the locked
    third-party packages and the wheel, no repository folder: tests.harness.reader_pages),
    by one background process started at first use.

    A page outside the site (a test's temporary page) runs in a plain fresh interpreter.
    """

    def __init__(self, pages: list[Path], workdir: Path):
        self._pages = pages
        self._workdir = workdir
        self._log = workdir / "reader-pages.log"
        self._process: subprocess.Popen | None = None

    def start(self) -> None:
        if self._process is not None:
            return
        with self._log.open("w", encoding="utf-8") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "tests.harness.reader_pages", str(self._workdir)]
                + [str(page) for page in self._pages],
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # close() stops the runner and its pages too
            )

    def _wait_for(self, path: Path) -> Path:
        self.start()
        deadline = time.monotonic() + PAGE_TIMEOUT_SECONDS
        while not path.exists():
            if self._process.poll() is not None and not path.exists():
                log = self._log.read_text(encoding="utf-8")[-4000:]
                status = self._process.returncode
                raise RuntimeError(f"running the pages stopped ({status}):\n{log}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{path.name} was not written in {PAGE_TIMEOUT_SECONDS} s")
            time.sleep(0.1)
        return path

    def results(self, page: Path) -> dict:
        if page not in self._pages:
            return run_page_in_subprocess(page)
        out = self._wait_for(results_file(self._workdir, self._pages.index(page)))
        return json.loads(out.read_text(encoding="utf-8"))

    def reader_python(self) -> Path:
        """The reader environment's interpreter, once it is ready."""
        return Path(self._wait_for(self._workdir / "python.txt").read_text(encoding="utf-8"))

    def wheel(self) -> Path:
        """The wheel installed in the reader environment."""
        return Path(self._wait_for(self._workdir / "wheel.txt").read_text(encoding="utf-8"))

    def close(self) -> None:
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def page_runs(request, tmp_path_factory):
    runs = PageRuns(documented_pages(), tmp_path_factory.mktemp("pages"))
    request.addfinalizer(runs.close)
    return runs


class SiteBuild:
    """The real site, built once with --strict in the background from the session's start.

    ``TEST_SITE_DIR`` keeps it in that folder (relative to the repository) instead of a
    temporary one: the pull-request checks upload it as the preview, so that CI builds
    and link-checks the site once, inside the test suite.
    """

    def __init__(self, workdir: Path):
        kept = os.environ.get("TEST_SITE_DIR")
        self.site_dir = ROOT / kept if kept else workdir / "site"
        self._log = workdir / "build.log"
        self._proc: subprocess.Popen | None = None

    def start(self) -> None:
        if self._proc is None:
            self._proc = start_site_build(ROOT / "mkdocs.yml", self.site_dir, self._log)

    def wait(self) -> Path:
        self.start()
        self._proc.wait(timeout=900)
        stderr = self._log.read_text(encoding="utf-8")
        assert self._proc.returncode == 0, f"mkdocs build --strict failed:\n{stderr}"
        # MkDocs' own warnings; notebook kernels also write TensorFlow's C++ log lines here.
        warnings = [line for line in stderr.splitlines() if MKDOCS_WARNING.match(line)]
        assert not warnings, "\n".join(warnings)
        return self.site_dir


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> SiteBuild:
    return SiteBuild(tmp_path_factory.mktemp("site-build"))


@pytest.fixture(scope="session")
def built_site(site_build) -> Path:
    """The real site, built once with --strict; the build must succeed without a warning."""
    return site_build.wait()


@pytest.fixture(scope="session", autouse=True)
def _start_slow_work_early(request):
    """Start the page runs and the site build as the session begins, when tests need them,
    so that they use the cores while the in-process tests run."""
    needed = {name for item in request.session.items for name in item.fixturenames}
    if "page_runs" in needed:
        request.getfixturevalue("page_runs").start()
    if needed & {"built_site", "site_url"}:
        request.getfixturevalue("site_build").start()


def pytest_collection_modifyitems(items):
    """Run the tests that wait for background work (page runs, the site build) last, so
    that the in-process tests run while the pages execute and the site builds."""

    def waits_for(item) -> int:
        names = set(getattr(item, "fixturenames", ()))
        if names & {"built_site", "site_url"}:
            return 2
        return 1 if "page_runs" in names else 0

    items.sort(key=waits_for)  # stable: file order is kept within each group
