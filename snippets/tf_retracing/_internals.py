"""Every use of TensorFlow's and Keras's private APIs in ``tf_retracing``, in one place.

Nothing else in the package imports a private module or reads a private attribute. Each
function here says what it relies on and what it does when that is missing, so that a
TensorFlow or Keras release that moves something degrades a tool, never breaks a call.
"""

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


def is_plain_functional(model: keras.Model) -> bool:
    """True for a model built as ``keras.Model(inputs, outputs)``, not a subclass of it.

    Keras gives such models its internal ``Functional`` class; a subclass that calls the
    functional constructor gets ``Functional`` as a base but keeps its own class.
    """
    cls = type(model)
    return cls.__name__ == "Functional" and cls.__module__.startswith("keras.")
