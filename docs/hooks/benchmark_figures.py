"""MkDocs hook: benchmark tables and plots, rendered at build time from benchmarks/results.

Set ``BENCHMARKS_RERUN=quick`` or ``BENCHMARKS_RERUN=full`` to run the benchmarks before
the build (the scheduled GPU job does; ``BENCHMARKS_DEVICE`` picks the device, default
auto); otherwise the committed results are rendered. Everything is loaded and checked in
``on_config``, before MkDocs touches the site folder, so bad results leave nothing behind.
The logic lives in ``benchmarks.schema`` and ``benchmarks.render``; this file only wires
them to MkDocs events.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from benchmarks.render import MarkerError, all_plots, replace_markers
from benchmarks.schema import ResultsError, load_results

ROOT = Path(__file__).resolve().parents[2]

RERUN_PROFILES = {"quick": ["--quick"], "full": []}
_loaded: dict[str, object] = {}


def rerun_benchmarks(profile: str) -> None:
    if profile not in RERUN_PROFILES:
        raise PluginError(
            f"BENCHMARKS_RERUN={profile!r}: expected one of {', '.join(RERUN_PROFILES)}"
        )
    device = os.environ.get("BENCHMARKS_DEVICE", "auto")
    command = [sys.executable, "-m", "benchmarks", "run", "--device", device]
    proc = subprocess.run(command + RERUN_PROFILES[profile], cwd=ROOT, check=False)
    if proc.returncode != 0:
        raise PluginError(f"re-running the benchmarks failed (exit {proc.returncode})")


def on_config(config, **_):
    if os.environ.get("BENCHMARKS_RERUN"):
        rerun_benchmarks(os.environ["BENCHMARKS_RERUN"])
    try:
        results = load_results(ROOT / "benchmarks" / "results")
    except ResultsError as error:
        raise PluginError(f"benchmark results: {error}") from error
    _loaded["results"] = results
    _loaded["plots"] = all_plots(results)
    return config


def on_files(files, config, **_):
    for path, plot in _loaded["plots"].items():
        files.append(File.generated(config, path, content=plot.svg))
    return files


def on_page_markdown(markdown, page, **_):
    page_dir = posixpath.dirname(page.file.src_uri)

    def link(path: str) -> str:
        return posixpath.relpath(path, page_dir or ".")

    try:
        return replace_markers(
            markdown, page.file.src_uri, _loaded["results"], _loaded["plots"], link
        )
    except MarkerError as error:
        raise PluginError(str(error)) from error
