"""Notebooks: stored without outputs, executed by every build, and their counts checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verification.harness.codeblocks import ROOT
from verification.harness.processes import build_site, copy_site_sources

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


def test_a_raising_cell_fails_the_build(tmp_path):
    copy_site_sources(tmp_path, execute_notebooks=True)
    notebook = tmp_path / "docs" / "notebooks" / NOTEBOOKS[0].name
    content = load(notebook)
    failing = {
        "cell_type": "code",
        "execution_count": None,
        "id": "fails-on-purpose",
        "metadata": {},
        "outputs": [],
        "source": ["raise RuntimeError('cell fails on purpose')\n"],
    }
    content["cells"].insert(1, failing)
    notebook.write_text(json.dumps(content), "utf-8")
    proc = build_site(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0
    assert "cell fails on purpose" in proc.stderr


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
