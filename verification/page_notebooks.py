"""Every guide page as a notebook, made at build time from the blocks the tests execute.

The code cells are the page's Python blocks exactly as the harness extracts them
(``verification.harness.codeblocks.page_blocks``: includes expanded, in page order); the
text between them becomes Markdown cells; the output a page shows under a block is left
out, since running the cell prints it. A block the harness compiles but does not run (its
title starts with "Not run:") is shown as code in a Markdown cell with its reason, so that
"Run all" runs what the tests run and nothing else. The first cell installs the tools with
the line the Install page gives for a Colab notebook, read from that page as the build
renders it (``colab_install_line``), so that the two cannot differ.

Where the notebooks live: the site serves each one beside its page (``guide/x/x.ipynb``),
and that is what "Download notebook" fetches. Colab opens notebooks from GitHub, not from
an arbitrary web address, so the Pages workflow also pushes the notebooks of the build it
deploys to the branch ``NOTEBOOKS_BRANCH`` of the repository, at the same paths; "Open in
Colab" opens them there. The notebooks are never committed to ``main``: they would fall
out of step with the pages they are made from.
"""

from __future__ import annotations

import html
import posixpath
import re
from pathlib import Path
from urllib.parse import urlsplit

from verification.claims.markers import strip_markers
from verification.harness.codeblocks import DocBlock, expand_includes, extract_python_blocks

NOTEBOOKS_BRANCH = "notebooks"
COLAB = "https://colab.research.google.com/github"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_MARKER = re.compile(r"^\s*<!--[-\s]*pytest-codeblocks:")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_ATTR_LIST = re.compile(r"\s*\{\s*[#.:][^{}]*\}\s*$")
_ADMONITION = re.compile(r'^(!!!|\?\?\?\+?)\s+(\w+)(?:\s+"([^"]*)")?\s*$')
_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
_BUILD_MARKER = re.compile(r"^\s*[\w-]+(?::[\w\s-]*)?\s*$")
_ABBREVIATION = re.compile(r"^\*\[[^\]]+\]:")
_LINK = re.compile(r"(\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))")
_REFERENCE = re.compile(r"^(\s*\[[^\]]+\]:\s*)(\S+)(.*)$")


class NotebookError(Exception):
    """A notebook cannot be made; the message names the page and the cause."""


def colab_install_line(install_markdown: str) -> str:
    """The command the Install page gives for a Colab notebook: the first ``console``
    block after the paragraph whose bold label names Colab."""
    found = re.search(
        r"\*\*[^*\n]*\bColab\b[^*\n]*\*\*.*?^```console\n(.+?)\n```",
        install_markdown,
        re.DOTALL | re.MULTILINE,
    )
    if not found or "\n" in found.group(1).strip():
        raise NotebookError(
            "the Install page gives no one-line command for a Colab notebook (a bold label "
            "naming Colab followed by a ```console block of one line)"
        )
    return found.group(1).strip()


def page_path(page_uri: str) -> str:
    """The folder MkDocs serves a page at: guide/causes.md -> guide/causes/,
    guide/official-guide/index.md -> guide/official-guide/."""
    stem = posixpath.splitext(page_uri)[0]
    if posixpath.basename(stem) == "index":
        stem = posixpath.dirname(stem)
    return f"{stem}/" if stem else ""


def notebook_path(page_uri: str) -> str:
    """Where the site serves a page's notebook, in the page's folder and named after it:
    guide/causes.md -> guide/causes/causes.ipynb."""
    folder = page_path(page_uri)
    return f"{folder}{posixpath.basename(folder.rstrip('/')) or 'index'}.ipynb"


def colab_url(repo_url: str, path: str, branch: str = NOTEBOOKS_BRANCH) -> str:
    """Colab's address for a notebook at ``path`` on ``branch`` of a GitHub repository."""
    parts = urlsplit(repo_url)
    owner_repo = parts.path.strip("/").removesuffix(".git")
    if parts.netloc != "github.com" or owner_repo.count("/") != 1:
        raise NotebookError(f"repo_url {repo_url!r} is not a GitHub repository's address")
    return f"{COLAB}/{owner_repo}/blob/{branch}/{path}"


def links_html(page_uri: str, repo_url: str) -> str:
    """The two links under a page's title, kept out of the search index."""
    path = notebook_path(page_uri)
    download = html.escape(posixpath.basename(path))
    colab = html.escape(colab_url(repo_url, path))
    links = (
        f'<a class="md-button" href="{download}" download>Download notebook</a> '
        f'<a class="md-button" href="{colab}">Open in Colab</a>'
    )
    # HTML, not Markdown (it goes into the rendered page); Material's search skips it.
    return f'<div class="page-notebook" data-search-exclude>\n{links}\n</div>'


def add_links(page_html: str, page_uri: str, repo_url: str) -> str:
    """``page_html`` with the notebook links after its first heading."""
    heading_end = page_html.find("</h1>")
    if heading_end < 0:
        raise NotebookError(f"{page_uri}: no title (h1) to put the notebook links under")
    cut = heading_end + len("</h1>")
    return f"{page_html[:cut]}\n{links_html(page_uri, repo_url)}\n{page_html[cut:]}"


def _cell(kind: str, text: str, index: int) -> dict:
    cell = {"cell_type": kind, "id": f"cell-{index}", "metadata": {}, "source": text}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _absolute(target: str, page_uri: str, site_url: str) -> str:
    """A link of the page made absolute, so that it works from Colab or a download. Like
    MkDocs, a relative link is read from the page's Markdown file: a page by its ``.md``."""
    base = site_url.rstrip("/") + "/"
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("//"):
        return target
    path, hash_, anchor = target.partition("#")
    if not path:
        return base + page_path(page_uri) + hash_ + anchor
    if path.startswith("/"):
        return target
    linked = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), path))
    url = page_path(linked) if linked.endswith(".md") else linked
    return base + url + hash_ + anchor


def _notebook_markdown(text: str, page_uri: str, site_url: str) -> str:
    """The prose between two blocks as notebook Markdown: links absolute, admonitions as
    quotes, attribute lists and the site's build markers left out."""

    page_url = _absolute("#", page_uri, site_url).rstrip("#")
    # A claim's evidence is an output the notebook prints itself when run.
    text = strip_markers(text, page_uri)

    def comment(match: re.Match) -> str:
        if _BUILD_MARKER.match(match.group(1)) and not match.group(1).strip().startswith("fmt"):
            return f"*(Made when the site is built: see it [on the page]({page_url}).)*"
        return ""

    text = _COMMENT.sub(comment, text)
    out: list[str] = []
    quoting = False
    fence: str | None = None
    for line in text.split("\n"):
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(2)
            language = opening.group(3).strip().split(" ")[0].lstrip("{.")
            line = f"{opening.group(1)}{fence}{language}"
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            if _ABBREVIATION.match(line):
                continue
            admonition = _ADMONITION.match(line)
            if admonition:
                title = admonition.group(3) or admonition.group(2).capitalize()
                out.append(f"> **{title}**")
                quoting = True
                continue
            line = _ATTR_LIST.sub("", line)
            line = _LINK.sub(
                lambda m: m.group(1) + _absolute(m.group(2), page_uri, site_url) + m.group(3),
                line,
            )
            reference = _REFERENCE.match(line)
            if reference:
                line = reference.group(1) + _absolute(reference.group(2), page_uri, site_url)
                line += reference.group(3)
        if quoting:
            if line.startswith("    ") or not line.strip():
                out.append(("> " + line[4:]).rstrip())
                continue
            quoting = False
        out.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def _between(line: str) -> bool:
    stripped = line.strip()
    if _MARKER.match(line):
        return False
    return not stripped or (stripped.startswith("<!--") and stripped.endswith("-->"))


def _block_end(lines: list[str], block: DocBlock) -> int:
    """The index of the first line after ``block``'s fence and the output shown under it."""
    end = block.lineno + block.code.count("\n")  # the closing fence, 0-based
    if block.expected_output is None:
        return end + 1
    index = end + 1
    # Blank lines and other comments (a formatter's `<!-- fmt: on -->`) may stand between.
    while index < len(lines) and _between(lines[index]):
        index += 1
    if index >= len(lines) or not _MARKER.match(lines[index]):
        raise NotebookError(f"{block.label}: its shown output is not right under it")
    index += 1
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index + block.expected_output.count("\n") + 2


def page_notebook(
    path: Path, page_uri: str, site_url: str, install_line: str, snippets: dict | None = None
) -> dict:
    """The notebook (nbformat 4) of the page at ``path``, served at ``page_uri``'s URL."""
    source = f"docs/{page_uri}"
    text = expand_includes(path.read_text(encoding="utf-8"), source, snippets)
    blocks = extract_python_blocks(text, source)
    page_url = site_url.rstrip("/") + "/" + page_path(page_uri)
    front = _FRONT_MATTER.match(text)
    offset = text[: front.end()].count("\n") if front else 0
    lines = text.split("\n")
    title = next((line[2:].strip() for line in lines[offset:] if line.startswith("# ")), page_uri)
    title = _ATTR_LIST.sub("", title)
    cells = [
        _cell(
            "markdown",
            f"# {title}\n\nThe examples of [{title}]({page_url}), from the TensorFlow "
            "Retracing Guide, as a notebook: run the cells in order. The first one installs "
            "the guide's tools, as the Install page says for a notebook.",
            0,
        ),
        _cell("code", install_line, 1),
    ]
    position = offset
    for block in blocks:
        prose = "\n".join(lines[position : block.lineno - 1])
        if position == offset:  # the page's own title is the first cell's
            prose = re.sub(r"\A\s*# [^\n]*\n", "", prose)
        prose = _notebook_markdown(prose, page_uri, site_url)
        if prose.strip():
            cells.append(_cell("markdown", prose, len(cells)))
        code = block.code.rstrip("\n")
        if block.not_run_reason is not None:
            cells.append(
                _cell(
                    "markdown",
                    f"Not run here: {block.not_run_reason}.\n\n```python\n{code}\n```",
                    len(cells),
                )
            )
        else:
            cells.append(_cell("code", code, len(cells)))
        position = _block_end(lines, block)
    rest = _notebook_markdown("\n".join(lines[position:]), page_uri, site_url)
    if rest.strip():
        cells.append(_cell("markdown", rest, len(cells)))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
            "colab": {"name": posixpath.basename(notebook_path(page_uri))},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
