"""Shared fixtures: every page run once in its own interpreter, and the built site."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.harness.codeblocks import ROOT, documented_pages
from tests.harness.processes import run_page_in_subprocess, start_site_build

MKDOCS_WARNING = re.compile(r"^WARNING\s+-\s")
PAGE_TIMEOUT_SECONDS = 900


class PageRuns:
    """Every page of the site, run once each by one page server started at first use.

    A page outside the site (a test's temporary page) runs in a plain fresh interpreter.
    """

    def __init__(self, pages: list[Path], workdir: Path):
        self._pages = pages
        self._workdir = workdir
        self._outputs: dict[Path, Path] = {}
        self._server: subprocess.Popen | None = None

    def start(self) -> None:
        if self._server is not None:
            return
        jobs = []
        for index, page in enumerate(self._pages):
            self._outputs[page] = self._workdir / f"page-{index}.json"
            jobs.append({"page": str(page), "out": str(self._outputs[page])})
        job_file = self._workdir / "jobs.json"
        job_file.write_text(json.dumps(jobs), encoding="utf-8")
        self._server = subprocess.Popen(
            [sys.executable, "-m", "tests.harness.page_server", str(job_file)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def results(self, page: Path) -> dict:
        if page not in self._pages:
            return run_page_in_subprocess(page)
        self.start()
        out = self._outputs[page]
        deadline = time.monotonic() + PAGE_TIMEOUT_SECONDS
        while not out.exists():
            if self._server.poll() is not None and not out.exists():
                raise RuntimeError(f"the page server exited ({self._server.returncode})")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{page} did not finish in {PAGE_TIMEOUT_SECONDS} s")
            time.sleep(0.1)
        return json.loads(out.read_text(encoding="utf-8"))

    def close(self) -> None:
        if self._server is not None and self._server.poll() is None:
            self._server.kill()


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
