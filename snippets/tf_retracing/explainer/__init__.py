"""Say why a ``tf.function`` traced again: which argument, what changed, what to try.

Usage::

    from tf_retracing import explain_retracing, tracing_budget

    @explain_retracing                 # on a plain function, or on top of @tf.function
    def predict(x): ...

    predict.retrace_reasons            # one RetraceReason per retrace
    with tracing_budget(predict, 1):   # in a test: fail if it traces more than once
        ...

Whole program, without editing it::

    python -m tf_retracing.explain script.py [args]

How it stays cheap: the watched object is a real ``tf.function`` whose Python function
is wrapped by a hook. TensorFlow runs the Python function only while it traces, so the
hook, and all the work of explaining, runs only when a trace happens; a call that reuses
a trace runs exactly TensorFlow's own code. At a trace the hook reads the call's trace
type from TensorFlow's tracing frame, and the reason is recorded only when TensorFlow adds
the new trace to its cache, so a trace that fails leaves nothing behind.

Where the parts live: ``_internals`` reads TensorFlow (its tracing frame, its trace types,
the SavedModel loader) and turns each trace into a TensorFlow-free ``TraceDescription``;
``comparison`` compares descriptions and writes the reasons; this module watches
functions and keeps their histories.

Timing the overhead (benchmark scenario ``explainer_overhead``): compare, side by side,
the same body as a plain tf.function and as a watched one::

    plain = tf.function(body)
    watched = explain_retracing(tf.function(body))   # same options, watched

- Calls that do not retrace: call each once with an input, then time calls of each with
  inputs of that same shape and dtype (interleave the two); neither traces again.
- Calls that retrace: time calls that each trace (a new shape every call) on both; the
  watched minus the plain time per call is the explainer's extra work at a retrace.
  That includes the one warning per retrace on the ``retrace`` logger; to time only the
  bookkeeping, give that logger a ``logging.NullHandler()`` and ``propagate = False``.
"""

from __future__ import annotations

# What code outside the package uses of the parts (the notebook extension, the pytest
# plugin, tests); a name that tests patch is patched in the part that reads it.
from tf_retracing.explainer.names import _location as _location
from tf_retracing.explainer.names import set_location_namer as set_location_namer
from tf_retracing.explainer.summary import FunctionSummary as FunctionSummary
from tf_retracing.explainer.summary import UnwatchedRetracing as UnwatchedRetracing
from tf_retracing.explainer.summary import report, report_data
from tf_retracing.explainer.summary import summarise as summarise
from tf_retracing.explainer.watch import LOGGER as LOGGER
from tf_retracing.explainer.watch import RetracingGuard as RetracingGuard
from tf_retracing.explainer.watch import SessionWatches as SessionWatches
from tf_retracing.explainer.watch import _part_of_a_one_off as _part_of_a_one_off
from tf_retracing.explainer.watch import _Watch as _Watch
from tf_retracing.explainer.watch import guard_retracing
from tf_retracing.explainer.watching import _ORIGINAL_TF_FUNCTION as _ORIGINAL_TF_FUNCTION
from tf_retracing.explainer.watching import WatchedCaller as WatchedCaller
from tf_retracing.explainer.watching import WatchedCopyWarning as WatchedCopyWarning
from tf_retracing.explainer.watching import (
    WatchedFunction,
    explain_retracing,
    tracing_budget,
    watch_every_tf_function,
)
from tf_retracing.explainer.watching import _watching_tf_function as _watching_tf_function
from tf_retracing.explainer.watching import stop_watching as stop_watching
from tf_retracing.explainer_types import KINDS, RetraceReason, RetracingBudgetExceeded
from tf_retracing.explainer_types import REPORT_URL as REPORT_URL

# This module's tools, which the package re-exports lazily (EXPLAINER_NAMES; a test keeps
# the two equal), plus the types; strings only, so that the API reference can read it.
__all__ = [
    "KINDS",
    "RetraceReason",
    "RetracingBudgetExceeded",
    "WatchedFunction",
    "explain_retracing",
    "guard_retracing",
    "report",
    "report_data",
    "tracing_budget",
    "watch_every_tf_function",
]
