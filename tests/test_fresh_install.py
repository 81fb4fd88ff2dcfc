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


def test_a_page_that_names_environment_variables_runs_in_a_fresh_interpreter_with_them(tmp_path):
    # A page forks from a process that has loaded TensorFlow, except one whose reader must
    # set a variable before Python starts: that page runs in a fresh interpreter with it.
    import json
    import shutil
    import sys

    from verification.harness import standalone_runner

    block = (
        "import os, sys\n"
        "print(os.environ.get('RETRACING_PAGE_PROBE'), 'tensorflow' in sys.modules)\n"
    )
    jobs = [
        {
            "name": name,
            "out": str(tmp_path / f"{name}.json"),
            "environment": environment,
            "blocks": [{"code": block, "filename": f"{name} [block 1]", "not_run": None}],
        }
        for name, environment in (("plain", {}), ("named", {"RETRACING_PAGE_PROBE": "set"}))
    ]
    (tmp_path / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    runner = shutil.copy(standalone_runner.__file__, tmp_path / "standalone_runner.py")
    done = subprocess.run(
        [sys.executable, "-I", str(runner), "jobs.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = {
        job["name"]: json.loads(Path(job["out"]).read_text(encoding="utf-8"))["blocks"][0]
        for job in jobs
    }
    assert printed["plain"]["output"] == "None True\n", printed["plain"]
    assert printed["named"]["output"] == "set False\n", printed["named"]


def test_a_malformed_reader_environment_names_the_page(tmp_path):
    from verification.harness.codeblocks import HarnessError, page_environment

    page = tmp_path / "page.md"
    page.write_text("<!-- reader-environment: A=1 B=two -->\n", encoding="utf-8")
    assert page_environment(page) == {"A": "1", "B": "two"}
    page.write_text("<!-- reader-environment: A=1 oops -->\n", encoding="utf-8")
    with pytest.raises(
        HarnessError, match=r"page.md: reader-environment wants NAME=VALUE, got \['oops'\]"
    ):
        page_environment(page)
