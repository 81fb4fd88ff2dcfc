"""The site build with bad benchmark input: it fails, names the problem, writes no pages."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from verification.harness.codeblocks import ROOT
from verification.harness.processes import build_site, copy_site_sources


@pytest.fixture
def project(tmp_path) -> Path:
    return copy_site_sources(tmp_path)


def failed_build(project: Path) -> str:
    """Build over an earlier site; the build must fail and leave that site as it was."""
    site = project / "site"
    (site / "guide").mkdir(parents=True)
    earlier = {site / "index.html": "earlier home page", site / "guide" / "page.html": "earlier"}
    for path, content in earlier.items():
        path.write_text(content, "utf-8")
    proc = build_site(project / "mkdocs.yml", site)
    assert proc.returncode != 0, "the build passed but should have failed"
    files = {path for path in site.rglob("*") if path.is_file()}
    assert files == set(earlier), f"a failed build changed the earlier site: {sorted(files)[:5]}"
    assert all(path.read_text("utf-8") == content for path, content in earlier.items())
    return proc.stderr


@pytest.mark.slow
def test_build_fails_on_bad_results_naming_file_and_field_and_keeps_the_earlier_site(project):
    # A cross-reference only the renderer needed used to crash the build after the site
    # folder was emptied; all of tests/test_benchmarks_validation.py fails at this point.
    path = project / "benchmarks" / "results" / "cpu.json"
    document = json.loads(path.read_text("utf-8"))
    summary = document["scenarios"]["loop_count"]["variants"][0]["steady_ms_per_call"]
    summary["p25"] = summary["median"] * 2
    ratios = document["scenarios"]["explainer_overhead"]["ratios"]
    ratios[:] = [ratio for ratio in ratios if ratio["pass"] != "steady"]
    path.write_text(json.dumps(document), "utf-8")
    errors = failed_build(project)
    assert f"{path}: scenarios.loop_count.variants[0].steady_ms_per_call.p25: " in errors
    assert f"{path}: scenarios.explainer_overhead.ratios: no steady ratio for" in errors


@pytest.fixture
def hook():
    """The MkDocs hook module, loaded from its file as MkDocs loads it."""
    spec = importlib.util.spec_from_file_location(
        "benchmark_figures_hook", ROOT / "docs" / "hooks" / "benchmark_figures.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CONFIG = SimpleNamespace(config_file_path=str(ROOT / "mkdocs.yml"))


def test_marker_for_unknown_scenario_fails_naming_page_and_marker(hook, monkeypatch):
    # Markers are replaced while MkDocs reads the pages, before it writes any of them.
    monkeypatch.delenv("BENCHMARKS_RERUN", raising=False)
    hook.on_config(CONFIG)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="guide/page.md"))
    text = "# Page\n\n<!-- benchmark:plot warp_drive -->\n"
    with pytest.raises(PluginError) as caught:
        hook.on_page_markdown(text, page=page)
    message = str(caught.value)
    assert message.startswith("guide/page.md: marker '<!-- benchmark:plot warp_drive -->'")
    assert "unknown scenario 'warp_drive'" in message


def test_rerun_setting_must_name_a_profile(hook, monkeypatch):
    monkeypatch.setenv("BENCHMARKS_RERUN", "yes")
    with pytest.raises(PluginError, match="BENCHMARKS_RERUN='yes': expected one of quick, full"):
        hook.on_config(CONFIG)


# The pages below the Benchmarks page that show the results, one section per scenario.
RESULT_PAGES = [
    p for p in sorted((ROOT / "docs" / "benchmarks").glob("*.md")) if p.name != "index.md"
]


@pytest.mark.slow
def test_built_site_has_every_plot_and_no_marker_left(built_site):
    from benchmarks.schema import load_results

    results = load_results(ROOT / "benchmarks" / "results")
    for device, loaded in results.items():
        for name in loaded.scenarios:
            svg = built_site / "assets" / "benchmarks" / f"{device}-{name}.svg"
            assert svg.read_text("utf-8").lstrip().startswith("<?xml"), svg
    # The Benchmarks page and its pages of results, one level below it.
    pages = [built_site / "benchmarks" / "index.html"]
    pages += [built_site / "benchmarks" / p.stem / "index.html" for p in RESULT_PAGES]
    texts = [page.read_text("utf-8") for page in pages]
    assert all("benchmark:" not in text for text in texts)  # every marker was replaced
    plots = sum(text.count('src="../../assets/benchmarks/cpu-') for text in texts)
    assert plots == len(results["cpu"].scenarios)
