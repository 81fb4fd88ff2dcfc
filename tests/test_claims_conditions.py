"""``holds`` evidence: a sentence that compares results figures carries the comparison,
which is evaluated on the figures whenever the page is built, so a run that turns it around
stops the build instead of leaving the sentence wrong."""

from __future__ import annotations

import json

import pytest

from verification.claims.conditions import ConditionError, evaluate, figure_keys
from verification.claims.evidence import Condition
from verification.claims.index import cited_figures
from verification.claims.markers import ClaimError, find_markers
from verification.claims.render import page_claims, render_markers
from verification.harness.codeblocks import ROOT

RESULTS = "benchmarks/results/cpu.json"
FIGURES = {"a/p50": 0.17, "a/p99": 0.31, "b/p50": 0.25, "b/traces": 0, "b/name": "shared"}


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ("{a/p50} < {b/p50}", True),
        ("{a/p50} > {b/p50}", False),
        ("{b/traces} == 0 and {a/p50} < {a/p99}", True),
        ("{b/traces} == 0 and {a/p50} > {a/p99}", False),
        ("abs({b/p50} - {a/p50}) < 0.1", True),
        ("{b/p50} < 1.25 * {a/p50}", False),
        ("{a/p50} < {b/p50} < {a/p99}", True),
        ("not {b/traces} > 0", True),
        ("max({a/p50}, {b/p50}) <= {a/p99}", True),
        ('{b/name} == "shared"', True),
    ],
)
def test_a_condition_is_evaluated_on_its_figures(condition, holds):
    assert evaluate(condition, "", FIGURES) is holds


def test_a_prefix_continues_every_figure_key():
    figures = {"scenarios/x/" + key: value for key, value in FIGURES.items()}
    assert figure_keys("{a/p50} < {b/p50} < {a/p50} * 2", "scenarios/x") == [
        "scenarios/x/a/p50",
        "scenarios/x/b/p50",
    ]
    assert evaluate("{a/p50} < {b/p50}", "scenarios/x/", figures) is True


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("1 < 2", "reads no figure"),
        ("{a/p50} + 1", "is not a comparison"),
        ("{a/p50} <", "is not a condition"),
        ("{a/p50} == __import__('os')", "is not allowed"),
        ("{a/p50}.real < 1", "is not allowed"),
        ("{a/p50} in [0.17]", "only < <= > >= == != compare"),
        ("{b/name} * 2 == 0", "is not a number"),
    ],
)
def test_anything_but_a_comparison_of_figures_is_refused(condition, message):
    with pytest.raises(ConditionError, match=message):
        figure_keys(condition)
        evaluate(condition, "", FIGURES)


def two_figures() -> tuple[str, float, str, float]:
    """The fewest and the most traces among the variants of a scenario of the committed
    results file whose variants traced differently."""
    document = json.loads((ROOT / RESULTS).read_text(encoding="utf-8"))
    for scenario, result in document["scenarios"].items():
        numbers = sorted(
            (variant["traces"], f"scenarios/{scenario}/variants/{i}/traces")
            for i, variant in enumerate(result["variants"])
        )
        (low, low_key), (high, high_key) = numbers[0], numbers[-1]
        if low < high:
            return low_key, low, high_key, high
    raise AssertionError("no scenario's variants traced differently")


def test_a_holding_condition_is_evidence_with_its_figures(tmp_path):
    low_key, low, high_key, high = two_figures()
    page = f'Fewer traces.[[proof: holds {RESULTS} "{{{low_key}}} < {{{high_key}}}"]]\n'
    ((_, claim),) = page_claims(page, "guide/x.md", tmp_path)
    (condition,) = claim.evidence
    assert isinstance(condition, Condition)
    assert [(f.key, f.value) for f in condition.figures] == [(low_key, low), (high_key, high)]
    rendered = render_markers(page, "guide/x.md", tmp_path, "https://x", None)
    assert f"`{low_key} ({low}) < {high_key} ({high})` holds" in rendered


def test_a_condition_the_figures_no_longer_bear_out_stops_the_build(tmp_path):
    low_key, low, high_key, high = two_figures()
    page = f'More traces.[[proof: holds {RESULTS} "{{{low_key}}} > {{{high_key}}}"]]\n'
    with pytest.raises(ClaimError, match="does not hold") as raised:
        page_claims(page, "guide/x.md", tmp_path)
    assert f"{low_key} = {low}" in str(raised.value)
    assert f"{high_key} = {high}" in str(raised.value)
    assert "guide/x.md: claim 1" in str(raised.value)


def test_a_condition_on_a_figure_that_is_not_there_names_it(tmp_path):
    page = f'So.[[proof: holds {RESULTS} scenarios "{{no_such/figure}} == 0"]]\n'
    with pytest.raises(ClaimError, match="there is no 'no_such'"):
        page_claims(page, "guide/x.md", tmp_path)


def test_the_marker_reads_file_prefix_and_condition():
    page = 'So.[[proof: holds benchmarks/results/cpu.json scenarios/x "{a} < {b}"]]\n'
    ((ref,),) = [m.refs for m in find_markers(page, "x.md")]
    assert (ref.kind, ref.file, ref.prefix, ref.text) == (
        "holds",
        "benchmarks/results/cpu.json",
        "scenarios/x",
        "{a} < {b}",
    )


def test_the_figures_a_condition_reads_are_counted_for_staleness(tmp_path):
    low_key, _, high_key, _ = two_figures()
    (tmp_path / "guide").mkdir()
    page = f'Fewer.[[proof: holds {RESULTS} "{{{low_key}}} < {{{high_key}}}"]]\n'
    (tmp_path / "guide" / "x.md").write_text(page, encoding="utf-8")
    assert [f.key for f in cited_figures(tmp_path)] == [low_key, high_key]


def test_a_star_stands_for_every_item_of_a_list_inside_min_or_max():
    from verification.claims.conditions import expand_every

    lengths = {"rows": 3, "scenarios/x/rows": 2}
    assert expand_every("min({rows/*/p50}) > 0", "", lengths.get) == (
        "min({rows/0/p50}, {rows/1/p50}, {rows/2/p50}) > 0"
    )
    assert expand_every("max({*/p50}) < {0/p99}", "scenarios/x/rows", lengths.get) == (
        "max({0/p50}, {1/p50}) < {0/p99}"
    )
    with pytest.raises(ConditionError, match="one \\* per figure"):
        expand_every("min({rows/*/a/*}) > 0", "", lengths.get)
    # Outside min() and max(), the figures written out are a tuple: refused.
    figures = {"rows/0/p50": 1, "rows/1/p50": 2, "rows/2/p50": 3}
    with pytest.raises(ConditionError, match="is not allowed"):
        evaluate(expand_every("{rows/*/p50} > 0", "", lengths.get), "", figures)


def test_every_row_of_a_results_list_is_read_and_shown_as_a_range(tmp_path):
    low_key, low, _, high = two_figures()
    prefix = low_key.rsplit("/", 2)[0]  # scenarios/<name>/variants
    condition = f"min({{*/traces}}) == {low} and max({{*/traces}}) == {high}"
    page = f'So.[[proof: holds {RESULTS} {prefix} "{condition}"]]\n'
    ((_, claim),) = page_claims(page, "guide/x.md", tmp_path)
    (held,) = claim.evidence
    assert f"{prefix}/0/traces" in [figure.key for figure in held.figures]
    rendered = render_markers(page, "guide/x.md", tmp_path, "https://x", None)
    assert f"({len(held.figures)} figures, from {low} to {high})" in rendered
    wrong = page.replace(f"== {low} and", f"== {low + 1} and")
    with pytest.raises(ClaimError, match="does not hold"):
        page_claims(wrong, "guide/x.md", tmp_path)
