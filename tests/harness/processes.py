"""Subprocesses the tests start: one interpreter per page, and mkdocs builds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.harness.codeblocks import ROOT


def run_page_in_subprocess(page: Path) -> dict:
    """Run one page's blocks in a fresh interpreter and return its JSON results."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.json"
        proc = subprocess.run(
            [sys.executable, "-m", "tests.harness.run_page", str(page), str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"running {page} crashed (exit {proc.returncode}):\n{proc.stderr}")
        return json.loads(out.read_text(encoding="utf-8"))


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
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


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


def start_site_build(config: Path, site_dir: Path, log: Path) -> subprocess.Popen:
    """The same build as build_site, started without waiting; its log goes to `log`."""
    with log.open("w", encoding="utf-8") as stream:
        return subprocess.Popen(
            build_command(config, site_dir),
            cwd=config.parent,
            env=build_environment(),
            stdout=subprocess.DEVNULL,
            stderr=stream,
        )


def copy_site_sources(destination: Path) -> Path:
    """A throwaway copy of what the build reads, to break without touching the real site.

    The copy's notebooks keep their text but lose their code cells, so that a test build of
    the copy does not spend half a minute executing them.
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
    return destination
