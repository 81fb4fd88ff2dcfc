"""Tools from the TensorFlow Retracing Guide.

- ``explain_retracing`` / ``tracing_budget`` / ``python -m tf_retracing.explain``: which
  argument made a ``tf.function`` trace again, what changed, and what to do.
- ``SharedGraphPredictor``: many Keras models served through one graph per architecture,
  each model's answers checked against its own call when it is first served, and again
  after a layer's attribute is assigned (a ``ModelChangedWarning``); a layer added to the
  model, or an attribute of the model object itself, is not seen until ``forget(model)``.
- ``python -m tf_retracing.lint``: the retracing hazards that can be seen in the source,
  found without running it (``tf_retracing.lint`` never imports TensorFlow).

TensorFlow is not a dependency of the package (any build serves: ``tensorflow``,
``tensorflow-cpu``, ``tf-nightly`` ...). The explainer reads TensorFlow internals (all of
them in ``tf_retracing._internals``), so the first use of a TensorFlow tool checks the
installed release against ``SUPPORTED_TENSORFLOW``. Outside that range it warns once and
``explain_retracing`` falls back to counting traces through the public API (each retrace
recorded with kind ``"unknown"``), unless the reader opts in with
``TF_RETRACING_ALLOW_UNTESTED=1``: then the full explainer runs after the warning, provided
the internals it reads are there. A missing internal is named, never an AttributeError.

TensorFlow is imported lazily, on the first use of a name that needs it (module-level
``__getattr__``), so that ``import tf_retracing.lint`` stays light enough for a
pre-commit hook.
"""

from __future__ import annotations

import os
import warnings

from tf_retracing._version import __version__ as __version__
from tf_retracing.explainer_types import EXPLAINER_NAMES  # TensorFlow-free

SUPPORTED_TENSORFLOW = ((2, 16), (2, 21))  # oldest and newest minor release, inclusive
# Set to 1 to run the full explainer on a TensorFlow outside SUPPORTED_TENSORFLOW (a
# nightly or a newer release) when the internals it reads are there.
ALLOW_UNTESTED_VARIABLE = "TF_RETRACING_ALLOW_UNTESTED"


class UnsupportedTensorFlowWarning(UserWarning):
    """The installed TensorFlow is outside the range the explainer was tested on."""


# The names whose first use imports TensorFlow (and runs the version gate once): those the
# explainer module provides (or its trace-counting fallback stands in for), and the rest.
_EXPLAINER_NAMES = EXPLAINER_NAMES
_TENSORFLOW_NAMES = frozenset(
    {
        *_EXPLAINER_NAMES,
        "CAUSES",
        "Cause",
        "EXPLAINER_UNAVAILABLE",
        "KINDS",
        "RetraceReason",
        "RetracingBudgetExceeded",
        "ArchitecturesEvictedWarning",
        "EagerDifferenceWarning",
        "ModelChangedWarning",
        "ServingFallbackWarning",
        "SharedGraphPredictor",
        "StaleKerasStateWarning",
        "UnsharableModelError",
        "architecture_key",
    }
)


def _warn(message: str, stacklevel: int) -> None:
    warnings.warn(
        f"tf_retracing: {message}", UnsupportedTensorFlowWarning, stacklevel=stacklevel + 1
    )


def _tensorflow_minor(version: str) -> tuple[int, int] | None:
    parts = version.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def _tested_range() -> str:
    (low_major, low_minor), (high_major, high_minor) = SUPPORTED_TENSORFLOW
    return f"{low_major}.{low_minor} to {high_major}.{high_minor}"


def _opted_in() -> bool:
    return os.environ.get(ALLOW_UNTESTED_VARIABLE, "").strip() == "1"


def _explainer_status(tf_version: str) -> tuple[str | None, str | None]:
    """(why the full explainer cannot run here, or None; a warning to give, or None). The
    opt-in is offered only where it would work: where TensorFlow has the internals the
    explainer reads (2.13 lacks one, and opting in there changes nothing)."""
    from tf_retracing import _internals

    low, high = SUPPORTED_TENSORFLOW
    minor = _tensorflow_minor(tf_version)
    in_range = minor is not None and low <= minor <= high
    if _internals.EXPLAINER_ERROR is not None:
        unavailable = (
            f"TensorFlow {tf_version} lacks an internal the explainer reads, which TensorFlow "
            f"{_tested_range()} have ({_internals.EXPLAINER_ERROR})"
        )
        return unavailable, f"{unavailable}; explain_retracing will count traces but not say why"
    if not in_range and not _opted_in():
        unavailable = (
            f"TensorFlow {tf_version} is outside the tested range {_tested_range()} "
            f"(set {ALLOW_UNTESTED_VARIABLE}=1 to run the full explainer on it)"
        )
        return unavailable, f"{unavailable}; explain_retracing will count traces but not say why"
    if not in_range:
        return None, (
            f"TensorFlow {tf_version} is outside the tested range {_tested_range()}; "
            f"running the full explainer because {ALLOW_UNTESTED_VARIABLE}=1"
        )
    return None, None


def _explainer_unavailable(tf_version: str) -> str | None:
    """Why the full explainer cannot run here, or None."""
    return _explainer_status(tf_version)[0]


def _load_tensorflow_tools() -> dict[str, object]:
    """Import TensorFlow and the tools built on it; warn once if the explainer must fall back."""
    try:
        import tensorflow as tf
    except ModuleNotFoundError as error:
        if error.name != "tensorflow":
            raise
        raise ModuleNotFoundError(
            "tf_retracing: this tool needs TensorFlow, which is not installed here; install "
            "the build you use (tensorflow, tensorflow-cpu, tf-nightly ...) or "
            "'tf-retracing[tensorflow]' (the linter alone needs none)",
            name="tensorflow",
        ) from None

    from tf_retracing.explainer_types import (
        CAUSES,
        KINDS,
        Cause,
        RetraceReason,
        RetracingBudgetExceeded,
    )
    from tf_retracing.serving import (
        ArchitecturesEvictedWarning,
        EagerDifferenceWarning,
        ModelChangedWarning,
        ServingFallbackWarning,
        SharedGraphPredictor,
        StaleKerasStateWarning,
        UnsharableModelError,
        architecture_key,
    )

    tools: dict[str, object] = {
        "CAUSES": CAUSES,
        "Cause": Cause,
        "KINDS": KINDS,
        "RetraceReason": RetraceReason,
        "RetracingBudgetExceeded": RetracingBudgetExceeded,
        "ArchitecturesEvictedWarning": ArchitecturesEvictedWarning,
        "EagerDifferenceWarning": EagerDifferenceWarning,
        "ModelChangedWarning": ModelChangedWarning,
        "ServingFallbackWarning": ServingFallbackWarning,
        "SharedGraphPredictor": SharedGraphPredictor,
        "StaleKerasStateWarning": StaleKerasStateWarning,
        "UnsharableModelError": UnsharableModelError,
        "architecture_key": architecture_key,
    }
    unavailable, warning = _explainer_status(tf.__version__)
    tools["EXPLAINER_UNAVAILABLE"] = unavailable
    # Said here, not when the package is imported: the linter, which never imports
    # TensorFlow, works the same on any release and must not warn about it.
    if warning is not None:
        _warn(warning, stacklevel=3)  # <- __getattr__ <- the user's import or use
    if unavailable is None:
        from tf_retracing import explainer

        for name in _EXPLAINER_NAMES:
            tools[name] = getattr(explainer, name)
        return tools

    from tf_retracing._counting import CountingFunction, make_explain_retracing, tracing_budget

    def _needs_the_explainer(*args, **kwargs):
        raise RuntimeError(f"tf_retracing: {unavailable}; this needs the explainer")

    tools.update(
        WatchedFunction=CountingFunction,
        explain_retracing=make_explain_retracing(unavailable),
        tracing_budget=tracing_budget,
        report=_needs_the_explainer,
        report_data=_needs_the_explainer,
        watch_every_tf_function=_needs_the_explainer,
        guard_retracing=_needs_the_explainer,
    )
    return tools


# Submodules reachable as attributes after a plain ``import tf_retracing``, as they were
# when this package imported them all eagerly.
_SUBMODULES = frozenset(
    {"serving", "explainer", "explainer_types", "explain", "cli", "lint", "notebook"}
)


def __getattr__(name: str) -> object:
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"tf_retracing.{name}")
    if name not in _TENSORFLOW_NAMES:
        raise AttributeError(f"module 'tf_retracing' has no attribute {name!r}")
    # Stored as module globals, so this runs once: later lookups never reach __getattr__.
    globals().update(_load_tensorflow_tools())
    return globals()[name]


def load_ipython_extension(ipython) -> None:
    """``%load_ext tf_retracing`` in a notebook: watch every tf.function from then on and
    say, under each cell, what traced again (``tf_retracing.notebook``)."""
    from tf_retracing import notebook

    # The version check runs here, so that the notebook module need not import the package.
    name = "EXPLAINER_UNAVAILABLE"
    notebook.load(ipython, unavailable=globals()[name] if name in globals() else __getattr__(name))


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext tf_retracing``: stop watching."""
    from tf_retracing import notebook

    notebook.unload(ipython)


def __dir__() -> list[str]:
    return sorted(set(globals()) | _TENSORFLOW_NAMES)


__all__ = sorted(
    _TENSORFLOW_NAMES | {"SUPPORTED_TENSORFLOW", "UnsupportedTensorFlowWarning", "__version__"}
)
