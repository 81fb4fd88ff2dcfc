"""Shared fixtures: the pages run once each, in parallel subprocesses, and the built site."""

from __future__ import annotations

import os
import re
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.harness.codeblocks import ROOT
from tests.harness.processes import build_site, run_page_in_subprocess

MKDOCS_WARNING = re.compile(r"^WARNING\s+-\s")


class PageRuns:
    """Starts every page at first use, so that pages run concurrently on all cores."""

    def __init__(self, pages: list[Path]):
        self._pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
        self._pages = pages
        self._futures: dict[Path, Future] = {}

    def results(self, page: Path) -> dict:
        if not self._futures:
            for each in self._pages:
                self._futures[each] = self._pool.submit(run_page_in_subprocess, each)
        if page not in self._futures:
            self._futures[page] = self._pool.submit(run_page_in_subprocess, page)
        return self._futures[page].result()

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="session")
def page_runs(request):
    from tests.harness.codeblocks import documented_pages

    runs = PageRuns(documented_pages())
    request.addfinalizer(runs.close)
    return runs


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built once with --strict; the build must succeed without a warning."""
    site_dir = tmp_path_factory.mktemp("site")
    proc = build_site(ROOT / "mkdocs.yml", site_dir)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr}"
    # MkDocs' own warnings; notebook kernels also write TensorFlow's C++ log lines here.
    warnings = [line for line in proc.stderr.splitlines() if MKDOCS_WARNING.match(line)]
    assert not warnings, "\n".join(warnings)
    return site_dir
