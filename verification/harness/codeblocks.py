"""Find the Python blocks a reader sees on a page, exactly as the site renders them.

Includes (``--8<--``) are expanded with pymdownx.snippets' own preprocessor, configured
from mkdocs.yml, so the harness sees what the build sees. Blocks are then extracted with
pytest-codeblocks, and the fence's info string is parsed here so that Material attributes
(``python title="..."``, ``hl_lines``, ``linenums``) do not hide a block from the tests.
"""

from __future__ import annotations

import doctest
import io
import re
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import markdown
from mkdocs.config import load_config
from pymdownx.snippets import SnippetExtension, SnippetMissingError
from pytest_codeblocks import extract_from_buffer

ROOT = Path(__file__).resolve().parents[2]

# Fence languages that hold Python but would never be executed: refused outright.
PYTHON_ALIASES = frozenset({"py", "py3", "python3", "pycon", "ipython", "ipython3", "pyi"})
# A block that is deliberately not executed says why in its visible title.
NOT_RUN_PREFIX = "Not run:"


class HarnessError(Exception):
    """A page cannot be turned into executable blocks; the message names page and cause."""


@dataclass(frozen=True)
class DocBlock:
    page: str
    index: int  # 1-based position among the page's Python blocks
    code: str
    title: str
    expected_output: str | None
    ignore_whitespace: bool
    lineno: int = 0  # the line of its opening fence in the expanded page (1-based)

    @property
    def not_run_reason(self) -> str | None:
        if self.title.startswith(NOT_RUN_PREFIX):
            return self.title[len(NOT_RUN_PREFIX) :].strip()
        return None

    @property
    def label(self) -> str:
        return f"{self.page} block {self.index}"


@cache
def snippets_config(mkdocs_yml: Path = ROOT / "mkdocs.yml") -> dict:
    """The pymdownx.snippets options the site is built with."""
    config = load_config(str(mkdocs_yml))
    options = dict(config.mdx_configs.get("pymdownx.snippets", {}))
    options["base_path"] = [str(mkdocs_yml.parent / p) for p in options.get("base_path", ["."])]
    return options


def expand_includes(text: str, source: str, options: dict | None = None) -> str:
    """Expand every ``--8<--`` include, failing with the page's name on a missing target."""
    md = markdown.Markdown(extensions=[SnippetExtension(**(options or snippets_config()))])
    try:
        lines = md.preprocessors["snippet"].run(text.split("\n"))
    except SnippetMissingError as error:
        raise HarnessError(f"{source}: include failed: {error}") from error
    return "\n".join(lines)


def parse_fence(info: str) -> tuple[str, dict[str, str]]:
    """Split a fence info string such as ``python title="a b" hl_lines="2"``."""
    info = info.strip().lstrip("{").rstrip("}").strip()
    if not info:
        return "", {}
    words = shlex.split(info)
    lang = words[0].lstrip(".")
    attrs = {}
    for word in words[1:]:
        key, _, value = word.partition("=")
        attrs[key] = value
    return lang, attrs


def extract_python_blocks(text: str, source: str) -> list[DocBlock]:
    """Every Python block of an expanded page, in page order."""
    try:
        raw_blocks = extract_from_buffer(io.StringIO(text))
    except RuntimeError as error:
        raise HarnessError(f"{source}: {error}") from error
    blocks = []
    for raw in raw_blocks:
        lang, attrs = parse_fence(raw.syntax or "")
        where = f"{source}: block at expanded line {raw.lineno}"
        if lang.lower() in PYTHON_ALIASES:
            raise HarnessError(
                f"{where}: fence language {lang!r} is Python the tests would not run; "
                "write ```python"
            )
        if lang != "python":
            continue
        if raw.marks or raw.importorskip:
            raise HarnessError(
                f"{where}: hidden skip markers are not allowed; to leave a block "
                f'unexecuted give it a visible title="{NOT_RUN_PREFIX} <reason>"'
            )
        blocks.append(
            DocBlock(
                page=source,
                index=len(blocks) + 1,
                code=raw.code,
                title=attrs.get("title", ""),
                expected_output=raw.expected_output,
                ignore_whitespace=raw.expected_output_ignore_whitespace,
                lineno=raw.lineno,
            )
        )
    return blocks


def page_blocks(path: Path, options: dict | None = None) -> list[DocBlock]:
    """Expand and extract the Python blocks of one Markdown file.

    ``options``: the snippets options of the build at hand (``snippets_config`` of its
    mkdocs.yml); by default, this repository's.
    """
    source = relative_name(path)
    text = path.read_text(encoding="utf-8")
    return extract_python_blocks(expand_includes(text, source, options), source)


# Environment variables a page tells its reader to set before Python starts, for settings
# TensorFlow reads only when it loads (TF_ENABLE_ONEDNN_OPTS): a page that needs one says so
# in its prose and carries this comment, and its blocks then run in a fresh interpreter
# started with them (verification/harness/standalone_runner.py), not in one forked from a
# process that has already loaded TensorFlow.
READER_ENVIRONMENT = re.compile(r"<!--\s*reader-environment:\s*(.*?)\s*-->")


def page_environment(path: Path) -> dict[str, str]:
    """The variables of ``path``'s ``<!-- reader-environment: NAME=VALUE ... -->``, if any."""
    found = READER_ENVIRONMENT.search(path.read_text(encoding="utf-8"))
    if found is None:
        return {}
    pairs = [item.partition("=") for item in shlex.split(found[1])]
    bad = [name for name, equals, _ in pairs if not equals or not name.isidentifier()]
    if bad:
        raise HarnessError(f"{relative_name(path)}: reader-environment wants NAME=VALUE, got {bad}")
    return {name: value for name, _, value in pairs}


def relative_name(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def site_url_path(source: Path) -> str:
    """The URL path MkDocs serves a page of docs/ at: docs/guide/x.md -> /guide/x/."""
    relative = source.relative_to(ROOT / "docs").with_suffix("")
    if relative.name == "index":
        relative = relative.parent
    return "/" if str(relative) == "." else f"/{relative.as_posix()}/"


def documented_pages() -> list[Path]:
    """Every Markdown page of the site, plus the README."""
    pages = sorted((ROOT / "docs").rglob("*.md"))
    return [*pages, ROOT / "README.md"]


_WHITESPACE = re.compile(r"\s+")


def output_mismatch(block: DocBlock, actual: str) -> str | None:
    """Describe how the real output differs from the output shown on the page, if it does."""
    if block.expected_output is None:
        return None
    if block.ignore_whitespace:
        same = _WHITESPACE.sub("", block.expected_output) == _WHITESPACE.sub("", actual)
    else:
        # "..." in the shown output stands for text that differs from run to run,
        # such as a memory address; everything else must match exactly.
        same = doctest.OutputChecker().check_output(
            _normalise(block.expected_output), _normalise(actual), doctest.ELLIPSIS
        )
    if same:
        return None
    return (
        f"{block.label}: the output shown on the page is not what the block printed.\n"
        f"--- shown ---\n{block.expected_output}--- printed ---\n{actual}"
    )


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())
