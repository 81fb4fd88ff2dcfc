"""The statistics behind every ratio on the site: paired, interleaved, reproducible."""

from __future__ import annotations

import pytest

from benchmarks.measure import (
    bootstrap_median_ci,
    interleaved_orders,
    paired_ratios,
    relative_half_width,
    summarize,
)


def test_paired_ratios_divide_round_by_round():
    assert paired_ratios([10, 20, 30], [5, 5, 10]) == [2, 4, 3]


def test_paired_ratios_refuse_unpaired_timings():
    with pytest.raises(ValueError, match="unpaired"):
        paired_ratios([1, 2], [1])


def test_bootstrap_interval_brackets_the_median_and_is_reproducible():
    values = [2.0, 2.1, 1.9, 2.05, 1.95, 2.2, 1.8, 2.0, 2.02, 1.98]
    first = bootstrap_median_ci(values, seed=7)
    assert first == bootstrap_median_ci(values, seed=7)
    assert first["ci_low"] <= first["median"] == 2.0 <= first["ci_high"]
    assert first["repetitions"] == len(values)
    assert 0 < relative_half_width(first) < 0.1


def test_bootstrap_interval_widens_with_noise():
    quiet = bootstrap_median_ci([2.0, 2.01, 1.99, 2.0, 2.02, 1.98], seed=1)
    noisy = bootstrap_median_ci([2.0, 3.0, 1.0, 2.5, 1.5, 2.0], seed=1)
    assert relative_half_width(noisy) > relative_half_width(quiet)


def test_summary_percentiles_are_ordered():
    summary = summarize(list(range(1, 101)))
    assert summary["p5"] < summary["p25"] < summary["median"] < summary["p75"] < summary["p95"]
    assert summary["n"] == 100
    with pytest.raises(ValueError):
        summarize([])


def test_interleaved_orders_shuffle_each_round_reproducibly():
    orders = interleaved_orders(["a", "b", "c"], repetitions=20, seed=3)
    assert orders == interleaved_orders(["a", "b", "c"], repetitions=20, seed=3)
    assert all(sorted(order) == ["a", "b", "c"] for order in orders)
    assert len({tuple(order) for order in orders}) > 1  # not the same order every round
