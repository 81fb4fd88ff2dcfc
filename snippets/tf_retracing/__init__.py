"""Tools from the TensorFlow Retracing Guide.

- ``explain_retracing`` / ``tracing_budget`` / ``python -m tf_retracing.explain``: which
  argument made a ``tf.function`` trace again, what changed, and what to do.
- ``SharedGraphPredictor``: many Keras models served through one graph per architecture,
  never returning a wrong answer.

The explainer reads TensorFlow internals (all of them in ``tf_retracing._internals``). On
a TensorFlow outside ``SUPPORTED_TENSORFLOW``, or one where those internals moved, this
package warns once at import and the explainer falls back to counting traces through the
public API, recording each retrace with kind ``"unknown"``.
"""

from __future__ import annotations

import warnings

import tensorflow as tf

from tf_retracing.explainer_types import (
    CAUSES,
    KINDS,
    Cause,
    RetraceReason,
    RetracingBudgetExceeded,
)
from tf_retracing.serving import (
    ServingFallbackWarning,
    SharedGraphPredictor,
    UnsharableModelError,
    architecture_key,
)

__version__ = "0.2.0"
SUPPORTED_TENSORFLOW = ((2, 16), (2, 21))  # oldest and newest minor release, inclusive


class UnsupportedTensorFlowWarning(UserWarning):
    """The installed TensorFlow is outside the range the explainer was tested on."""


def _tensorflow_minor(version: str) -> tuple[int, int] | None:
    parts = version.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def _explainer_unavailable() -> str | None:
    """Why the full explainer cannot run here, or None."""
    low, high = SUPPORTED_TENSORFLOW
    minor = _tensorflow_minor(tf.__version__)
    if minor is None or not low <= minor <= high:
        return (
            f"TensorFlow {tf.__version__} is outside the supported range "
            f"{low[0]}.{low[1]} to {high[0]}.{high[1]}"
        )
    from tf_retracing import _internals

    if _internals.EXPLAINER_ERROR is not None:
        return (
            f"TensorFlow {tf.__version__} lacks an internal it reads ({_internals.EXPLAINER_ERROR})"
        )
    return None


EXPLAINER_UNAVAILABLE = _explainer_unavailable()
if EXPLAINER_UNAVAILABLE is None:
    from tf_retracing.explainer import (
        WatchedFunction,
        explain_retracing,
        guard_retracing,
        report,
        report_data,
        tracing_budget,
        watch_every_tf_function,
    )
else:
    warnings.warn(
        f"tf_retracing: {EXPLAINER_UNAVAILABLE}; explain_retracing will count traces "
        "but not say why they happened",
        UnsupportedTensorFlowWarning,
        stacklevel=2,
    )
    from tf_retracing._counting import CountingFunction as WatchedFunction
    from tf_retracing._counting import make_explain_retracing, tracing_budget

    explain_retracing = make_explain_retracing(EXPLAINER_UNAVAILABLE)

    def _needs_the_explainer(*args, **kwargs):
        raise RuntimeError(f"tf_retracing: {EXPLAINER_UNAVAILABLE}; this needs the explainer")

    report = report_data = watch_every_tf_function = guard_retracing = _needs_the_explainer

__all__ = [
    "CAUSES",
    "EXPLAINER_UNAVAILABLE",
    "KINDS",
    "SUPPORTED_TENSORFLOW",
    "Cause",
    "RetraceReason",
    "RetracingBudgetExceeded",
    "ServingFallbackWarning",
    "SharedGraphPredictor",
    "UnsharableModelError",
    "UnsupportedTensorFlowWarning",
    "WatchedFunction",
    "__version__",
    "architecture_key",
    "explain_retracing",
    "guard_retracing",
    "report",
    "report_data",
    "tracing_budget",
    "watch_every_tf_function",
]
