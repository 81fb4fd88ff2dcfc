"""Statistics for interleaved, paired timings: summaries, paired ratios, bootstrap intervals.

Pure functions of lists of numbers, so that they are unit-tested without TensorFlow.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 4000


def summarize(samples: Sequence[float]) -> dict[str, float | int]:
    """Median and spread (5th, 25th, 75th, 95th percentiles) of a list of timings."""
    if not samples:
        raise ValueError("cannot summarize an empty list of samples")
    values = np.asarray(samples, dtype=float)
    p5, p25, p50, p75, p95 = np.percentile(values, [5, 25, 50, 75, 95])
    return {
        "median": float(p50),
        "p5": float(p5),
        "p25": float(p25),
        "p75": float(p75),
        "p95": float(p95),
        "n": len(values),
    }


def paired_ratios(baseline: Sequence[float], variant: Sequence[float]) -> list[float]:
    """Per-repetition speedups: baseline time divided by the variant's time in the same round."""
    if len(baseline) != len(variant):
        raise ValueError(f"unpaired timings: {len(baseline)} baseline vs {len(variant)} variant")
    return [b / v for b, v in zip(baseline, variant, strict=True)]


def bootstrap_median_ci(values: Sequence[float], seed: int) -> dict[str, float | int]:
    """Median of ``values`` with a 95% percentile-bootstrap interval (fixed seed)."""
    if not values:
        raise ValueError("cannot bootstrap an empty list")
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(data), size=(BOOTSTRAP_RESAMPLES, len(data)))
    medians = np.median(data[picks], axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(medians, [tail, 100 - tail])
    return {
        "median": float(np.median(data)),
        "ci_low": float(low),
        "ci_high": float(high),
        "repetitions": len(data),
    }


def relative_half_width(ratio: dict[str, float]) -> float:
    """Half the interval's width as a fraction of the median (0.05 means +-5%)."""
    return (ratio["ci_high"] - ratio["ci_low"]) / 2 / ratio["median"]


def interleaved_orders(names: Sequence[str], repetitions: int, seed: int) -> list[list[str]]:
    """One shuffled order of the variants per repetition, reproducible from the seed.

    Shuffling inside each round spreads slow drifts of the machine (other processes, clock
    changes) evenly over the variants instead of penalising whichever runs last.
    """
    rng = random.Random(seed)
    orders = []
    for _ in range(repetitions):
        order = list(names)
        rng.shuffle(order)
        orders.append(order)
    return orders
