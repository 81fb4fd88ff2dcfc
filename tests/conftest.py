"""Shared fixtures: every page run once in a reader's environment, and the built site;
each is made once per session, in the background, and shared by pytest-xdist's workers."""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from verification.harness.background import BackgroundJob, stop_all
from verification.harness.codeblocks import ROOT, documented_pages, relative_name
from verification.harness.fixtures import preloaded_python  # noqa: F401  (a fixture)
from verification.harness.processes import build_command, build_environment, run_page_in_subprocess
from verification.harness.reader_pages import results_file

MKDOCS_WARNING = re.compile(r"^WARNING\s+-\s")
PAGE_TIMEOUT_SECONDS = 900
SITE_BUILD_TIMEOUT_SECONDS = 900


SHARED_FOLDER_VARIABLE = "TF_RETRACING_TEST_SHARED"


def pytest_addoption(parser):
    parser.addoption(
        "--page",
        action="append",
        default=[],
        metavar="PATH",
        help="check only this page (docs/guide/causes.md, README.md): its blocks, shown "
        "output and labels run; other pages' parametrized tests are deselected",
    )


# Pages whose blocks start processes of their own that import TensorFlow: about as much CPU
# as a dozen other pages each, too much for make test's five minutes. Their tests (blocks
# and rendering) are marked scheduled, so they run in the Scheduled checks, in the pull
# request job that runs these pages (.github/workflows/checks.yml), and in make test-page
# when the page is chosen; tests/test_pages_on_schedule.py keeps the reasons true.
PAGES_ON_SCHEDULE = {
    "docs/guide/xla.md": "seven fresh interpreters, each importing TensorFlow with its own "
    "XLA flags (about 25 CPU-seconds)",
    "docs/guide/serving-on-ray.md": "a local Ray cluster and its Serve replicas, each replica "
    "importing TensorFlow (about 40 CPU-seconds)",
}


def _chosen_pages(config) -> list[Path]:
    """The pages given with --page (checked to exist), or every page of the site."""
    chosen = [(ROOT / name).resolve() for name in config.getoption("page")]
    known = documented_pages()
    unknown = [str(page) for page in chosen if page not in known]
    if unknown:
        raise pytest.UsageError(f"--page: not a page of the site: {', '.join(unknown)}")
    return chosen or known


# The shared folder this session made, on its config: a nested pytest run by a test
# inherits SHARED_FOLDER_VARIABLE, and must never stop or remove its parent's jobs.
OWN_SHARED_FOLDER = pytest.StashKey[Path]()


def pytest_configure(config):
    """The session's main process makes the folder its workers share (pytest-xdist starts
    them after this, with this environment); without xdist it is the only process. A
    wrong --page stops the run here, before any worker starts."""
    if not hasattr(config, "workerinput"):
        _chosen_pages(config)
        folder = Path(tempfile.mkdtemp(prefix="tf-retracing-tests-"))
        config.stash[OWN_SHARED_FOLDER] = folder
        os.environ[SHARED_FOLDER_VARIABLE] = str(folder)


def pytest_unconfigure(config):
    """Stop this session's background jobs and remove its folder; a worker, or a session
    stopped in pytest_configure, has none (a nested run refused for a wrong --page once
    removed its parent's, and the site was built again a minute later)."""
    shared = config.stash.get(OWN_SHARED_FOLDER, None)
    if shared is None:
        return
    os.environ.pop(SHARED_FOLDER_VARIABLE, None)
    stop_all(shared)
    shutil.rmtree(shared, ignore_errors=True)


def shared_folder(name: str) -> Path:
    return Path(os.environ[SHARED_FOLDER_VARIABLE]) / name


# The pages the selected tests read runs of, set once collection is done.
PAGES_TO_RUN = pytest.StashKey[list]()


class PageRuns:
    """The pages the selected tests are about (PAGES_TO_RUN: in make test, every page but
    PAGES_ON_SCHEDULE), run once each in a reader's environment (the locked third-party
    packages and the wheel, no repository folder: verification.harness.reader_pages), by
    one background job that the first worker to need it starts.

    A page outside the site (a test's temporary page) runs in a plain fresh interpreter.
    """

    def __init__(self, pages: list[Path], job: BackgroundJob):
        self._pages = pages
        self._job = job
        self._workdir = job.folder / "pages"

    @classmethod
    def shared(cls, pages: list[Path]) -> PageRuns:
        folder = shared_folder("reader-pages")
        command = [sys.executable, "-m", "verification.harness.reader_pages", str(folder / "pages")]
        # The page runs are read last (pytest_collection_modifyitems) and the site build
        # is waited for first: at a lower priority they leave it the cores and take what
        # the tests leave.
        job = BackgroundJob(folder, command + [str(p) for p in pages], ROOT, niceness=10)
        return cls(pages, job)

    def start(self) -> None:
        self._workdir.mkdir(parents=True, exist_ok=True)
        self._job.start()

    def _wait_for(self, path: Path) -> Path:
        self.start()
        return self._job.wait_for(path, PAGE_TIMEOUT_SECONDS)

    @property
    def pages(self) -> list[Path]:
        return list(self._pages)

    def results(self, page: Path) -> dict:
        if page not in self._pages:
            assert page not in documented_pages(), f"{page}: not among this session's page runs"
            return run_page_in_subprocess(page)
        out = self._wait_for(results_file(self._workdir, self._pages.index(page)))
        return json.loads(out.read_text(encoding="utf-8"))

    def reader_python(self) -> Path:
        """The reader environment's interpreter, once it is ready."""
        return Path(self._wait_for(self._workdir / "python.txt").read_text(encoding="utf-8"))

    def wheel(self) -> Path:
        """The wheel installed in the reader environment."""
        return Path(self._wait_for(self._workdir / "wheel.txt").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def page_runs(request):
    return PageRuns.shared(request.config.stash[PAGES_TO_RUN])


class SiteBuild:
    """The real site, built once with --strict in the background from the session's start,
    by the first worker to need it.

    ``TEST_SITE_DIR`` keeps it in that folder (relative to the repository) instead of a
    temporary one: the pull-request checks upload it as the preview, so that CI builds
    and link-checks the site once, inside the test suite.
    """

    def __init__(self):
        folder = shared_folder("site-build")
        kept = os.environ.get("TEST_SITE_DIR")
        self.site_dir = ROOT / kept if kept else folder / "site"
        command = build_command(ROOT / "mkdocs.yml", self.site_dir)
        self._job = BackgroundJob(folder, command, ROOT, build_environment())

    def start(self) -> None:
        self._job.start()

    def wait(self) -> Path:
        status = self._job.wait(timeout=SITE_BUILD_TIMEOUT_SECONDS)
        log = self._job.log.read_text(encoding="utf-8", errors="replace")
        assert status == 0, f"mkdocs build --strict failed:\n{log}"
        # MkDocs' own warnings; notebook kernels also write TensorFlow's C++ log lines here.
        warnings = [line for line in log.splitlines() if MKDOCS_WARNING.match(line)]
        assert not warnings, "\n".join(warnings)
        return self.site_dir


@pytest.fixture(scope="session")
def site_build() -> SiteBuild:
    return SiteBuild()


@pytest.fixture(scope="session")
def built_site(site_build) -> Path:
    """The real site, built once with --strict; the build must succeed without a warning."""
    return site_build.wait()


@pytest.fixture(scope="session", autouse=True)
def _start_slow_work_early(request):
    """Start the site build and the page runs as the session begins, when tests need them,
    so that they use the cores while the in-process tests run. (Lowering the workers'
    priority below theirs, tried, made the run slower: 280 s against 258 s.)"""
    needed = {name for item in request.session.items for name in item.fixturenames}
    if needed & {"built_site", "site_url"}:
        request.getfixturevalue("site_build").start()
    if "page_runs" in needed:
        request.getfixturevalue("page_runs").start()


def _pages_named(item, pages: set[str]) -> set[str]:
    """The ``pages`` (``docs/....md`` or ``README.md``) a test is parametrized by: those its
    id names."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return set()
    return {name for name in _PAGE_NAME.findall(callspec.id) if name in pages}


# A page's name in a test id: docs/....md or README.md, not part of a longer path.
_PAGE_NAME = re.compile(r"(?<![\w/.])((?:docs/[\w./-]+?|README)\.md)(?![\w/])")


def _about_another_page(item, pages: set[str], chosen: set[str]) -> bool:
    """A test parametrized by one of ``pages`` that is not one of the ``chosen`` pages."""
    about = _pages_named(item, pages)
    return bool(about) and not about & chosen


@pytest.hookimpl(tryfirst=True)  # before -m reads the scheduled marks added here
def pytest_collection_modifyitems(config, items):
    """With --page, drop the tests about other pages. The tests about a page on the schedule
    (PAGES_ON_SCHEDULE) are marked scheduled, unless --page chose it. Then run the tests
    that wait for background work (the site build, then the page runs) last, so that the
    in-process tests run while the pages execute and the site builds; the slow tests first
    within each group.

    The site's tests come before the page runs' because the site is built first: a browser
    test waits on the browser between its steps, and the page runs, still going, use what
    it leaves of the cores (the other order left about a tenth of them idle at the end)."""
    chosen = {relative_name(page) for page in _chosen_pages(config)}
    if config.getoption("page"):
        pages = {relative_name(page) for page in documented_pages()}
        dropped = [item for item in items if _about_another_page(item, pages, chosen)]
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]
    on_schedule = (
        set(PAGES_ON_SCHEDULE) - chosen if config.getoption("page") else set(PAGES_ON_SCHEDULE)
    )
    for item in items:
        if "page_runs" in item.fixturenames and _pages_named(item, on_schedule):
            item.add_marker(pytest.mark.scheduled)

    def waits_for(item) -> int:
        names = set(getattr(item, "fixturenames", ()))
        if "page_runs" in names:
            return 2
        return 1 if names & {"built_site", "site_url"} else 0

    def short(item) -> bool:
        return item.get_closest_marker("slow") is None

    # Within each group the slow tests (environments built, subprocesses run) go first and
    # the short ones fill the end, so that both workers finish together: last in line, the
    # reader-install tests once kept one worker busy for a minute and a half after the
    # other had finished. The sort is stable: file order is kept otherwise.
    items.sort(key=lambda item: (waits_for(item), short(item)))


def pytest_collection_finish(session):
    """The pages to run are those the selected tests are about (every page's blocks and
    rendering are tests about it); the tests that need only the reader environment then
    run no page of their own choosing.

    Then, with the tests collected (TensorFlow, Keras and every test module imported), what
    exists is moved out of the collector's reach: Python's automatic full collections, and
    the tests' gc.collect(), then walk only what the tests make. None of it is garbage:
    what was, is collected first."""
    names = {relative_name(page): page for page in _chosen_pages(session.config)}
    known = set(names)
    named = set().union(
        *(_pages_named(item, known) for item in session.items if "page_runs" in item.fixturenames)
    )
    session.config.stash[PAGES_TO_RUN] = [page for name, page in names.items() if name in named]
    gc.collect()
    gc.freeze()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """When the claims tests ran (as ``make test`` and CI run them), say how many cited
    results figures come from a stale run, so that the count is in every CI log;
    ``tests/test_claims.py`` fails on a stale figure the record does not accept."""
    reports = [r for reports in terminalreporter.stats.values() for r in reports]
    if not any(getattr(r, "nodeid", "").startswith("tests/test_claims.py") for r in reports):
        return
    from verification.claims.index import cited_figures, stale_summary

    terminalreporter.write_sep("-", "stale evidence")
    terminalreporter.write_line(stale_summary(cited_figures(ROOT / "docs")))
