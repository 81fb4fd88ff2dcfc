"""Figures a popular blog post publishes, quoted so the site can set its measurements beside them.

These are the post's numbers, not ours; the renderer labels them as claims and shows the
project's own measurement of the closest scenario next to each, with what differs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.scenarios.base import COLD, STEADY


@dataclass(frozen=True)
class Claim:
    what: str
    claimed: str
    scenario: str
    measured: Callable[[dict[str, Any]], str]  # the scenario's result -> our figure
    comparable: str


def _variant(result: dict[str, Any], name: str) -> dict[str, Any]:
    return next(v for v in result["variants"] if v["name"] == name)


def _ratio(result: dict[str, Any], variant: str, which: str) -> dict[str, Any]:
    return next(r for r in result["ratios"] if r["variant"] == variant and r["pass"] == which)


def before_after(field: str, before: str, after: str, unit: str = ""):
    def measured(result: dict[str, Any]) -> str:
        from benchmarks.render import number

        first = number(_value(_variant(result, before), field))
        second = number(_value(_variant(result, after), field))
        return f"{first} → {second}{unit}"

    return measured


def _value(variant: dict[str, Any], field: str) -> float:
    value = variant[field]
    return value["median"] if isinstance(value, dict) else value


def speedup(variant: str, which: str):
    """The variant's ratio against the baseline, and the traces of both."""

    def measured(result: dict[str, Any]) -> str:
        from benchmarks.render import ratio_text

        traces = before_after("traces", result["baseline"], variant)(result)
        return f"{ratio_text(_ratio(result, variant, which))}; traces {traces}"

    return measured


CLAIMS = (
    Claim(
        "Inference time per call (ms)",
        "145.3 → 39.8",
        "predict_loop",
        before_after("steady_ms_per_call", "predict", "tf_function"),
        "Partly: the post's model, batch size and code are not given; ours is a small "
        "dense model, `model.predict` against `model(x)` in a `tf.function`.",
    ),
    Claim(
        "Retraces per 1000 calls",
        "847 → 0",
        "batch_size_stream",
        before_after("retraces_per_1000_calls", "no_signature", "input_signature"),
        "Yes for the mechanism: retraces depend only on how many distinct shapes the "
        "stream holds (ours: batch sizes 1 to 64), not on the machine.",
    ),
    Claim(
        "Peak memory (GB)",
        "4.2 → 2.3",
        "batch_size_stream",
        before_after("rss_growth_mb", "no_signature", "input_signature", " MB"),
        "No: the post does not say what it measured. Ours is the growth of the host "
        "process's resident memory during a variant's first pass, in MB.",
    ),
    Claim(
        "Throughput (samples/s)",
        "6.9 → 25.1",
        "predict_loop",
        before_after("steady_throughput_per_s", "predict", "tf_function"),
        "Partly: same caveats as inference time; ours predicts batches of 32 rows.",
    ),
    Claim(
        "Basic prediction speedup",
        "6.18×; traces 4 → 2",
        "predict_loop",
        speedup("tf_function", STEADY),
        "Partly: the post wraps `model.predict` in a `tf.function`, which raises an error "
        "on the pinned Keras; ours compares `model.predict` with `model(x)` in a "
        "`tf.function`.",
    ),
    Claim(
        "Input signature speedup",
        "2.97×; traces 5 → 1",
        "batch_size_stream",
        speedup("input_signature", COLD),
        "Partly: the ratio depends on the number of distinct shapes in the stream, its "
        "length and the cost of a trace; the post's stream is not described.",
    ),
    Claim(
        "Tensor arguments speedup",
        "3.85×; traces 3 → 1",
        "loop_count",
        speedup("tensor", COLD),
        "Partly: the ratio depends on the number of distinct counts and the stream's "
        "length; the post's loop body is empty (`pass`), ours does work in each step.",
    ),
    Claim(
        "Model architecture speedup",
        "2.23×; traces 13 → 5",
        "function_in_loop",
        speedup("created_once", COLD),
        "No: the post does not describe this test; ours compares a `tf.function` created "
        "in the loop with one created once.",
    ),
)
