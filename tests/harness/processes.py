"""Subprocesses the tests start: one interpreter per page, and mkdocs builds."""

from __future__ import annotations

import json
import os
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


def build_site(config: Path, site_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(config),
            "-d",
            str(site_dir),
        ],
        cwd=config.parent,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
