"""The registry of scenarios, in the order the CLI runs and the pages show them."""

from __future__ import annotations

from benchmarks.scenarios import (
    batch_size_stream,
    changing_dtypes,
    explainer_overhead,
    function_in_loop,
    loop_count,
    predict_loop,
    sequence_lengths,
    serving_architectures,
    trace_memory,
    weight_cache,
)
from benchmarks.scenarios.base import Scenario

SCENARIOS: dict[str, Scenario] = {
    module.SCENARIO.name: module.SCENARIO
    for module in (
        predict_loop,
        batch_size_stream,
        loop_count,
        function_in_loop,
        changing_dtypes,
        sequence_lengths,
        weight_cache,
        serving_architectures,
        trace_memory,
        explainer_overhead,
    )
}

# Every name a page may ask for, whether or not its scenario can run in this checkout.
NAMES = tuple(SCENARIOS)


def runnable() -> list[str]:
    """Scenarios whose measured project code (snippets) is present."""
    return [name for name, scenario in SCENARIOS.items() if not scenario.missing_requirements()]
