"""State checks: what a model holds beyond its variables, whether a clone carries it, and
whether the shared graph's outputs agree with the model's own."""

from __future__ import annotations

import functools
import threading
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tf_retracing import _internals

from .architecture_identity import (
    _canonical,
    _position_names,
)
from .inputs import (
    _symbolic_inputs,
    _unflatten,
)


class _recomputed:
    """Recompute adapted ``Normalization`` state from the variables the graph receives.

    ``Normalization.call`` reads ``mean`` and ``variance`` tensors that
    ``finalize_state()`` derives from its ``adapt_mean``/``adapt_variance`` variables.
    Inside the stateless scope those variables read as the served model's, so
    finalizing there makes the graph compute them from the served model's variables. The
    clone's own tensors are put back afterwards, so no graph tensor outlives the trace.
    """

    def __init__(self, layers: list):
        self.layers = layers

    def __enter__(self):
        self.saved = [(layer.mean, layer.variance) for layer in self.layers]
        for layer in self.layers:
            layer.finalize_state()

    def __exit__(self, *exc_info):
        for layer, (mean, variance) in zip(self.layers, self.saved, strict=False):
            layer.mean, layer.variance = mean, variance


def _adapted_normalizations(model: keras.Model) -> list:
    return [
        layer
        for layer in _internals.flatten_layers(model)
        if isinstance(layer, keras.layers.Normalization) and layer.input_mean is None
    ]


def _held_statistics(layers: list) -> list:
    """The mean and variance tensors each layer's call reads, as Keras holds them now."""
    return [tensor for layer in layers for tensor in (layer.mean, layer.variance)]


def _stale_flags(layers: list, held: list) -> tf.Tensor | None:
    """Inside a trace where ``_recomputed`` derived the layers' statistics from the
    variables: one flag per layer, true where the statistics Keras holds (``held``)
    differ. Comparing in the graph costs nothing per call, where reading a variable
    eagerly costs more than a small model's whole computation."""
    if not layers:
        return None
    flags = [
        tf.reduce_any(tf.not_equal(held[2 * i], layer.mean))
        | tf.reduce_any(tf.not_equal(held[2 * i + 1], layer.variance))
        for i, layer in enumerate(layers)
    ]
    return tf.stack(flags)


def _stale_message(model: keras.Model, layer) -> str:
    return (
        f"model {model.name!r}: layer {layer.name!r} (Normalization) holds a mean and "
        "variance that Keras derives from its adapt_mean and adapt_variance variables only "
        "in finalize_state(), which set_weights() and variable.assign() do not call: "
        "model(x) and model.predict() answer from the old statistics, while this "
        "predictor answers from the weights. Refresh the model with "
        f"finalize_state() on that layer (load_weights() does it)"
    )


def _unrecomputable_layer(model: keras.Model):
    """A layer with variables whose class derives state in ``finalize_state`` and is not
    one whose derivation the graph knows how to recompute, or None."""
    for layer in _internals.flatten_layers(model):
        derives = callable(getattr(type(layer), "finalize_state", None))
        if derives and layer.weights and not isinstance(layer, keras.layers.Normalization):
            return layer
    return None


def _unrecomputable_reason(layer) -> str:
    return (
        f"layer {layer.name!r} ({type(layer).__name__}) derives state from its variables "
        "in finalize_state(), which a shared graph cannot recompute"
    )


def _unrecomputable_message(model: keras.Model, layer) -> str:
    return (
        f"model {model.name!r}: layer {layer.name!r} ({type(layer).__name__}) derives "
        "state from its variables in finalize_state(), which set_weights() and "
        "variable.assign() do not call; the predictor serves the model's own call, which "
        "answers from that state as finalize_state() last left it. Call finalize_state() "
        "on that layer after changing its weights"
    )


# The reason _structural_reason gives for a subclass, which may still share a template.
_SUBCLASS = "subclass"
_TEMPLATE = "template:"


def _structural_reason(model: keras.Model) -> str | None:
    """Why the model cannot be served from a clone, from its classes and layers alone
    (``_SUBCLASS`` for a subclass of Sequential or Model)."""
    if not (type(model) is keras.Sequential or _internals.is_plain_functional(model)):
        return _SUBCLASS
    if not _symbolic_inputs(model):
        return "it has no symbolic inputs (build it with keras.Input)"
    return _layers_reason(model)


def _layers_reason(model: keras.Model) -> str | None:
    for layer in _internals.flatten_layers(model):
        reason = _layer_reason(layer)
        if reason is not None:
            return f"layer {layer.name!r} ({type(layer).__name__}) {reason}"
    return None


def _layer_reason(layer) -> str | None:
    if getattr(layer, "stateful", False) is True:
        return "is stateful: every call updates state that the shared graph would not"
    for name, value in vars(layer).items():
        if isinstance(value, tf.Variable | keras.Variable):
            continue
        if hasattr(value, "resource_handle"):  # lookup tables and other TF resources
            return (
                f"keeps state outside its variables ({name}: {type(value).__name__}), "
                "which a shared graph cannot take per model"
            )
    return None


@functools.cache
def _base_layer_attributes() -> frozenset:
    """What every Keras layer has. Made at first use, not at import: the explain command
    imports this module when the program first imports TensorFlow, which may be while
    Keras is still being imported (``import keras`` imports TensorFlow)."""
    return frozenset(vars(keras.layers.Layer()))


def _state_difference(model: keras.Model, clone: keras.Model) -> str | None:
    """A public, non-variable attribute of a layer that its clone does not share."""
    layers, clone_layers = _internals.flatten_layers(model), _internals.flatten_layers(clone)
    if [type(layer) for layer in layers] != [type(layer) for layer in clone_layers]:
        return "a clone built from its config has different layers"
    adapted = {id(layer) for layer in _adapted_normalizations(model)}
    # Layer names differ between instances (a nested model's output_names): compare them
    # by position, as the architecture key does.
    ours, its = _position_names(model), _position_names(clone)
    for layer, copy in zip(layers, clone_layers, strict=False):
        derived = {"mean", "variance"} if id(layer) in adapted else set()
        theirs = _public_state(copy)
        for name, value in _public_state(layer).items():
            if name in derived or name not in theirs:  # set after construction, by Keras
                continue
            if not _same_value(_canonical(value, ours), _canonical(theirs[name], its)):
                return (
                    f"layer {layer.name!r} ({type(layer).__name__}) has {name}="
                    f"{_short(value)}, but a clone built from its config has "
                    f"{_short(theirs[name])} (get_config leaves it out)"
                )
    return None


_MISSING = object()
_PLAIN = (bool, int, float, complex, str, type(None), np.ndarray, np.generic, tf.Tensor)


def _public_state(layer) -> dict:
    """The plain values a layer keeps in public attributes of its own."""
    return {
        name: value
        for name, value in vars(layer).items()
        if not name.startswith("_")
        and name not in _base_layer_attributes()
        and isinstance(value, (*_PLAIN, tuple, list))
        and all(isinstance(item, _PLAIN) for item in _items(value))
    }


def _items(value) -> list:
    return list(value) if isinstance(value, tuple | list) else [value]


def _same_value(a, b) -> bool:
    if b is _MISSING or isinstance(a, tuple | list) != isinstance(b, tuple | list):
        return False
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, np.ndarray | np.generic | tf.Tensor) or isinstance(
        b, np.ndarray | np.generic | tf.Tensor
    ):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.all(a == b))
    return type(a) is type(b) and a == b


def _short(value) -> str:
    if value is _MISSING:
        return "no such attribute"
    text = repr(np.asarray(value).tolist() if isinstance(value, tf.Tensor) else value)
    return text if len(text) <= 60 else text[:57] + "..."


# --8<-- [start:tolerances]
# Largest difference accepted between the shared graph and model(x), relative to the
# output's largest magnitude: a graph may fuse or reorder floating-point operations
# that eager execution runs one by one, but a state that was not carried shows up as a
# difference many orders of magnitude larger.
TOLERANCES = {"float16": 1e-2, "bfloat16": 3e-2, "float32": 1e-4, "float64": 1e-10}
# --8<-- [end:tolerances]


def _verification_mismatch(
    model: keras.Model,
    structure,
    leaves: list,
    shared,
    reference,
    own_graph,
    subject=None,
    perturb: bool = True,
) -> tuple[str | None, str | None, Any]:
    """Compare the shared graph (``shared``, on flat inputs) with the model's own call
    (``reference``, ``model(x, training=False)`` as the weights define it) on x and a
    probe: the mismatch, if any, and a note for a model whose graphs differ from its eager
    call only where NaN is. TensorFlow's graph kernels may turn NaN into a number (a
    MatMul fused with its Relu gives 0) where eager ones keep it, so there the model's own
    traced function (``own_graph``) is the reference: serving it instead would give the
    same answer. The three must read one ``_WeightsSnapshot``: an update landing between
    two of them would otherwise look like a graph that computes something else.
    ``subject`` names what is served in the note (the model, unless given).

    The perturbed probe catches a graph that holds something of the input it was traced
    on; ``perturb=False`` leaves it out where the same graph already passed it for this
    kind of input (a further tenant of an architecture: its weights are what differ).
    Also returns the shared graph's output on ``leaves``, checked: the request's answer."""
    note, answer = None, None
    for probe in (leaves, _perturbed(leaves)) if perturb else (leaves,):
        x = _unflatten(structure, probe)
        got, expected = shared(probe), reference(x)
        answer = got if answer is None else answer
        mismatch = _outputs_mismatch(got, expected)
        if mismatch is not None and _nan_positions_differ(got, expected):
            own_mismatch = _outputs_mismatch(got, own_graph(x))
            if own_mismatch is not None:
                own = f"its own traced function ({own_mismatch})"
                return f"the shared graph's output differs from {own}", None, None
            note = _eager_difference_note(subject or f"model {model.name!r}", got, expected)
            continue
        if mismatch is not None:
            return f"the shared graph's output differs from model(x) ({mismatch})", None, None
    return None, note, answer


def _nan_positions_differ(got: Any, expected: Any) -> bool:
    return any(
        np.asarray(g).shape == np.asarray(e).shape
        and np.issubdtype(np.asarray(e).dtype, np.floating)
        and not np.array_equal(np.isnan(np.asarray(g)), np.isnan(np.asarray(e)))
        for g, e in zip(tf.nest.flatten(got), tf.nest.flatten(expected), strict=False)
    )


def _eager_difference_note(subject: str, graph_output: Any, eager_output: Any) -> str:
    graph_nan = sum(int(np.isnan(np.asarray(o)).sum()) for o in tf.nest.flatten(graph_output))
    eager_nan = sum(int(np.isnan(np.asarray(o)).sum()) for o in tf.nest.flatten(eager_output))
    size = sum(int(np.asarray(o).size) for o in tf.nest.flatten(eager_output))
    return (
        f"{subject} gives NaN in {eager_nan} of {size} output values when called "
        f"eagerly and in {graph_nan} in a traced graph (TensorFlow's graph and eager kernels "
        "differ on NaN, e.g. through a fused Relu): it is served from the shared graph, which "
        "answers as its own tf.function does, not as model(x) does; check its weights for NaN"
    )


# One model at a time: the reference call briefly replaces a layer's derived statistics.
_REFERENCE_LOCK = threading.Lock()


def _weights_defined_output(model: keras.Model, x: Any, snapshot: _WeightsSnapshot) -> Any:
    """``model(x, training=False)`` on the snapshot's weights, with derived statistics
    recomputed from them (and put back after), so that a model whose Keras state is stale
    is still verified against what its weights define."""
    with (
        _REFERENCE_LOCK,
        keras.StatelessScope(state_mapping=snapshot.mapping()),
        _recomputed(_adapted_normalizations(model)),
    ):
        return model(x, training=False)


class _WeightsSnapshot:
    """A model's weights read once, for a check whose calls must all see the same ones.

    A ``set_weights`` in another thread between two calls of a check would make them
    disagree although the graph computes what the model computes. TensorFlow copies a
    variable's buffer on assignment while a tensor read from it is alive, so the values
    read here stay as they were. The eager reference reads them through a Keras
    ``StatelessScope`` (thread-local: other threads still write the model's variables);
    a graph that takes variable handles reads them from variables made for the check.
    """

    def __init__(self, variables: list, values: list | None = None):
        self.variables = variables
        self.values = values if values is not None else [_read(v) for v in variables]
        self._handles = None

    def mapping(self) -> list:
        return list(zip(self.variables, self.values, strict=True))

    def handles(self) -> list:
        """Handles of variables holding the snapshot, made on first need."""
        if self._handles is None:
            self._copies = [tf.Variable(value, trainable=False) for value in self.values]
            self._handles = [copy.handle for copy in self._copies]
        return self._handles


def _read(variable) -> tf.Tensor:
    """A variable's value now (a Keras variable's backing tf.Variable, read)."""
    return tf.convert_to_tensor(getattr(variable, "value", variable))


def _traced_on_snapshot(model: keras.Model, snapshot: _WeightsSnapshot, traces: list):
    """The model's own call traced once (not kept) with its variables read from the
    snapshot's values, passed as arguments: the reference where graph and eager kernels
    differ on NaN, consistent with the other calls of the check."""
    layers = _adapted_normalizations(model)
    variables = snapshot.variables

    @tf.function
    def run(values, x):  # pragma: no cover - runs while tracing
        traces[0] += 1
        mapping = list(zip(variables, values, strict=True))
        with keras.StatelessScope(state_mapping=mapping), _recomputed(layers):
            return model(x, training=False)

    return lambda x: run(snapshot.values, x)


def _outputs_mismatch(got: Any, expected: Any) -> str | None:
    try:
        tf.nest.assert_same_structure(got, expected)
    except (TypeError, ValueError):
        return "the output structure differs"
    for g, e in zip(tf.nest.flatten(got), tf.nest.flatten(expected), strict=False):
        g, e = np.asarray(g), np.asarray(e)
        if g.shape != e.shape or g.dtype != e.dtype:
            return f"shape or dtype differs: {g.shape} {g.dtype} against {e.shape} {e.dtype}"
        tolerance = TOLERANCES.get(str(tf.as_dtype(e.dtype).name))
        if tolerance is None:
            if not np.array_equal(g, e):
                return "a non-floating output differs"
            continue
        g64, e64 = g.astype(np.float64), e.astype(np.float64)
        # Relative to the output's own scale, however small: a softmax over a thousand
        # classes is about 1e-3 everywhere, and a floor of 1 would let a wrong graph pass.
        scale = max(float(np.max(np.abs(e64), initial=0.0)), float(np.finfo(e.dtype).tiny))
        error = float(np.max(np.abs(g64 - e64), initial=0.0)) / scale
        if not error <= tolerance:  # also true for NaN where the model has none
            if np.array_equal(np.isnan(g64), np.isnan(e64)) and np.isnan(error):
                continue
            return f"largest difference {error:.3g} of the output's scale, tolerance {tolerance:g}"
    return None


def _perturbed(leaves: list) -> list:
    """The inputs with seeded noise on floating-point ones, and rows rotated otherwise."""
    rng = np.random.default_rng(0)
    probe = []
    for leaf in leaves:
        array = leaf.numpy()
        if leaf.dtype.is_floating:
            noise = rng.standard_normal(array.shape) * (float(np.std(array)) or 1.0)
            array = array + noise
        elif array.ndim:
            array = np.roll(array, 1, axis=0)
        probe.append(tf.constant(array, dtype=leaf.dtype))
    return probe
