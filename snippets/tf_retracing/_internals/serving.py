"""What the predictor (``tf_retracing.serving``) reads of Keras's and TensorFlow's private APIs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import keras
import tensorflow as tf

# --- Serving (tf_retracing.serving) --------------------------------------------------


def flat_caller(concrete_function) -> Callable[[list], Any] | None:
    """A callable that runs ``concrete_function`` on its flat tensor inputs, or None.

    A ``ConcreteFunction`` called the public way binds and checks every argument against
    its signature: for a function that takes hundreds of variables that costs several
    microseconds per variable, more than the computation of a small model. Its private
    ``_call_flat`` takes the flat inputs (variable handles, then tensors) in the traced
    order and runs the graph, recording gradients as the public call does. The caller is
    responsible for passing exactly the inputs the function was traced with.
    """
    call_flat = getattr(concrete_function, "_call_flat", None)
    captured = getattr(concrete_function, "captured_inputs", None)
    if call_flat is None or captured is None:
        return None
    captured = list(captured)
    return lambda flat_inputs: call_flat(flat_inputs, captured)


def variable_handle(variable) -> tf.Tensor:
    """The resource handle of a Keras (or tf) variable: what a graph input receives."""
    value = getattr(variable, "value", variable)  # a Keras variable's backing tf.Variable
    return value.handle


def onednn_enabled() -> bool | None:
    """Whether this process's TensorFlow runs its oneDNN kernels on the CPU, or None where
    it cannot say. TensorFlow decides once, at import (on Linux: on for CPUs with
    neural-network instructions, unless ``TF_ENABLE_ONEDNN_OPTS`` says otherwise); no
    public API reports the decision. The serving benchmarks record it with their times."""
    try:
        from tensorflow.python.util import _pywrap_util_port
    except ImportError:
        return None
    enabled = getattr(_pywrap_util_port, "IsMklEnabled", None)
    return None if enabled is None else bool(enabled())


def flatten_layers(model: keras.Model) -> list:
    """Every layer inside ``model``, nested models' layers included, in a stable order."""
    flatten = getattr(model, "_flatten_layers", None)
    if flatten is not None:
        return list(flatten(include_self=False, recursive=True))
    return list(_walk_layers(model))


def _walk_layers(layer) -> Iterator:
    for child in getattr(layer, "layers", []):
        yield child
        yield from _walk_layers(child)


class AssignmentWatch:
    """Told the name of each attribute assigned on one layer (``assigned``, defined by a
    subclass), installed by ``watch_assignments``.

    Keras 3's ``Layer.__setattr__`` hands every assignment to the layer's
    ``_setattr_hook(name, value)`` first; an instance attribute of that name takes the
    class method's place for this layer alone, and the watch calls the hook it replaces."""

    __slots__ = ("_hook",)

    def assigned(self, name: str) -> None:
        raise NotImplementedError

    def __call__(self, name, value):
        self.assigned(name)
        return self._hook(name, value)


def watch_assignments(layer, make: Callable[[], AssignmentWatch]) -> AssignmentWatch | None:
    """The watch on ``layer``'s attribute assignments: the one installed before, or
    ``make()`` installed now; None where this Keras hands assignments to no hook."""
    current = vars(layer).get("_setattr_hook")
    if isinstance(current, AssignmentWatch):
        return current
    hook = getattr(layer, "_setattr_hook", None)
    if not callable(hook):
        return None
    watch = make()
    watch._hook = hook
    object.__setattr__(layer, "_setattr_hook", watch)  # not tracked by Keras
    return watch


def is_plain_functional(model: keras.Model) -> bool:
    """True for a model built as ``keras.Model(inputs, outputs)``, not a subclass of it.

    Keras gives such models its internal ``Functional`` class; a subclass that calls the
    functional constructor gets ``Functional`` as a base but keeps its own class.
    """
    cls = type(model)
    return cls.__name__ == "Functional" and cls.__module__.startswith("keras.")


def keras2_model_class(obj) -> str | None:
    """The qualified class name if ``obj`` is a Keras 2 (tf-keras) model, else None.

    Keras 2's models derive from ``Model`` in its ``engine`` package (``tf_keras.src.engine``,
    or ``keras.src.engine`` in TensorFlow 2.13-2.15's Keras); Keras 3 has no such package.
    """
    cls = type(obj)
    for base in cls.__mro__:
        root, _, rest = base.__module__.partition(".")
        if base.__name__ == "Model" and root in ("tf_keras", "keras") and "engine" in rest:
            return f"{cls.__module__}.{cls.__qualname__}"
    return None
