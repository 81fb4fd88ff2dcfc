"""A reader's fresh environment: the locked third-party packages, the wheel the site
publishes, and no repository folder on the path. Every page's blocks run there (the
`page_runs` fixture, checked block by block in tests/test_docs_blocks.py); these tests
check that "there" is what it claims to be."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from verification.harness.codeblocks import ROOT, documented_pages, relative_name


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_pages_ran_with_the_wheel_the_site_publishes(page_runs, built_site):
    (published,) = sorted((built_site / "downloads").glob("tf_retracing-*.whl"))
    installed = page_runs.wheel()
    assert installed.name == published.name
    assert _sha256(installed) == _sha256(published)


@pytest.mark.parametrize("page", documented_pages(), ids=relative_name)
def test_every_page_ran_in_the_reader_environment(page, page_runs):
    run = page_runs.results(page)
    assert run["error"] or run["environment"] == str(page_runs.reader_python().parent.parent)


def test_the_reader_environment_cannot_see_the_repository(page_runs, tmp_path):
    probe = (
        "import importlib.util, tf_retracing; "
        "print(tf_retracing.__file__); "
        "print([m for m in ('snippets', 'benchmarks', 'tests') if importlib.util.find_spec(m)])"
    )
    out = subprocess.run(
        [str(page_runs.reader_python()), "-I", "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    location, visible = out.stdout.splitlines()[-2:]
    assert "site-packages" in location and str(ROOT) not in location
    assert visible == "[]"
