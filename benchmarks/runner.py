"""Measures one scenario inside the current process (the worker calls it).

Each repetition runs every variant once, in a shuffled order: a fresh function or model
takes the whole input stream (the cold pass, traces included), then the same state takes
the stream again (the steady pass). Ratios pair the baseline with each variant round by
round, so a slow moment of the machine hits both sides of a ratio alike. A cold ratio
compares whole passes (the traces are the point); a steady ratio compares each pass's
median call, which a single call slowed by another process cannot move.
"""

from __future__ import annotations

import gc
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import ROOT
from benchmarks.code_hash import code_hash
from benchmarks.measure import bootstrap_median_ci, interleaved_orders, paired_ratios, summarize
from benchmarks.scenarios.base import COLD, STEADY, Scenario, Setup, Variant
from benchmarks.scenarios.common import rss_bytes

SEED = 1234

Progress = Callable[[int, int], None]


def materialize(result: Any) -> None:
    """Wait for the result to exist on the host, so asynchronous devices are timed fully."""
    if isinstance(result, list | tuple):
        for part in result:
            materialize(part)
    elif hasattr(result, "numpy"):
        result.numpy()
    else:
        np.asarray(result)


def timed_pass(runner, stream) -> list[float]:
    """Seconds taken by each call of one pass over the stream."""
    times = []
    for item in stream:
        start = time.perf_counter()
        materialize(runner(item))
        times.append(time.perf_counter() - start)
    return times


class GpuMemory:
    """Peak device memory through TensorFlow's allocator statistics; inert on the CPU."""

    def __init__(self, device: str):
        self.device = "GPU:0" if device == "gpu" else None

    def reset(self) -> None:
        if self.device:
            import tensorflow as tf

            tf.config.experimental.reset_memory_stats(self.device)

    def peak_mb(self) -> float | None:
        if not self.device:
            return None
        import tensorflow as tf

        return tf.config.experimental.get_memory_info(self.device)["peak"] / 2**20


class VariantLog:
    """Everything measured for one variant across the repetitions."""

    def __init__(self, variant: Variant):
        self.variant = variant
        self.first_call: list[float] = []
        self.totals = {COLD: [], STEADY: []}
        self.steady_calls: list[float] = []
        self.steady_medians: list[float] = []  # one per repetition
        self.traces_cold: list[int] = []
        self.traces_steady: list[int] = []
        self.rss_growth_mb: float | None = None
        self.peak_gpu_mb: float | None = None

    def run_once(self, setup: Setup, gpu: GpuMemory) -> None:
        first = self.rss_growth_mb is None
        gc.collect()
        if first:
            gpu.reset()
            rss_before = rss_bytes()
        runner = self.variant.fresh()
        cold = timed_pass(runner, setup.stream)
        self.traces_cold.append(runner.traces())
        if first:
            self.rss_growth_mb = (rss_bytes() - rss_before) / 2**20
            self.peak_gpu_mb = gpu.peak_mb()
        steady = timed_pass(runner, list(setup.stream) * setup.steady_repeats)
        self.traces_steady.append(runner.traces() - self.traces_cold[-1])
        self.first_call.append(cold[0])
        self.totals[COLD].append(sum(cold))
        self.totals[STEADY].append(sum(steady))
        self.steady_medians.append(float(np.median(steady)))
        self.steady_calls.extend(steady)


def ms(seconds: float) -> float:
    return seconds * 1000


def variant_result(log: VariantLog, setup: Setup) -> dict[str, Any]:
    calls = len(setup.stream)
    samples = sum(setup.samples)
    cold_per_call = [ms(total) / calls for total in log.totals[COLD]]
    steady_samples = samples * setup.steady_repeats
    return {
        "name": log.variant.name,
        "label": log.variant.label,
        "traces": max(log.traces_cold),
        "traces_min": min(log.traces_cold),
        "retraces_per_1000_calls": max(log.traces_cold[0] - 1, 0) * 1000 / calls,
        "steady_pass_traces": max(log.traces_steady),
        "first_call_ms": float(np.median([ms(t) for t in log.first_call])),
        "cold_ms_per_call": summarize(cold_per_call),
        "steady_ms_per_call": summarize([ms(t) for t in log.steady_calls]),
        "cold_throughput_per_s": samples / float(np.median(log.totals[COLD])),
        "steady_throughput_per_s": steady_samples / float(np.median(log.totals[STEADY])),
        "rss_growth_mb": log.rss_growth_mb,
        "peak_gpu_mb": log.peak_gpu_mb,
    }


def ratios(scenario: Scenario, logs: dict[str, VariantLog]) -> list[dict[str, Any]]:
    baseline = logs[scenario.baseline]
    found = []
    for name, log in logs.items():
        if name == scenario.baseline:
            continue
        for which, per_round in (
            (COLD, lambda each: each.totals[COLD]),
            (STEADY, lambda each: each.steady_medians),
        ):
            interval = bootstrap_median_ci(
                paired_ratios(per_round(baseline), per_round(log)), seed=SEED
            )
            found.append(
                {
                    "variant": name,
                    "baseline": scenario.baseline,
                    "pass": which,
                    "headline": name == scenario.headline and which == scenario.headline_pass,
                    **interval,
                }
            )
    return found


def measure(scenario: Scenario, quick: bool, device: str, progress: Progress) -> dict[str, Any]:
    """Run the scenario and return its result (without provenance)."""
    import tensorflow as tf

    started = time.perf_counter()
    with tf.device("/GPU:0" if device == "gpu" else "/CPU:0"):
        setup = scenario.build(quick)
        logs = {variant.name: VariantLog(variant) for variant in setup.variants}
        orders = interleaved_orders(list(logs), setup.repetitions, seed=SEED)
        gpu = GpuMemory(device)
        total, done = setup.repetitions * len(logs), 0
        for order in orders:
            for name in order:
                logs[name].run_once(setup, gpu)
                done += 1
                progress(done, total)
        extra = setup.extra() if setup.extra else None
    measured = measured_code(scenario)
    return {
        "title": scenario.title,
        "question": scenario.question,
        "baseline": scenario.baseline,
        "calls_per_pass": len(setup.stream),
        "repetitions": setup.repetitions,
        "parameters": {key: str(value) for key, value in setup.parameters.items()},
        "variants": [variant_result(log, setup) for log in logs.values()],
        "ratios": ratios(scenario, logs),
        "peak_rss_mb": peak_rss_mb(),
        "seconds": time.perf_counter() - started,
        "extra": extra,
        # The code this result measured, so that a page can say when it has changed since.
        "measured": list(measured),
        "code_hash": code_hash(measured),
    }


def measured_code(scenario: Scenario) -> tuple[str, ...]:
    """The scenario's module, what every scenario runs through, and the project code it
    names as measured (``requires``)."""
    module = Path(sys.modules[scenario.build.__module__].__file__).resolve()
    return (
        module.relative_to(ROOT).as_posix(),
        "benchmarks/scenarios/base.py",
        "benchmarks/scenarios/common.py",
        "benchmarks/runner.py",
        "benchmarks/measure.py",
        *scenario.requires,
    )


def peak_rss_mb() -> float:
    # ru_maxrss is in kibibytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
