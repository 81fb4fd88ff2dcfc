"""MkDocs hook: a real HTML report of ``python -m tf_retracing.explain --html``, made at
build time by running ``snippets/html_report_demo.py`` through the command, and
published at ``guide/retracing-report.html`` for the Diagnosing page to show.

The run takes a few seconds (TensorFlow's start); its page is kept in ``.cache/`` under
the hash of the demo, of the package's source and of the interpreter and TensorFlow that
ran it, so ``mkdocs serve`` runs it again only when one of them changes. Builds of a copy
of the sources (the tests' broken copies) share the repository's cache through
``TF_RETRACING_BUILD_CACHE``; concurrent builds take a lock, so one of them runs the demo
and the others read its page. A failed run fails the build with the command's output.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "snippets" / "html_report_demo.py"
PACKAGE = ROOT / "snippets" / "tf_retracing"
CACHE = Path(os.environ.get("TF_RETRACING_BUILD_CACHE") or ROOT / ".cache") / "explain-report"
PUBLISHED_AS = "guide/retracing-report.html"


def source_hash() -> str:
    digest = hashlib.sha256(DEMO.read_bytes())
    digest.update(f"{sys.version} tensorflow {_installed('tensorflow')}".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def _installed(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "none"


def run_demo() -> str:
    """The HTML page the command writes for the demo, run in a folder of its own."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / DEMO.name
        script.write_bytes(DEMO.read_bytes())  # the report names the script as given
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": str(ROOT / "snippets")}
        done = subprocess.run(
            [sys.executable, "-m", "tf_retracing.explain", "--html", "report.html", DEMO.name],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise PluginError(f"the HTML report's demo run failed:\n{done.stdout}{done.stderr}")
        return (Path(folder) / "report.html").read_text(encoding="utf-8")


def report_page() -> str:
    cached = CACHE / f"{source_hash()}.html"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if cached.exists():
            return cached.read_text(encoding="utf-8")
        page = run_demo()
        fd, temporary = tempfile.mkstemp(dir=CACHE, prefix=".report.")
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(page)
        os.replace(temporary, cached)  # a build stopped half-way leaves no half page
        return page


def on_files(files, config, **_):
    files.append(File.generated(config, PUBLISHED_AS, content=report_page()))
    return files
