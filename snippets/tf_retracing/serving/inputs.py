"""What a model takes: the input checks, kinds of input and their flattening."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tf_retracing import _internals

# Why the predictor cannot serve a Keras 2 model, in the one sentence both errors give.
_KERAS3_REASON = (
    "it passes each model's weights to one shared graph as Keras 3 variables "
    "(keras.Variable), which Keras 2 models do not have"
)


def _require_keras3() -> None:
    major = keras.__version__.split(".")[0]
    if major.isdigit() and int(major) < 3:
        raise RuntimeError(
            f"SharedGraphPredictor needs Keras 3 and the installed keras is "
            f"{keras.__version__} (TensorFlow 2.15 and older come with Keras 2): {_KERAS3_REASON}"
        )


def _check_model(model: Any) -> None:
    if not isinstance(model, keras.Model):
        legacy = _internals.keras2_model_class(model)
        if legacy is not None:
            name = getattr(model, "name", "?")
            raise TypeError(
                f"SharedGraphPredictor needs a Keras 3 model, and model {name!r} is a "
                f"Keras 2 model ({legacy}, from tf-keras or TF_USE_LEGACY_KERAS=1): "
                f"{_KERAS3_REASON}; build or load it with Keras 3's `keras`"
            )
        raise TypeError(
            f"expected a Keras model, got {type(model).__name__} "
            "(a tenant held as weights is served once add_weights has been given it)"
        )
    if not model.built:
        raise ValueError(
            f"model {model.name!r} is not built: give it an Input or call it once on data"
        )


def _symbolic_inputs(model: keras.Model) -> list:
    """The model's Input tensors, flat, or [] for a model that has none."""
    try:
        return list(getattr(model, "inputs", None) or [])
    except (AttributeError, ValueError):
        return []


def _input_kind(x: Any, input_shapes: list) -> tuple[list, tuple]:
    """x as flat tensors, and its kind: its nesting, then each leaf's shape and dtype.

    The batch dimension is None in every kind, and so is any dimension the model's Input
    leaves free (a sequence length), so inputs that differ only there share one graph
    and one verification.
    """
    structure, values = _flatten(x)
    leaves = [_as_tensor(value) for value in values]
    if len(leaves) != len(input_shapes):
        input_shapes = [None] * len(leaves)
    kinds = tuple(
        (_trace_shape(leaf.shape, model_shape), leaf.dtype)
        for leaf, model_shape in zip(leaves, input_shapes, strict=False)
    )
    return leaves, (structure, kinds)


def _served_kind(kind: tuple, leaves: list, exact_kinds: set) -> tuple:
    """The kind a call is served under: its exact shapes if ``kind`` is in ``exact_kinds``.
    The set, usually empty, is tested first, so that the kind is hashed once per call."""
    if exact_kinds and kind in exact_kinds:
        return _exact_kind(kind, leaves)
    return kind


def _of_any_shape(trace, kind: tuple, leaves: list, exact_kinds: set, refused: type):
    """``trace(kind)``; where the model's call cannot be traced with the dimensions the
    kind leaves free (it raises ``refused``), ``trace`` of this input's exact shapes, and
    ``kind`` joins ``exact_kinds``. An input the call refuses either way raises its error."""
    try:
        return trace(kind)
    except refused:
        exact = _exact_kind(kind, leaves)
        if exact == kind:
            raise
        traced = trace(exact)
        exact_kinds.add(kind)
        return traced


def _exact_kind(kind: tuple, leaves: list) -> tuple:
    """``kind`` with every dimension of every leaf as this input has it."""
    structure, leaf_kinds = kind
    exact = tuple(
        (tuple(leaf.shape), dtype) for leaf, (_, dtype) in zip(leaves, leaf_kinds, strict=True)
    )
    return structure, exact


def _trace_shape(shape: tf.TensorShape, model_shape: tuple | None) -> tuple:
    dims = tuple(shape)
    if not dims:
        return ()
    if model_shape is not None and tf.TensorShape(model_shape).is_compatible_with(shape):
        dims = tuple(
            None if free is None else dim for dim, free in zip(dims, model_shape, strict=False)
        )
    return (None, *dims[1:])


# Inputs that model(x) may take but one dense graph cannot: the shared graph's kinds and
# its check are dense shapes and dtypes, and converting these would fail or densify them.
_NOT_DENSE = {
    tf.SparseTensor: "tf.sparse.to_dense(x)",
    tf.RaggedTensor: "x.to_tensor()",
}


def _not_dense_reason(value: Any) -> str | None:
    """Why ``value`` cannot be served, for a sparse or ragged tensor; else None."""
    for kind, densify in _NOT_DENSE.items():
        if isinstance(value, kind):
            return (
                f"a {kind.__name__} is not served: the shared graph takes dense tensors only; "
                f"pass {densify} where the model takes dense inputs, or call the model "
                "itself for this input"
            )
    return None


def _refuse_if_not_dense(x: Any, opening: Any) -> None:
    """Raise ValueError, opening with ``opening()`` (the model and the input), when ``x``
    holds a sparse or ragged tensor: before a model is admitted, so that no fallback
    warning blames the model for what is the input's."""
    for value in _flatten(x)[1]:
        reason = _not_dense_reason(value)
        if reason is not None:
            raise ValueError(f"{opening()}: {reason}")


def _as_tensor(value: Any) -> tf.Tensor:
    if isinstance(value, tf.Tensor):
        return value
    try:
        return tf.convert_to_tensor(value)
    except (TypeError, ValueError) as error:
        # Asked only on failure, off the per-call path: TensorFlow refuses to convert a
        # sparse or ragged tensor, and the reason says what to pass instead.
        reason = _not_dense_reason(value)
        message = reason or f"cannot use {type(value).__name__} as a model input: {error}"
        raise ValueError(message) from error


def _flatten(x: Any) -> tuple[Any, list]:
    """x's nesting (hashable: dict keys, sequence lengths) and its leaves in order.

    A list of numbers, nested or not, is one leaf: it becomes one tensor, as in Keras.
    """
    if isinstance(x, dict):
        keys = sorted(x)
        parts = [_flatten(x[key]) for key in keys]
        nesting = ("dict", tuple((key, part[0]) for key, part in zip(keys, parts, strict=False)))
        return nesting, [leaf for part in parts for leaf in part[1]]
    if isinstance(x, list | tuple) and not _is_numbers(x):
        parts = [_flatten(item) for item in x]
        nesting = (type(x).__name__, tuple(part[0] for part in parts))
        return nesting, [leaf for part in parts for leaf in part[1]]
    return "leaf", [x]


def _is_numbers(x: Any) -> bool:
    if isinstance(x, list | tuple):
        return all(_is_numbers(item) for item in x)
    return isinstance(x, int | float | bool | np.number)


def _unflatten(structure: Any, flat: list) -> Any:
    """Rebuild the caller's nesting of x inside the graph, for Keras to standardize."""
    iterator = iter(flat)

    def build(node):
        if node == "leaf":
            return next(iterator)
        kind, children = node
        if kind == "dict":
            return {key: build(child) for key, child in children}
        items = [build(child) for child in children]
        return tuple(items) if kind == "tuple" else items

    return build(structure)


def _check_fits(model: keras.Model, leaves: list) -> None:
    """Refuse, before any tracing, inputs whose shape or kind the model's Inputs exclude."""
    inputs = _symbolic_inputs(model)
    if len(inputs) != len(leaves):
        return  # Keras may still map them (a dict by name): the trace decides
    for leaf, expected in zip(leaves, inputs, strict=False):
        shape = (None, *expected.shape[1:])
        strings = (leaf.dtype == tf.string, tf.as_dtype(expected.dtype) == tf.string)
        fits = len(shape) != leaf.shape.rank or tf.TensorShape(shape).is_compatible_with(leaf.shape)
        if not fits or strings[0] != strings[1]:
            raise ValueError(
                f"model {model.name!r} expects inputs like {_describe_inputs(model)}; "
                f"got {_describe_leaves(leaves)}"
            )


def _describe_inputs(model: keras.Model) -> str:
    inputs = _symbolic_inputs(model)
    if not inputs:
        return "what its call accepts: it has no keras.Input to describe"
    return ", ".join(f"{(None, *t.shape[1:])} {tf.as_dtype(t.dtype).name}" for t in inputs)


def _input_mismatch(model: keras.Model, x: Any) -> str:
    """The opening of an error raised while serving: the model, the input, what it expects."""
    try:
        got = _describe_leaves([_as_tensor(value) for value in _flatten(x)[1]])
    except ValueError:
        got = type(x).__name__
    return (
        f"model {model.name!r} failed on an input of {got} (it expects {_describe_inputs(model)})"
    )


def _describe_leaves(leaves: list) -> str:
    return ", ".join(f"{tuple(leaf.shape)} {leaf.dtype.name}" for leaf in leaves)
