"""The explainer reduced to what TensorFlow's public API allows: counting traces.

Used when the installed TensorFlow is outside the supported range or moved an internal
the explainer reads: ``explain_retracing`` still returns a working tf.function, and each
retrace is recorded with kind ``"unknown"`` and a message that says why no cause is given.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator

import tensorflow as tf

from tf_retracing.explainer_types import REPORT_URL, RetraceReason, RetracingBudgetExceeded


class CountingFunction:
    """A tf.function that records one reason, without a cause, per retrace."""

    def __init__(self, function, why_unavailable: str):
        self._function = function
        self._why = why_unavailable
        self._reasons: list[RetraceReason] = []
        self._seen = 0
        functools.update_wrapper(self, function.python_function)

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
        return list(self._reasons)

    def _record_new_traces(self) -> None:
        count = self._function.experimental_get_tracing_count()
        for number in range(max(self._seen, 1) + 1, count + 1):
            self._reasons.append(
                RetraceReason(
                    function=self.__name__,
                    trace=number,
                    argument=None,
                    kind="unknown",
                    before="",
                    after="",
                    message=(
                        f"`{self.__name__}` traced again (trace {number}); the cause cannot "
                        f"be explained here: {self._why}. See {REPORT_URL}."
                    ),
                )
            )
        self._seen = max(self._seen, count)


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
