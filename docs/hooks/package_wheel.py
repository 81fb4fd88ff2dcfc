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


def install_commands(wheel: Wheel, site_url: str) -> str:
    base = site_url.rstrip("/") + "/"
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return (
        "```console\n"
        f"pip install {base}downloads/{wheel.name}\n"
        "```\n\n"
        "or, from the guide's package index (pip then picks the newest release):\n\n"
        "```console\n"
        f"pip install --index-url {base}simple/ {PROJECT}\n"
        "```\n\n"
        f"The wheel is pure Python; its SHA-256 is `{wheel.sha256}`. It requires "
        + ", ".join(f"`{d}`" for d in dependencies)
        + ".\n"
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
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, install_commands(_built["wheel"], config["site_url"] or "/"))
