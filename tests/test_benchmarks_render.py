"""Rendering fixed results into tables, plots and page markers, as the build does."""

from __future__ import annotations

import copy
import html
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import markdown
import pytest

from benchmarks.lookup import headline_ratio
from benchmarks.render import (
    MarkerError,
    all_plots,
    claims_table,
    device_tables,
    gpu_section,
    number,
    provenance_line,
    replace_markers,
    runs_table,
    scenario_plot,
    scenario_table,
)
from benchmarks.schema import ResultsFile, load_results

FIXTURES = Path(__file__).parent / "fixtures" / "benchmarks"


@pytest.fixture(scope="module")
def results() -> dict[str, ResultsFile]:
    return load_results(FIXTURES)


@pytest.fixture(scope="module")
def plots(results):
    return all_plots(results)


def link(path: str) -> str:
    return "../" + path


def test_number_keeps_three_significant_figures():
    assert [number(v) for v in (0, 1234.5, 33.749, 0.94206, 0.000123)] == [
        "0",
        "1,234",
        "33.7",
        "0.942",
        "0.000123",
    ]


def test_table_has_a_row_per_variant_ratios_with_intervals_and_provenance(results):
    result = results["cpu"].scenarios["loop_count"]
    table = scenario_table("loop_count", result)
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + len(result["variants"])  # header + variants
    assert "1× (baseline)" in rows[1]
    headline = headline_ratio(result)
    assert f"**{number(headline['median'])}× (95% CI {number(headline['ci_low'])}–" in table
    assert "**quick profile**" in table
    assert "Set-up: calls per pass 60; loop counts uniform in 1..20;" in table
    assert result["provenance"]["git_commit"] in table


def test_plot_is_an_svg_with_transparent_background_and_described_bars(results):
    result = results["cpu"].scenarios["batch_size_stream"]
    plot = scenario_plot(result)
    root = ET.fromstring(plot.svg.encode())
    assert root.tag.endswith("svg")
    assert plot.width > 0 and plot.height > 0
    assert "milliseconds per call" in plot.svg  # the axis is labelled
    assert 'style="fill: #ffffff' not in plot.svg  # no white background in dark mode
    for variant in result["variants"]:
        assert variant["label"].replace("`", "") in plot.alt
    assert plot.svg == scenario_plot(result).svg  # reproducible, byte for byte


def test_markers_are_replaced_by_tables_and_images(results, plots):
    page = "intro\n<!-- benchmark:table loop_count -->\n\n<!-- benchmark:plot loop_count -->\n"
    out = replace_markers(page, "guide/x.md", results, plots, link)
    assert "<!--" not in out
    assert "| count as a tensor, <code>tf.range</code> |" in out
    assert re.search(r'!\[[^]]+\]\(\.\./assets/benchmarks/cpu-loop_count\.svg\)\{ width="460"', out)


@pytest.mark.parametrize(
    ("marker", "expected"),
    [
        ("<!-- benchmark:table warp_drive -->", "unknown scenario 'warp_drive'"),
        (
            "<!-- benchmark:plot explainer_overhead -->",
            "no results for scenario 'explainer_overhead'",
        ),
        ("<!-- benchmark:chart loop_count -->", "unknown benchmark marker"),
        ("<!-- benchmark:table -->", "unknown benchmark marker"),
        ("see <!-- benchmark:table loop_count -->", "malformed benchmark marker"),
    ],
)
def test_bad_markers_fail_naming_page_and_marker(results, plots, marker, expected):
    with pytest.raises(MarkerError) as caught:
        replace_markers(f"text\n{marker}\n", "guide/page.md", results, plots, link)
    message = str(caught.value)
    assert message.startswith("guide/page.md: ")
    assert expected in message
    assert marker.split("<!--")[1].split("-->")[0].strip() in message


def test_claims_table_sets_claims_beside_measurements(results):
    table = claims_table(results)
    assert "| Retraces per 1000 calls | 847 → 0 | `batch_size_stream` |" in table
    assert "not measured" in table  # function_in_loop is absent from the fixture
    assert "Measured here (GPU)" not in table


def test_gpu_section_says_no_run_until_gpu_results_exist(results):
    assert "No GPU run has been recorded yet" in gpu_section(results)
    gpu_result = copy.deepcopy(results["cpu"].scenarios["loop_count"])
    gpu_result["provenance"].update(device="gpu", gpu={"name": "Test GPU", "driver": "1.0"})
    with_gpu = {**results, "gpu": ResultsFile(Path("gpu.json"), "gpu", {"loop_count": gpu_result})}
    section = gpu_section(with_gpu)
    assert "No GPU run" not in section
    assert "Test GPU (driver 1.0)" in section
    assert device_tables("loop_count", with_gpu).count("| Variant |") == 2


def test_runs_table_flags_the_quick_profile(results):
    table = runs_table(results)
    assert "Some figures come from the quick profile" in table
    for name in results["cpu"].scenarios:
        assert f"| `{name}` | CPU | quick |" in table


def test_weight_cache_table_shows_memory_by_model_count_and_wrong_outputs(results):
    table = scenario_table("weight_cache", results["cpu"].scenarios["weight_cache"])
    assert "| Models | One `tf.function` per model | Traces | One shared graph | Traces |" in table
    for count in (1, 10, 100):
        assert re.search(rf"^\| {count} \| [0-9.,]+ \| {count} \| [0-9.,]+ \| 1 \|$", table, re.M)
    assert re.search(
        r"^\| weight-swapping cache \(the post's design\) \| \d+ \| 200 \|$", table, re.M
    )


def _architecture_row(name: str, median: float, low: float, high: float, route: str) -> dict:
    return {
        "architecture": name,
        "variables": 100,
        "batch": 32,
        "route": route,
        "speedup_median": median,
        "speedup_ci_low": low,
        "speedup_ci_high": high,
    }


def test_serving_crossover_names_the_lowest_ratio_when_none_is_measurably_slower():
    from benchmarks.render import _serving_crossover

    rows = [
        _architecture_row("Wide", 1.2, 1.1, 1.3, "shared graph"),
        _architecture_row("Deep", 0.97, 0.92, 1.05, "shared graph"),
        _architecture_row("Custom", 0.5, 0.4, 0.6, "own function: subclassed"),
    ]
    sentence = _serving_crossover(rows)
    assert "No architecture was measurably slower" in sentence
    assert "Deep, 100 variables, batch 32: 0.970 (0.920–1.05)" in sentence


def test_serving_crossover_lists_every_architecture_whose_interval_is_below_one():
    from benchmarks.render import _serving_crossover

    rows = [
        _architecture_row("Wide", 0.9, 0.85, 0.95, "shared graph"),
        _architecture_row("Deep", 0.8, 0.7, 0.99, "shared graph"),
        _architecture_row("Small", 1.5, 1.4, 1.6, "shared graph"),
    ]
    sentence = _serving_crossover(rows)
    assert sentence.startswith("Measurably slower")
    assert "Wide at batch 32" in sentence and "Deep at batch 32" in sentence
    assert "Small" not in sentence


def test_the_explainers_overhead_is_said_from_its_slowest_pair_of_runs():
    from benchmarks.render import overhead_sentence

    rows = [
        {"retraces": 10_000, "extra_percent": 0.1, "extra_percent_runs": [0.1, 7.5, 2.0]},
        {"retraces": 100, "extra_percent": 12.0},  # a run that kept no pairs
    ]
    sentence = overhead_sentence(rows)
    assert "at 10,000 retraces at most 7.5% (from 0.10% over 3 pairs)" in sentence
    assert "100 retraces" not in sentence
    assert "bounds nothing" in overhead_sentence(rows[1:])


def _goal_row(floor, dispatch, dispatch_met, price=None) -> dict:
    return {"floor": floor, "dispatch": dispatch, "dispatch_met": dispatch_met, "price": price}


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        # The dispatch goal does not apply: its median is not read, the floor's is (1.03).
        (_goal_row((1.02, 0.98, 1.06), (0.97, 0.9, 1.05), None), "none known"),
        (_goal_row((1.05, 1.01, 1.09), (0.97, 0.9, 1.05), None), "none found yet"),
        # It applies, and its median misses.
        (_goal_row((1.0, 0.97, 1.02), (0.9, 0.86, 0.95), False), "none found yet"),
        (_goal_row((1.0, 0.97, 1.05), (0.8, 0.75, 0.87), False), "none known"),
        (_goal_row((1.1, 1.0, 1.2), (1.0, 0.9, 1.1), None, "a known price"), "a known price"),
    ],
)
def test_a_miss_names_its_price_or_that_only_the_intervals_upper_end_misses(row, expected):
    from benchmarks.render import _price_text

    assert _price_text(row).startswith(expected)


def test_the_provenance_line_says_whether_onednn_ran_when_the_run_recorded_it(results):
    result = copy.deepcopy(results["cpu"].scenarios["loop_count"])
    assert "oneDNN" not in provenance_line(result)  # not recorded: nothing claimed
    result["provenance"]["onednn"] = "on (TF_ENABLE_ONEDNN_OPTS=1)"
    shown = markdown.markdown(provenance_line(result))  # the text escapes its underscores
    assert ", 2 cores, oneDNN on (TF_ENABLE_ONEDNN_OPTS=1);" in html.unescape(shown)
