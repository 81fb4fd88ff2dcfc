"""Every guide page as a notebook (verification/page_notebooks.py, docs/hooks/page_notebooks.py):
made from the blocks the tests execute, its first cell the Install page's Colab line, its
links on the page; and one page's notebook run end to end in a fresh kernel."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from verification.harness.codeblocks import ROOT, output_mismatch, page_blocks
from verification.page_notebooks import (
    NOTEBOOKS_BRANCH,
    NotebookError,
    add_links,
    colab_install_line,
    colab_url,
    notebook_path,
    page_notebook,
    page_path,
)

GUIDE_PAGES = sorted((ROOT / "docs" / "guide").rglob("*.md"))
SITE = "https://example.org/guide-site/"
SNIPPETS = {"base_path": [str(ROOT / "snippets")], "check_paths": True}
# A short page, run whole in a fresh kernel: its blocks take a few seconds.
END_TO_END_PAGE = ROOT / "docs" / "guide" / "memory.md"
TF_LOG = re.compile(r"^WARNING:tensorflow:.*\n", re.MULTILINE)

PAGE = """---
search:
  boost: 2
---

# A page { #top }

Intro with a [link](other.md#part), an [anchor](#here) and [out](https://example.com/x),
[up](../install.md), [down](sub/index.md) and [a file](../downloads/x.whl).

```python
print("one")
```

<!--pytest-codeblocks:expected-output-->

```text
one
```

!!! note "Worth knowing"

    Inside an admonition.

<!-- benchmark:table something -->

```console title="A shell"
pip install nothing
```

```python title="Not run: needs a GPU"
print("gpu")
```

Between.

```python title="Continues the blocks above"
print("two")
```

The end.
"""


def _repo_url() -> str:
    return re.search(r"^repo_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(), re.M).group(1)


def _sources(notebook: dict, kind: str) -> list[str]:
    return [cell["source"] for cell in notebook["cells"] if cell["cell_type"] == kind]


def test_a_page_becomes_markdown_and_code_cells(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    notebook = page_notebook(page, "guide/page.md", SITE, "%pip install tools", SNIPPETS)
    nbformat.validate(nbformat.from_dict(notebook))
    assert _sources(notebook, "code") == ["%pip install tools", 'print("one")', 'print("two")']
    assert notebook["cells"][1]["source"] == "%pip install tools"  # the first code cell
    first, *prose = _sources(notebook, "markdown")
    assert first.startswith("# A page\n") and f"({SITE}guide/page/)" in first
    text = "\n".join(prose)
    assert "boost" not in text and "{ #top }" not in text and "# A page" not in text
    assert f"[link]({SITE}guide/other/#part)" in text
    assert f"[anchor]({SITE}guide/page/#here)" in text and "(https://example.com/x)" in text
    assert f"[up]({SITE}install/)" in text and f"[down]({SITE}guide/sub/)" in text
    assert f"[a file]({SITE}downloads/x.whl)" in text
    assert "pytest-codeblocks" not in text and "\none\n" not in text  # shown output left out
    assert "> **Worth knowing**\n>\n> Inside an admonition." in text
    assert f"see it [on the page]({SITE}guide/page/)" in text
    assert "```console\npip install nothing\n```" in text
    assert 'Not run here: needs a GPU.\n\n```python\nprint("gpu")\n```' in text
    assert text.rstrip().endswith("The end.")


@pytest.mark.parametrize("page", GUIDE_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_code_cells_are_the_blocks_the_tests_run(page):
    uri = page.relative_to(ROOT / "docs").as_posix()
    notebook = page_notebook(page, uri, SITE, "%pip install tools", SNIPPETS)
    blocks = [b.code.rstrip("\n") for b in page_blocks(page, SNIPPETS) if not b.not_run_reason]
    assert _sources(notebook, "code")[1:] == blocks


def test_the_colab_line_is_read_from_the_install_page():
    install = "**A Colab or Jupyter notebook.** In a cell.\n\n```console\n%pip install x\n```\n"
    other = "**Other.**\n\n```console\npip a\n```\n"
    assert colab_install_line(other + install) == "%pip install x"
    with pytest.raises(NotebookError, match="Colab"):
        colab_install_line("**A terminal.**\n\n```console\npip install x\n```\n")


def test_colab_opens_the_notebook_from_the_repository_branch():
    assert notebook_path("guide/causes.md") == "guide/causes/causes.ipynb"
    assert notebook_path("guide/causes/objects.md") == "guide/causes/objects/objects.ipynb"
    assert notebook_path("guide/part/index.md") == "guide/part/part.ipynb"
    assert colab_url("https://github.com/o/r", "guide/x/x.ipynb") == (
        f"https://colab.research.google.com/github/o/r/blob/{NOTEBOOKS_BRANCH}/guide/x/x.ipynb"
    )
    with pytest.raises(NotebookError):
        colab_url("https://gitlab.com/o/r", "x.ipynb")
    with pytest.raises(NotebookError, match="no title"):
        add_links("<p>no heading</p>", "guide/x.md", "https://github.com/o/r")


def test_the_pages_workflow_publishes_the_notebooks_to_the_branch_colab_opens():
    workflow = (ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    assert f"NOTEBOOKS_BRANCH: {NOTEBOOKS_BRANCH}" in workflow


@pytest.fixture(scope="module")
def install_line(built_site) -> str:
    """The Colab line as the built Install page shows it."""
    page = (built_site / "install" / "index.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    (line,) = {m.group(0).strip() for m in re.finditer(r"^%pip install .*$", text, re.M)}
    return line


@pytest.mark.parametrize("page", GUIDE_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_guide_page_has_its_notebook_and_links(page, built_site, install_line):
    uri = page.relative_to(ROOT / "docs").as_posix()
    notebook = json.loads((built_site / notebook_path(uri)).read_text(encoding="utf-8"))
    nbformat.validate(nbformat.from_dict(notebook))
    code = _sources(notebook, "code")
    assert code[0] == install_line
    assert code[1:] == [b.code.rstrip("\n") for b in page_blocks(page) if not b.not_run_reason]
    rendered = (built_site / page_path(uri) / "index.html").read_text(encoding="utf-8")
    name = Path(notebook_path(uri)).name
    assert f'href="{name}" download>Download notebook</a>' in rendered
    colab = html.escape(colab_url(_repo_url(), notebook_path(uri)))
    assert f'href="{colab}">Open in Colab</a>' in rendered


def test_a_page_notebook_runs_end_to_end_with_the_pages_outputs(built_site, install_line):
    """Every cell after the install cell, in a fresh kernel; the install cell is the Install
    page's Colab line (above), which tests/test_reader_installs.py runs in fresh
    environments (it reaches the site's index, which this test cannot).

    In an interactive session (``sys.ps1`` is set, as in a kernel) TensorFlow's logger writes
    to standard output, not standard error: a cell's output then holds the retracing
    warning among the printed lines, and only the printed lines are compared."""
    uri = END_TO_END_PAGE.relative_to(ROOT / "docs").as_posix()
    notebook = nbformat.read(built_site / notebook_path(uri), as_version=4)
    assert notebook.cells[1].source == install_line
    notebook.cells.pop(1)
    NotebookClient(notebook, timeout=300, kernel_name="python3", allow_errors=False).execute()
    blocks = [b for b in page_blocks(END_TO_END_PAGE) if not b.not_run_reason]
    cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert len(cells) == len(blocks) and any(b.expected_output for b in blocks)
    warned = 0
    for block, cell in zip(blocks, cells, strict=True):
        printed = "".join(
            o.get("text", "")
            for o in cell.outputs
            if o.output_type == "stream" and o.name == "stdout"
        )
        printed, logged = TF_LOG.subn("", printed)
        warned += logged
        assert output_mismatch(block, printed) is None, output_mismatch(block, printed)
    assert warned, "the page's 50 traces should log the retracing warning in the notebook"
