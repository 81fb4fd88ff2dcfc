"""MkDocs hook: every guide page (any .md under guide/, found at build time) as a notebook,
with "Download notebook" and "Open in Colab" under its title. The logic, and where the
notebooks live for Colab, is in ``verification.page_notebooks``."""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.exceptions import PluginError

from verification.page_notebooks import (
    NotebookError,
    add_links,
    colab_install_line,
    notebook_path,
    page_notebook,
)

INSTALL_PAGE = "install.md"
_notebooks: dict[str, dict] = {}


def is_guide_page(src_uri: str) -> bool:
    return src_uri.startswith("guide/") and src_uri.endswith(".md")


def on_page_content(html, page, config, **_):
    if not is_guide_page(page.file.src_uri):
        return html
    try:
        return add_links(html, page.file.src_uri, config["repo_url"])
    except NotebookError as error:
        raise PluginError(str(error)) from error


def on_env(env, config, files, **_):
    """Every page's Markdown has been through the hooks by now: the Install page's Colab
    line is read as the page shows it."""
    install = files.get_file_from_path(INSTALL_PAGE)
    if install is None or install.page is None or install.page.markdown is None:
        raise PluginError(f"page notebooks: {INSTALL_PAGE} is missing from the build")
    snippets = dict(config["mdx_configs"].get("pymdownx.snippets", {}))
    root = Path(config["config_file_path"]).parent
    snippets["base_path"] = [str(root / p) for p in snippets.get("base_path", ["."])]
    _notebooks.clear()
    try:
        line = colab_install_line(install.page.markdown)
        for file in files.documentation_pages():
            if is_guide_page(file.src_uri):
                _notebooks[notebook_path(file.src_uri)] = page_notebook(
                    Path(file.abs_src_path), file.src_uri, config["site_url"] or "/", line, snippets
                )
    except NotebookError as error:
        raise PluginError(f"page notebooks: {error}") from error
    return env


def on_post_build(config, **_):
    for path, notebook in _notebooks.items():
        out = Path(config["site_dir"]) / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", "utf-8")
