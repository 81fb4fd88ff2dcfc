"""MkDocs hook: benchmark tables and plots, rendered at build time from benchmarks/results.

Set ``BENCHMARKS_RERUN=quick`` or ``BENCHMARKS_RERUN=full`` to run the benchmarks before
the build (``BENCHMARKS_DEVICE`` picks the device, default auto); otherwise the committed
results are rendered. In ``on_config``, before MkDocs empties the site folder, every
results file is loaded and validated in full and every figure a page can ask for is
rendered once: bad results fail the build with their file and field, and the earlier
site stays as it was. The logic lives in ``benchmarks.schema`` and ``benchmarks.render``;
this file only wires them to MkDocs events.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from benchmarks.render import MarkerError, RenderError, render_everything, replace_markers
from benchmarks.schema import PROFILES, ResultsError, load_results

_loaded: dict[str, object] = {}


def project_root(config) -> Path:
    """The folder of mkdocs.yml: the repository, or a throwaway copy of it in the tests."""
    return Path(config.config_file_path).resolve().parent


def rerun_benchmarks(profile: str, root: Path) -> None:
    if profile not in PROFILES:
        raise PluginError(f"BENCHMARKS_RERUN={profile!r}: expected one of {', '.join(PROFILES)}")
    device = os.environ.get("BENCHMARKS_DEVICE", "auto")
    command = [sys.executable, "-m", "benchmarks", "run", "--device", device]
    command += ["--quick"] if profile == "quick" else []
    proc = subprocess.run(command, cwd=root, check=False)
    if proc.returncode != 0:
        raise PluginError(f"re-running the benchmarks failed (exit {proc.returncode})")


def on_config(config, **_):
    root = project_root(config)
    if os.environ.get("BENCHMARKS_RERUN"):
        rerun_benchmarks(os.environ["BENCHMARKS_RERUN"], root)
    try:
        results = load_results(root / "benchmarks" / "results")
        plots = render_everything(results)
    except (ResultsError, RenderError) as error:
        raise PluginError(f"benchmark results: {error}") from error
    _loaded["results"] = results
    _loaded["plots"] = plots
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
