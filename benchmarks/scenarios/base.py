"""What a scenario is: variants doing the same work on the same stream of inputs.

A scenario module imports TensorFlow only inside its ``build`` function, so that the CLI
can list scenarios and check arguments without paying for the TensorFlow import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from benchmarks import ROOT

COLD = "cold"  # a fresh function or model runs the stream once: traces included
STEADY = "steady"  # the same function runs the stream again: nothing left to trace


class Runner(Protocol):
    """One variant's state for one repetition: call it per item, ask how often it traced."""

    def __call__(self, item: Any) -> Any: ...

    def traces(self) -> int: ...


class FunctionRunner:
    """Runs a ``tf.function`` on each item; ``arguments`` turns an item into its arguments."""

    def __init__(self, function: Any, arguments: Callable[[Any], tuple] | None = None):
        self.function = function
        self.arguments = arguments or (lambda item: (item,))

    def __call__(self, item: Any) -> Any:
        return self.function(*self.arguments(item))

    def traces(self) -> int:
        return self.function.experimental_get_tracing_count()


class CountingRunner:
    """Runs plain Python code per item; ``trace_counter`` reports how many traces it caused."""

    def __init__(self, call: Callable[[Any], Any], trace_counter: Callable[[], int]):
        self.call = call
        self.trace_counter = trace_counter

    def __call__(self, item: Any) -> Any:
        return self.call(item)

    def traces(self) -> int:
        return self.trace_counter()


@dataclass(frozen=True)
class Variant:
    name: str
    label: str
    fresh: Callable[[], Runner]  # new state (function, model) for one repetition


@dataclass(frozen=True)
class Setup:
    """Everything one run of a scenario needs, built after TensorFlow is imported."""

    variants: Sequence[Variant]
    stream: Sequence[Any]  # the inputs, in call order, identical for every variant
    samples: Sequence[int]  # samples (rows) in each input, for throughput
    repetitions: int
    steady_repeats: int = 1  # the steady pass runs the stream this many times
    parameters: dict[str, Any] = field(default_factory=dict)  # shown in the method section
    # Measurements that do not fit the cold/steady stream pattern (memory by model count).
    extra: Callable[[], dict[str, Any]] | None = None


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    question: str  # what the comparison answers, one sentence
    baseline: str  # variant every ratio is computed against
    headline: str  # variant whose ratio against the baseline is the headline figure
    headline_pass: str  # COLD or STEADY
    build: Callable[[bool], Setup]  # argument: quick profile
    requires: tuple[str, ...] = ()  # project files the scenario measures
    # Environment variables its worker starts with: what TensorFlow reads once, at import.
    environment: tuple[tuple[str, str], ...] = ()

    def missing_requirements(self) -> list[str]:
        return [path for path in self.requires if not (ROOT / path).exists()]
