"""The registry of scenarios, in the order the CLI runs and the pages show them."""

from __future__ import annotations

from benchmarks.scenarios import (
    batch_size_stream,
    changing_dtypes,
    function_in_loop,
    loop_count,
    predict_loop,
    sequence_lengths,
)
from benchmarks.scenarios.base import Scenario

# Every name a page may ask for, including scenarios whose code is not available yet.
NAMES = (
    "predict_loop",
    "batch_size_stream",
    "loop_count",
    "function_in_loop",
    "changing_dtypes",
    "sequence_lengths",
    "weight_cache",
    "explainer_overhead",
)

SCENARIOS: dict[str, Scenario] = {
    module.SCENARIO.name: module.SCENARIO
    for module in (
        predict_loop,
        batch_size_stream,
        loop_count,
        function_in_loop,
        changing_dtypes,
        sequence_lengths,
    )
}

# Scenarios that measure project code not present yet: name -> what they need.
PENDING: dict[str, str] = {
    name: need
    for name, need in {
        "weight_cache": "snippets/model_cache.py and snippets/weight_swap_cache.py",
        "explainer_overhead": "snippets/retrace_explainer.py",
    }.items()
    if name not in SCENARIOS
}

assert set(SCENARIOS) | set(PENDING) == set(NAMES), "registry out of step with NAMES"
