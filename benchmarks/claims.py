"""Figures a popular blog post publishes, quoted so the site can set its measurements beside them.

These are the post's numbers, not ours; the renderer labels them as claims and shows the
project's own measurement of the closest scenario next to each, with what differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchmarks.formatting import number, ratio_text
from benchmarks.lookup import find_ratio, find_variant
from benchmarks.scenarios.base import COLD, STEADY


@dataclass(frozen=True)
class BeforeAfter:
    """One field of two variants, e.g. steady time per call: ``first → second``."""

    field: str
    before: str
    after: str
    unit: str = ""

    @property
    def variants(self) -> tuple[str, ...]:
        return (self.before, self.after)

    def __call__(self, result: Mapping[str, Any]) -> str:
        first = number(_value(find_variant(result, self.before), self.field))
        second = number(_value(find_variant(result, self.after), self.field))
        return f"{first} → {second}{self.unit}"


@dataclass(frozen=True)
class Speedup:
    """A variant's ratio against the scenario's baseline, and the traces of both."""

    variant: str
    which: str  # COLD or STEADY

    @property
    def variants(self) -> tuple[str, ...]:
        return (self.variant,)

    def __call__(self, result: Mapping[str, Any]) -> str:
        traces = BeforeAfter("traces", result["baseline"], self.variant)(result)
        return f"{ratio_text(find_ratio(result, self.variant, self.which))}; traces {traces}"


@dataclass(frozen=True)
class Claim:
    what: str
    claimed: str
    scenario: str
    measured: BeforeAfter | Speedup  # the scenario's result -> our figure
    comparable: str


def _value(variant: Mapping[str, Any], field: str) -> float:
    value = variant[field]
    return value["median"] if isinstance(value, dict) else value


def variants_claims_use(scenario: str) -> set[str]:
    """The variant names of ``scenario`` that the claims table looks up."""
    return {
        name for claim in CLAIMS if claim.scenario == scenario for name in claim.measured.variants
    }


CLAIMS = (
    Claim(
        "Inference time per call (ms)",
        "145.3 → 39.8",
        "predict_loop",
        BeforeAfter("steady_ms_per_call", "predict", "tf_function"),
        "Partly: the post's model, batch size and code are not given; ours is a small "
        "dense model, `model.predict` against `model(x)` in a `tf.function`.",
    ),
    Claim(
        "Retraces per 1000 calls",
        "847 → 0",
        "batch_size_stream",
        BeforeAfter("retraces_per_1000_calls", "no_signature", "input_signature"),
        "Yes for the mechanism: retraces depend only on how many distinct shapes the "
        "stream holds (ours: batch sizes 1 to 64), not on the machine.",
    ),
    Claim(
        "Peak memory (GB)",
        "4.2 → 2.3",
        "batch_size_stream",
        BeforeAfter("rss_growth_mb", "no_signature", "input_signature", " MB"),
        "No: the post does not say what it measured. Ours is the growth of the host "
        "process's resident memory during a variant's first pass, in MB.",
    ),
    Claim(
        "Throughput (samples/s)",
        "6.9 → 25.1",
        "predict_loop",
        BeforeAfter("steady_throughput_per_s", "predict", "tf_function"),
        "Partly: same caveats as inference time; ours predicts batches of 32 rows.",
    ),
    Claim(
        "Basic prediction speedup",
        "6.18×; traces 4 → 2",
        "predict_loop",
        Speedup("tf_function", STEADY),
        "Partly: the post wraps `model.predict` in a `tf.function`, which raises an error "
        "on the pinned Keras; ours compares `model.predict` with `model(x)` in a "
        "`tf.function`.",
    ),
    Claim(
        "Input signature speedup",
        "2.97×; traces 5 → 1",
        "batch_size_stream",
        Speedup("input_signature", COLD),
        "Partly: the ratio depends on the number of distinct shapes in the stream, its "
        "length and the cost of a trace; the post's stream is not described.",
    ),
    Claim(
        "Tensor arguments speedup",
        "3.85×; traces 3 → 1",
        "loop_count",
        Speedup("tensor", COLD),
        "Partly: the ratio depends on the number of distinct counts and the stream's "
        "length; the post's loop body is empty (`pass`), ours does work in each step.",
    ),
    Claim(
        "Model architecture speedup",
        "2.23×; traces 13 → 5",
        "function_in_loop",
        Speedup("created_once", COLD),
        "No: the post does not describe this test; ours compares a `tf.function` created "
        "in the loop with one created once.",
    ),
)
