"""The own route: a model served through its own traced function (or eagerly)."""

from __future__ import annotations

import threading
import weakref
from typing import Any

import keras
import tensorflow as tf

from tf_retracing import _internals

from .inputs import (
    _input_kind,
    _of_any_shape,
    _served_kind,
    _symbolic_inputs,
    _unflatten,
)
from .state_checks import (
    _adapted_normalizations,
    _recomputed,
    _stale_flags,
)


class _OwnFunction:
    """A model's own traced function: one concrete function per kind of input (its
    nesting, and each leaf's shape with the batch and the dimensions the model's Inputs
    leave free set to None, as on the shared route), capturing the model's variables and
    tables, called with its flat inputs. A ``tf.function``'s own dispatch (binding the
    arguments, finding the trace) costs about 100 microseconds a call, more than many
    models' whole computation; the call to a concrete function skips it."""

    def __init__(self, model: keras.Model, traces: list):
        self._model = weakref.ref(model)
        self._traces = traces
        self._input_shapes = [(None, *t.shape[1:]) for t in _symbolic_inputs(model)]
        self._callers: dict = {}
        self._exact_kinds: set = set()
        self._lock = threading.Lock()

    def __call__(self, x, held: list) -> tuple[Any, Any]:
        leaves, kind = _input_kind(x, self._input_shapes)
        kind = _served_kind(kind, leaves, self._exact_kinds)
        caller = self._callers.get(kind)
        if caller is None:
            caller = _of_any_shape(
                lambda kind: self._trace(kind, held),
                kind,
                leaves,
                self._exact_kinds,
                refused=Exception,  # Keras's own error, whatever its type
            )
        return caller([*leaves, *held])

    def _trace(self, kind, held: list):
        with self._lock:
            caller = self._callers.get(kind)
            if caller is not None:  # another thread traced it meanwhile
                return caller
            structure, leaf_kinds = kind
            model_ref, traces = self._model, self._traces

            def run(flat_x, held):  # pragma: no cover - runs while tracing
                return _call_own(model_ref, traces, _unflatten(structure, flat_x), held)

            concrete = tf.function(run).get_concrete_function(
                [tf.TensorSpec(shape, dtype) for shape, dtype in leaf_kinds],
                [tf.TensorSpec.from_tensor(tensor) for tensor in held],
            )
            caller = _internals.flat_caller(concrete) or _positional_caller(
                concrete, len(leaf_kinds)
            )
            self._callers[kind] = caller
            return caller


def _positional_caller(concrete, leaf_count: int):
    """Where TensorFlow offers no flat call: the public call, with the inputs regrouped."""
    return lambda flat: concrete(flat[:leaf_count], flat[leaf_count:])


def _call_own(model_ref, traces: list, x, held: list):  # pragma: no cover - while tracing
    traces[0] += 1
    model = model_ref()
    # Recomputed in the graph, the statistics follow the variables; read as they stand,
    # they would be captured as constants of this trace and never change again.
    layers = _adapted_normalizations(model)
    with _recomputed(layers):
        return model(x, training=False), _stale_flags(layers, held)


def _call_eagerly(model_ref, x, held: list):
    return model_ref()(x, training=False), None


def _variables(model: keras.Model) -> list:
    return [*model.trainable_variables, *model.non_trainable_variables]
