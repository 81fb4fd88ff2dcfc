"""MkDocs hook: build the `tf_retracing` wheel from snippets/ and publish it in the site.

The wheel is built once per build, with the project's own build backend, from the same
source the pages include; it is served at ``downloads/<wheel>`` with a PEP 503 simple
index at ``simple/tf-retracing/``, so ``pip install --index-url <site>/simple/
tf-retracing`` works. ``<!-- tf_retracing:install -->`` in a page becomes the install
commands for this wheel. A failed build fails the site build.
"""

from __future__ import annotations

import hashlib
import html
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- tf_retracing:install -->"
SERVE_MARKER = "<!-- tf_retracing:install-serve -->"  # the Ray Serve line alone
PROJECT = "tf-retracing"


@dataclass(frozen=True)
class Wheel:
    name: str
    content: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


def build_wheel(root: Path = ROOT) -> Wheel:
    """Build the wheel with the PEP 517 backend named in pyproject.toml, in a subprocess."""
    with tempfile.TemporaryDirectory() as out:
        code = "import sys, hatchling.build as b; print(b.build_wheel(sys.argv[1]))"
        proc = subprocess.run(
            [sys.executable, "-c", code, out], cwd=root, capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise PluginError(f"building the tf_retracing wheel failed:\n{proc.stderr}")
        name = proc.stdout.strip().splitlines()[-1]
        return Wheel(name, (Path(out) / name).read_bytes())


def simple_index(wheel: Wheel) -> dict[str, str]:
    """The pages of a PEP 503 simple index that lists only this wheel."""
    link = f"../../downloads/{wheel.name}#sha256={wheel.sha256}"
    project_page = (
        f'<!DOCTYPE html><html><body><a href="{html.escape(link)}">'
        f"{html.escape(wheel.name)}</a></body></html>\n"
    )
    root_page = f'<!DOCTYPE html><html><body><a href="{PROJECT}/">{PROJECT}</a></body></html>\n'
    return {"simple/index.html": root_page, f"simple/{PROJECT}/index.html": project_page}


@dataclass(frozen=True)
class InstallLine:
    """One kind of reader and the exact command for their environment."""

    reader: str  # who this line is for, as the page names them
    why: str  # what the line does there
    command: str


def install_lines(wheel: Wheel, site_url: str) -> tuple[InstallLine, ...]:
    """The Install page's lines, one per kind of reader (tests/test_reader_installs.py runs
    each in the environment it names)."""
    base = site_url.rstrip("/") + "/"
    file_url = f"{base}downloads/{wheel.name}"
    index = f"--index-url {base}simple/ {PROJECT}"
    return (
        InstallLine(
            "You have TensorFlow (any build), or want only the linter",
            "pip takes the newest release from the guide's own index and installs nothing else: "
            "your TensorFlow and Keras stay as they are. Python 3.11 or newer.",
            f"pip install {index}",
        ),
        InstallLine(
            "This exact release, from its file",
            "The same, pinned to this file. On Python 3.10 pip also installs `tomli` from PyPI "
            "(the linter reads `pyproject.toml` with it), so use this line there.",
            f"pip install {file_url}",
        ),
        InstallLine(
            "No TensorFlow yet",
            "The `tensorflow` extra installs a release the tools were tested on with them.",
            f'pip install "{PROJECT}[tensorflow] @ {file_url}"',
        ),
        InstallLine(
            "A Colab or Jupyter notebook",
            "In a cell (Colab already has TensorFlow, which stays as it is).",
            f"%pip install {index}",
        ),
        serve_line(file_url),
    )


def serve_line(file_url: str) -> InstallLine:
    """The Ray Serve example's line: the guide's index holds only this package, so the
    `serve` extra is installed from the wheel's file, and pip takes Ray from PyPI."""
    return InstallLine(
        "For the Ray Serve example",
        "The `serve` extra adds Ray Serve, which pip takes from PyPI (the guide's own index "
        "holds only this package, so `--index-url` would not find it).",
        f'pip install "{PROJECT}[serve] @ {file_url}"',
    )


def install_commands(wheel: Wheel, site_url: str) -> str:
    blocks = [
        f"**{line.reader}.** {line.why}\n\n```console\n{line.command}\n```\n"
        for line in install_lines(wheel, site_url)
    ]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirement = project["optional-dependencies"]["tensorflow"][0]
    return (
        "\n".join(blocks)
        + f"\nThe wheel is pure Python; its SHA-256 is `{wheel.sha256}`. It requires no "
        f"TensorFlow; its `tensorflow` extra requires `{requirement}`.\n"
    )


_built: dict[str, Wheel] = {}


def on_config(config, **_):
    _built["wheel"] = build_wheel()
    return config


def on_files(files, config, **_):
    wheel = _built["wheel"]
    files.append(File.generated(config, f"downloads/{wheel.name}", content=wheel.content))
    for path, page in simple_index(wheel).items():
        files.append(File.generated(config, path, content=page))
    return files


def on_page_markdown(markdown, config, **_):
    site_url = config["site_url"] or "/"
    if SERVE_MARKER in markdown:
        wheel = _built["wheel"]
        line = serve_line(f"{site_url.rstrip('/')}/downloads/{wheel.name}")
        markdown = markdown.replace(SERVE_MARKER, f"```console\n{line.command}\n```\n")
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, install_commands(_built["wheel"], site_url))
