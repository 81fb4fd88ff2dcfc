"""The explainer reduced to what TensorFlow's public API allows: counting traces.

Used when the installed TensorFlow is outside the supported range or moved an internal
the explainer reads: ``explain_retracing`` still returns a working tf.function, and each
retrace is recorded with kind ``"unknown"`` and a message that says why no cause is given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import weakref
from collections.abc import Iterator

import tensorflow as tf

from tf_retracing.explainer_types import (
    REPORT_URL,
    RetraceReason,
    RetracingBudgetExceeded,
    display_name,
    unknown_reason,
)


@dataclasses.dataclass
class _History:
    """One function's traces, shared by the tf.functions a method binds to its instances."""

    traces: int = 0
    reasons: list[RetraceReason] = dataclasses.field(default_factory=list)


class CountingFunction:
    """A tf.function that records one reason, without a cause, per retrace.

    As a method, it binds as a tf.function does (one per instance); the bound copies share
    this one's history, so a second instance's first trace is a retrace, as in the
    explainer.
    """

    def __init__(self, function, why_unavailable: str, history: _History | None = None):
        self._function = function
        self._why = why_unavailable
        self._history = history or _History()
        self._seen = 0  # traces of this tf.function already counted into the history
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._name = display_name(function.python_function)  # as the explainer names it
        functools.update_wrapper(self, function.python_function)

    def __get__(self, instance, owner):
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:  # one per instance, kept while it lives, as TensorFlow does
            bound = CountingFunction(
                self._function.__get__(instance, owner), self._why, self._history
            )
            self._bound[instance] = bound
        return bound

    def __call__(self, *args, **kwargs):
        result = self._function(*args, **kwargs)
        self._record_new_traces()
        return result

    def experimental_get_tracing_count(self) -> int:
        return self._function.experimental_get_tracing_count()

    def get_concrete_function(self, *args, **kwargs):
        return self._function.get_concrete_function(*args, **kwargs)

    @property
    def retrace_reasons(self) -> list[RetraceReason]:
        return list(self._history.reasons)

    def _record_new_traces(self) -> None:
        count = self._function.experimental_get_tracing_count()
        for _ in range(self._seen, count):
            self._history.traces += 1
            if self._history.traces > 1:
                self._history.reasons.append(self._reason(self._history.traces))
        self._seen = max(self._seen, count)

    def _reason(self, number: int) -> RetraceReason:
        return unknown_reason(
            self._name,
            number,
            f"`{self._name}` traced again (trace {number}); the cause cannot be explained "
            f"here: {self._why}. See {REPORT_URL}.",
        )


def make_explain_retracing(why_unavailable: str):
    def explain_retracing(fn=None, /, **tf_function_options):
        if fn is None:
            return lambda function: explain_retracing(function, **tf_function_options)
        if isinstance(fn, CountingFunction):
            return fn
        if not callable(fn):
            raise TypeError(f"explain_retracing() needs a callable, got {type(fn).__name__}")
        if not hasattr(fn, "experimental_get_tracing_count"):
            fn = tf.function(fn, **tf_function_options)
        return CountingFunction(fn, why_unavailable)

    return explain_retracing


@contextlib.contextmanager
def tracing_budget(fn, max_traces: int) -> Iterator[None]:
    """Fail with RetracingBudgetExceeded if ``fn`` traces more than ``max_traces`` times."""
    count = fn.experimental_get_tracing_count
    start = count()
    yield
    traced = count() - start
    if traced > max_traces:
        name = getattr(fn, "__name__", repr(fn))
        raise RetracingBudgetExceeded(
            f"`{name}` traced {traced} times inside the block; the budget is {max_traces}."
        )


__all__ = ["CountingFunction", "RetracingBudgetExceeded", "make_explain_retracing"]
