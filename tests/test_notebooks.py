"""Notebooks: stored without outputs, executed by every build, and their counts checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verification.harness.codeblocks import ROOT
from verification.harness.processes import build_site

NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))
COLAB = "https://colab.research.google.com/github/tf-retracing-guide/tf-retracing-guide/blob/main/"


def load(notebook: Path) -> dict:
    return json.loads(notebook.read_text("utf-8"))


def rendered_text(site: Path, notebook: Path) -> str:
    """The built page's text with tags removed, so printed lines can be matched."""
    html = (site / "notebooks" / notebook.stem / "index.html").read_text("utf-8")
    return re.sub(r"<[^>]+>", "", html).replace("&quot;", '"').replace("&#39;", "'")


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 2, [n.name for n in NOTEBOOKS]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(notebook):
    for index, cell in enumerate(load(notebook)["cells"]):
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [], f"{notebook.name} cell {index} has stored outputs"
            assert cell["execution_count"] is None, f"{notebook.name} cell {index}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_links_to_its_download_and_to_colab(notebook, built_site):
    intro = "".join(load(notebook)["cells"][0]["source"])
    assert f'href="{notebook.name}" download' in intro
    assert f'href="{COLAB}docs/notebooks/{notebook.name}"' in intro
    assert (built_site / "notebooks" / notebook.stem / notebook.name).is_file()


def test_dynamic_shapes_lab_reports_bounded_traces(built_site):
    text = rendered_text(built_site, ROOT / "docs" / "notebooks" / "dynamic-shapes-lab.ipynb")
    assert "no signature: traces [1, 2, 4, 8, 16, 32]" in text
    assert "reduce_retracing: traces [1, 2, 2, 2, 2, 2]" in text
    assert "padded to buckets: traces [1, 2, 3, 4, 4, 4]" in text


def the_sites_notebook_settings() -> dict:
    """mkdocs-jupyter's settings as the site's mkdocs.yml gives them (its defaults filled
    in), read by MkDocs itself."""
    from mkdocs.config import load_config

    return dict(load_config(str(ROOT / "mkdocs.yml")).plugins["mkdocs-jupyter"].config)


def test_a_raising_cell_fails_the_build(tmp_path):
    """A notebook whose cell raises stops the build, with the site's notebook settings
    (execution on, errors not allowed). The site of one notebook that this builds fails in
    seconds; a copy of the whole site rendered every page before reaching its notebooks
    (about 35 s on this machine)."""
    settings = the_sites_notebook_settings()
    assert settings["execute"] and not settings["allow_errors"], settings
    content = load(NOTEBOOKS[0])
    failing = {
        "cell_type": "code",
        "execution_count": None,
        "id": "fails-on-purpose",
        "metadata": {},
        "outputs": [],
        "source": ["raise RuntimeError('cell fails on purpose')\n"],
    }
    title = next(c for c in content["cells"] if c["cell_type"] == "markdown")
    content["cells"] = [title, failing]
    docs = tmp_path / "docs" / "notebooks"
    docs.mkdir(parents=True)
    (docs / NOTEBOOKS[0].name).write_text(json.dumps(content), "utf-8")
    config = {
        "site_name": "one notebook",
        "docs_dir": "docs",
        "nav": [f"notebooks/{NOTEBOOKS[0].name}"],
        "plugins": [{"mkdocs-jupyter": settings}],
    }
    (tmp_path / "mkdocs.yml").write_text(json.dumps(config), "utf-8")  # JSON is YAML
    proc = build_site(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0
    # The kernel's traceback (its colour codes removed), not the cell's source echoed by
    # some other error.
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", proc.stderr)
    assert "RuntimeError: cell fails on purpose" in traceback, traceback[-2000:]


def test_serving_loop_notebook_reports_each_fix(built_site):
    text = rendered_text(built_site, ROOT / "docs" / "notebooks" / "diagnose-serving-loop.ipynb")
    assert "as written: traces = 60" in text
    assert "30 retraces: shape of `rows`" in text
    assert "3 retraces: python-value of `threshold`" in text
    assert "threshold as tensor: traces = 15 (one per batch size)" in text
    assert "input_signature: traces = 1" in text
    assert "decisions identical on 20 requests" in text


def test_serving_loop_notebook_shows_the_extension_summary_under_its_cell(built_site):
    html = (built_site / "notebooks" / "diagnose-serving-loop" / "index.html").read_text("utf-8")
    (summary,) = re.findall(r'<div class="tf-retracing-cell">(.*?)</div>', html, re.DOTALL)
    for cause in ("TFR001", "TFR003", "TFR006"):  # shape, Python value, new tf.function
        assert f">{cause}</a>" in summary
    assert "<code>rows</code> changed shape" in summary
