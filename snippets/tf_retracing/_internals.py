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


# --- The retrace explainer (tf_retracing.explainer) ----------------------------------
# The explainer watches a tf.function by subclassing TensorFlow's Function and its trace
# cache, and reads the call's trace type from the frame of TensorFlow's tracing step.
# Everything it needs from TensorFlow's private modules is imported here; an import that
# fails leaves EXPLAINER_ERROR set and the package falls back to public trace counts.

EXPLAINER_ERROR: str | None = None
try:
    from tensorflow.core.function.polymorphism.function_cache import (  # noqa: F401
        FunctionCache,
        FunctionContext,
    )
    from tensorflow.core.function.trace_type import default_types  # noqa: F401
    from tensorflow.python.eager.polymorphic_function import tracing_compilation
    from tensorflow.python.eager.polymorphic_function.concrete_function import (  # noqa: F401
        ConcreteFunction,
    )
    from tensorflow.python.eager.polymorphic_function.polymorphic_function import (  # noqa: F401
        Function as PolymorphicFunction,
    )
    from tensorflow.python.util.tf_decorator import make_decorator  # noqa: F401

    # The frame of TensorFlow's tracing step: its locals hold the call's trace type.
    TRACING_CODE = tracing_compilation._maybe_define_function.__code__
    SCOPE_TYPES = tracing_compilation.ScopeType
except (ImportError, AttributeError) as error:  # a TensorFlow that moved them
    EXPLAINER_ERROR = f"{type(error).__name__}: {error}"


def tracing_locals(frame) -> dict | None:
    """From TensorFlow's tracing frame: the cache, function types and context, by name."""
    names = ("tracing_options", "lookup_func_type", "target_func_type", "current_func_context")
    local = frame.f_locals
    if not all(name in local for name in names):
        return None
    options = local["tracing_options"]
    return {
        "cache": options.function_cache,
        "polymorphic_type": options.polymorphic_type,
        "call_type": local["lookup_func_type"],
        "traced_type": local["target_func_type"],
        "context": local["current_func_context"],
    }


def function_options(function) -> dict:
    """The constructor options of an existing tf.function, to make a watched copy."""
    return {
        "name": function._name,
        "input_signature": function.input_signature,
        "autograph": function._autograph,
        "jit_compile": function._jit_compile,
        "reduce_retracing": function._reduce_retracing,
        "experimental_attributes": function._attributes,
        "experimental_autograph_options": function._experimental_autograph_options,
    }


def copy_rendezvous(source, target) -> None:
    """Share the gradient-registry rendezvous of ``source`` with its watched copy."""
    target._shared_rendezvous = source._shared_rendezvous


def function_cache(function):
    return function._function_cache


def set_function_cache(function, cache) -> None:
    function._function_cache = cache


def call_stats_key(function):
    """The Python code TensorFlow counts calls of, for its retracing warning."""
    return function._key_for_call_stats


def weakref_target(trace_type):
    """The object a Weakref trace type refers to (None once it was collected)."""
    return trace_type._ref()
