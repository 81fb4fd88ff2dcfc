"""Subprocesses the tests start: one interpreter per page, and mkdocs builds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from verification.harness.codeblocks import ROOT

EXECUTE_NOTEBOOKS = "execute: true"  # mkdocs-jupyter's setting, as mkdocs.yml writes it


def run_page_in_subprocess(page: Path) -> dict:
    """Run one page's blocks in a fresh interpreter and return its JSON results."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.json"
        proc = subprocess.run(
            [sys.executable, "-m", "verification.harness.run_page", str(page), str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"running {page} crashed (exit {proc.returncode}):\n{proc.stderr}")
        return json.loads(out.read_text(encoding="utf-8"))


def nested_pytest_environment() -> dict[str, str]:
    """The environment for a pytest run that a test starts: this one without
    PYTEST_ADDOPTS, whose options (``-n 3``, a JUnit file) were meant for the outer run and
    made nested runs fail or overwrite its report."""
    return {name: value for name, value in os.environ.items() if name != "PYTEST_ADDOPTS"}


def build_command(config: Path, site_dir: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "-f",
        str(config),
        "-d",
        str(site_dir),
    ]


def build_environment() -> dict[str, str]:
    # Material 9.8 prints an end-of-life banner on every build; it is not a build warning.
    # A build of a copy (copy_site_sources) shares the repository's build cache: what is
    # kept there is keyed by the hash of what made it (docs/hooks/explain_report.py).
    return {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "TF_RETRACING_BUILD_CACHE": str(ROOT / ".cache"),
    }


def build_site(config: Path, site_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        build_command(config, site_dir),
        cwd=config.parent,
        env=build_environment(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def copy_site_sources(destination: Path, execute_notebooks: bool = False) -> Path:
    """A throwaway copy of what the build reads, to break without touching the real site.

    The copy's notebooks keep their text but lose their code cells, and are executed only
    when `execute_notebooks` is set: a test build of the copy then spends no time on them.
    """
    for name in ("docs", "snippets", "benchmarks"):  # the build renders benchmarks/results
        shutil.copytree(
            ROOT / name, destination / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name in ("mkdocs.yml", "pyproject.toml", "LICENSE"):  # the build makes the wheel
        shutil.copy(ROOT / name, destination / name)
    for notebook in (destination / "docs").rglob("*.ipynb"):
        content = json.loads(notebook.read_text("utf-8"))
        content["cells"] = [c for c in content["cells"] if c["cell_type"] != "code"]
        notebook.write_text(json.dumps(content), "utf-8")
    if not execute_notebooks:
        config = destination / "mkdocs.yml"
        text = config.read_text("utf-8")
        assert text.count(EXECUTE_NOTEBOOKS) == 1, f"{EXECUTE_NOTEBOOKS!r} not in mkdocs.yml"
        config.write_text(text.replace(EXECUTE_NOTEBOOKS, "execute: false"), "utf-8")
    return destination
