"""One traced graph for every Keras model of the same architecture, checked against each
model's own call when the model is first served.

``SharedGraphPredictor.predict(model, x)`` returns the output of the model as its weights
define it: what ``model(x, training=False)`` returns, except where Keras's own call reads
state it derived from older weights (an adapted ``Normalization`` after ``set_weights``),
which a ``StaleKerasStateWarning`` names. A model takes one of two routes, decided at its
first use:

- **shared**: a plain ``Sequential`` or functional model whose state all lives in its
  variables (or is derived from them in a way the graph recomputes, as an adapted
  ``Normalization``'s mean and variance). Models of one architecture share one concrete
  function, traced on a clone with the variables as arguments. A subclass of ``Model``,
  whose call its config does not describe, shares the graph of its template, the first
  model of its class with the same variables, once the graph its own call traces (one
  trace, not kept) is the template's, operation for operation and constant for constant.
  Before a model is served from a shared graph, its output is compared with
  ``model(x, training=False)`` on the caller's input and on a perturbed copy of it.
- **own**: everything else (layers with lookup tables or other state outside their
  variables, stateful RNNs, clones or subclasses that do not compute what the model
  computes) is served through a function traced on the model itself, one concrete
  function per kind of input with the model's variables and tables captured (or, for a
  layer that derives state from its variables in a ``finalize_state`` the graph cannot
  recompute, through the model's own eager call). A ``ServingFallbackWarning`` names the model and
  the reason; ``strict=True`` raises ``UnsharableModelError`` instead.

Inputs of one kind (nesting, dtypes, and shapes but for the batch and the dimensions the
model's Inputs leave free) share one graph; a model whose call needs those dimensions while
tracing (a reshape to ``x.shape[0]``) gets one graph per exact input shape instead.

What is followed from call to call: every variable's value (``set_weights``,
``variable.assign``, ``load_weights``, an optimizer's steps) and the ``Normalization``
statistics derived from them. What is not: a change to a model's Python structure after
its first call for a kind of input (a layer's ``activation`` swapped, a sub-layer replaced),
as Keras's own ``predict`` does not follow it either; call ``forget(model)`` after such a
change and the next call checks the model again.

How the benchmark scenarios measure it, with public names only: ``weight_cache`` serves N
models of one small architecture (traces, steady latency against a dedicated
``tf.function`` per model and the weight-swapping cache, memory, wrong outputs under
threads); ``serving_architectures`` does the same per ``keras.applications``
architecture and per MLP depth, with ``predict_on_batch`` and each dedicated function's
concrete function (its graph without ``tf.function``'s lookup) beside them, and
``serving_without_onednn`` repeats it with TensorFlow's oneDNN kernels switched off.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import threading
import warnings
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tf_retracing import _internals

__all__ = [
    "EagerDifferenceWarning",
    "ServingFallbackWarning",
    "SharedGraphPredictor",
    "StaleKerasStateWarning",
    "UnsharableModelError",
    "architecture_key",
]


class ServingFallbackWarning(UserWarning):
    """A model is served through its own traced function instead of the shared graph."""


class StaleKerasStateWarning(UserWarning):
    """A model's own call answers from state Keras derived from older weights."""


class EagerDifferenceWarning(UserWarning):
    """A model's traced graphs (the shared one and its own) agree with each other but not
    with its eager call: TensorFlow's graph and eager kernels differ on NaN."""


class UnsharableModelError(TypeError):
    """Raised, with ``strict=True``, for a model the shared graph cannot serve."""


@dataclass
class _Served:
    """What the predictor remembers about a live model: never the model itself."""

    key: str | None  # the architecture key, None on the own route
    input_shapes: list = field(default_factory=list)  # its Input shapes, batch None
    handles: list = field(default_factory=list)  # its variables' handles, graph order
    graphs: dict = field(default_factory=dict)  # input kind -> graph verified for it
    # Kinds whose call needs the dimensions they leave free (a reshape to x.shape[0]):
    # served with each input's exact shapes instead, one graph per shape.
    exact_kinds: set = field(default_factory=set)
    own: Any = None  # the model's own traced function (or eager call), on the own route
    reason: str | None = None  # why it takes the own route
    # Adapted Normalization layers, whose Keras-held statistics every call sends to the
    # graph to be compared with what the variables give.
    normalizations: list = field(default_factory=list)
    stale_warned: bool = False  # a StaleKerasStateWarning was given for the model


class SharedGraphPredictor:
    """Predict with many Keras models through one trace per architecture.

    Thread-safe: the lock guards only the bookkeeping (finding, tracing or dropping an
    architecture), never a computation. Models are held through weak references; at most
    ``max_architectures`` architectures are kept, least recently used dropped first.
    """

    def __init__(self, max_architectures: int = 16, *, strict: bool = False):
        if isinstance(max_architectures, bool) or not isinstance(max_architectures, int):
            raise TypeError(f"max_architectures must be an int, got {max_architectures!r}")
        if max_architectures < 1:
            raise ValueError(f"max_architectures must be at least 1, got {max_architectures}")
        _require_keras3()
        self.max_architectures = max_architectures
        self.strict = strict
        self._architectures: OrderedDict[str, _Architecture] = OrderedDict()
        self._served: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()
        self._traces = [0]  # a list, so traced functions can count without holding self

    def predict(self, model: keras.Model, x: Any) -> Any:
        """Return the output of ``model`` on ``x`` as its weights define it, computed in
        the graph shared by the model's architecture (verified against the model's own
        call on its first call for each kind of input) or, where the graph cannot serve
        it, by the model's own traced function, with one ``ServingFallbackWarning`` per
        model. That is what ``model(x, training=False)`` returns, except where Keras's
        call answers from state derived from older weights (an adapted ``Normalization``
        after ``set_weights``): one ``StaleKerasStateWarning`` per model says so; and
        except after a change to the model's Python structure since its first call for
        this kind of input (a layer's ``activation`` reassigned, a sub-layer replaced),
        which is not seen: the graph chosen then keeps answering, without a warning, until
        ``forget(model)``.

        Raises ``TypeError`` for something that is not a Keras 3 model (a Keras 2 model is
        named as such), ``ValueError`` for a model that is not built or an input the model
        does not accept (naming the model, the input and what it expects; an error
        TensorFlow raises while running the graph keeps its type and gains the same
        names), and ``UnsharableModelError`` instead of falling back when
        ``strict=True``."""
        served = self._served.get(model) if isinstance(model, keras.Model) else None
        if served is None:
            served = self._admit(model)
        try:
            outputs, stale = self._serve(model, served, x)
        except tf.errors.OpError as error:
            message = f"{_input_mismatch(model, x)}: {error.message}"
            raise type(error)(error.node_def, error.op, message) from error
        except (TypeError, ValueError) as error:
            if str(error).startswith(f"model {model.name!r}"):
                raise  # already names the model and the input
            raise ValueError(f"{_input_mismatch(model, x)}: {error}") from error
        if stale is not None and not served.stale_warned:
            self._warn_if_stale(model, served, stale)
        return outputs

    def forget(self, model: keras.Model) -> None:
        """Drop what the predictor knows about ``model``: its next call checks it again.

        Call it after changing a served model's structure (a layer's ``activation``,
        a replaced sub-layer): changes to its weights need nothing."""
        with self._lock:
            self._served.pop(model, None)

    def _serve(self, model: keras.Model, served: _Served, x: Any) -> tuple[Any, Any]:
        """The outputs, and per adapted Normalization whether Keras's statistics are stale
        (None where the route cannot tell)."""
        held = _held_statistics(served.normalizations)
        if served.own is not None:
            return served.own(x, held)
        leaves, kind = _input_kind(x, served.input_shapes)
        kind = _served_kind(kind, leaves, served.exact_kinds)
        graph = served.graphs.get(kind)
        if graph is None:
            graph = _of_any_shape(
                lambda kind: self._verified_graph(model, served, leaves, kind),
                kind,
                leaves,
                served.exact_kinds,
                refused=ValueError,  # what the shared route raises for an untraceable call
            )
            if graph is None:  # verification moved the model to its own route
                return served.own(x, held)
        else:
            self._touch(served.key)
        return graph.call(served.handles, leaves, held)

    def _warn_if_stale(self, model: keras.Model, served: _Served, stale) -> None:
        """Warn once per model when Keras's own call answers from older weights."""
        flags = np.asarray(stale)
        if flags.any():
            layer = served.normalizations[int(np.flatnonzero(flags)[0])]
            served.stale_warned = True
            _warn_at_caller(_stale_message(model, layer), StaleKerasStateWarning)

    @property
    def tracing_count(self) -> int:
        """Traces made so far, shared graphs and models' own functions together."""
        return self._traces[0]

    @property
    def architecture_count(self) -> int:
        return len(self._architectures)

    def fallback_reason(self, model: keras.Model) -> str | None:
        """Why a served model takes its own route, or None if it uses the shared graph."""
        served = self._served.get(model)
        if served is None:
            raise KeyError(f"model {getattr(model, 'name', model)!r} has not been served yet")
        return served.reason

    def _touch(self, key: str) -> None:
        """Mark an architecture as recently used (atomic; it may have just been dropped)."""
        with contextlib.suppress(KeyError):
            self._architectures.move_to_end(key)

    def _admit(self, model: Any) -> _Served:
        """First sight of a model: check it and choose its route."""
        _check_model(model)
        unrecomputable = _unrecomputable_layer(model)
        if unrecomputable is None:
            served = self._route(model)
        else:
            served = self._own_route(model, _unrecomputable_reason(unrecomputable), eager=True)
            _warn_at_caller(_unrecomputable_message(model, unrecomputable), StaleKerasStateWarning)
        with self._lock:
            self._served[model] = served
        return served

    def _route(self, model: keras.Model) -> _Served:
        """A shared graph for the model's architecture (or its class's template) when one
        can serve it, else its own traced function."""
        reason = _structural_reason(model)
        served = None
        if reason is _SUBCLASS:
            # A subclass's call is not described by its config: it may share the graph of
            # the first model of its class with the same variables (its template) if its
            # own traced graph is the same, which the first call of each input kind checks.
            reason = _layers_reason(model)
            key = None if reason is not None else _template_key(model)
        elif reason is None:
            key = architecture_key(model)
        if reason is None:
            architecture, reason = self._architecture(key, model)
            if reason is None:
                reason = architecture.state_difference(model)
            if reason is None:
                handles = [_internals.variable_handle(v) for v in _variables(model)]
                shapes = [(None, *t.shape[1:]) for t in _symbolic_inputs(model)]
                served = _Served(key=key, input_shapes=shapes, handles=handles)
        if served is None:
            served = self._own_route(model, reason)
        served.normalizations = _adapted_normalizations(model)
        return served

    def _verified_graph(self, model, served: _Served, leaves, kind) -> _Graph | None:
        """The architecture's graph for this input kind, once its output matched."""
        _check_fits(model, leaves)
        with self._lock:
            # Traced again if it was dropped as least recently used since.
            architecture, mismatch = self._architecture(served.key, model)
            if mismatch is None:
                graph = architecture.graph(kind, leaves, model, self._traces)
                mismatch = architecture.graph_difference(kind, leaves, model, self._traces)
        if mismatch is None:
            held = _held_statistics(served.normalizations)
            # Traced only where the eager call and the graph differ on NaN, and once.
            own_function = functools.cache(lambda: _OwnFunction(model, self._traces))
            mismatch, eager_note = _verification_mismatch(
                model,
                kind[0],
                leaves,
                lambda probe: graph.call(served.handles, probe, held)[0],
                lambda x: own_function()(x, held)[0],
            )
            if eager_note is not None:
                _warn_at_caller(eager_note, EagerDifferenceWarning)
        if mismatch is not None:
            own = self._own_route(model, mismatch)
            served.own, served.reason, served.handles = own.own, own.reason, []
            return None
        served.graphs[kind] = graph
        return graph

    def _architecture(self, key: str, model: keras.Model) -> tuple[_Architecture, str | None]:
        with self._lock:
            architecture = self._architectures.get(key)
            if architecture is not None:
                self._architectures.move_to_end(key)
                return architecture, None
            if key.startswith(_TEMPLATE):
                architecture, reason = _Architecture.of_template(model), None
            else:
                architecture, reason = _Architecture.build(model, key)
            if reason is not None:
                return architecture, reason
            self._architectures[key] = architecture
            if len(self._architectures) > self.max_architectures:
                dropped, _ = self._architectures.popitem(last=False)
                for served in list(self._served.values()):
                    if served.key == dropped:
                        served.graphs.clear()  # verified again on the next architecture
            return architecture, None

    def _own_route(self, model: keras.Model, reason: str, *, eager: bool = False) -> _Served:
        message = f"model {model.name!r} cannot share a graph: {reason}"
        if self.strict:
            raise UnsharableModelError(message)
        how = "its own call" if eager else "its own traced function"
        _warn_at_caller(f"{message}; it is served through {how} instead", ServingFallbackWarning)
        if eager:
            own = functools.partial(_call_eagerly, weakref.ref(model))
        else:
            own = _OwnFunction(model, self._traces)
        return _Served(key=None, own=own, reason=reason)


def _warn_at_caller(message: str, category: type[Warning]) -> None:
    """Warn at the reader's call of ``predict``: the first frame outside this module,
    however many of the predictor's own functions the path went through."""
    frame, level = inspect.currentframe().f_back, 2
    while frame is not None and frame.f_code.co_filename == __file__:
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


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


@dataclass
class _Graph:
    """One concrete function of an architecture, for one kind of input."""

    concrete: Any
    fast_call: Any  # flat inputs -> outputs, or None where TensorFlow offers no such call
    trainable_count: int

    @functools.cached_property
    def signature(self) -> list:
        """What the graph computes, without names (``_graph_signature``), computed once."""
        return _graph_signature(self.concrete.graph)

    def call(self, handles: list, leaves: list, held: list) -> tuple[Any, Any]:
        """The outputs and the stale flags, for a model's variable handles, the input's
        flat leaves and the statistics its Normalization layers hold."""
        if self.fast_call is not None:
            return self.fast_call([*handles, *leaves, *held])
        count = self.trainable_count
        return self.concrete(handles[:count], handles[count:], leaves, held)


@dataclass
class _Architecture:
    """A clone of one architecture, and its concrete functions by kind of input."""

    clone: keras.Model | None  # None for a subclass: see template_ref
    graphs: dict = field(default_factory=dict)
    template: bool = False
    # For a subclass, its template: the first model of its class with these variables,
    # held weakly so that dropping every model of the class frees them all. Once it is
    # gone, the model at hand traces the input kinds not traced yet (it takes its place).
    template_ref: weakref.ref | None = None

    @staticmethod
    def of_template(model: keras.Model) -> _Architecture:
        return _Architecture(clone=None, template=True, template_ref=weakref.ref(model))

    def tracer(self, model: keras.Model) -> keras.Model:
        """The model whose call is traced: the clone, or the template while it lives."""
        if not self.template:
            return self.clone
        return self.template_ref() or model

    @staticmethod
    def build(model: keras.Model, key: str) -> tuple[_Architecture | None, str | None]:
        try:
            clone = keras.models.clone_model(model)
        except Exception as error:  # any failure means: not rebuildable from its config
            return None, f"it cannot be rebuilt from its config ({type(error).__name__}: {error})"
        # A cloned Sequential takes the global dtype policy, not the model's: copy it over.
        clone.dtype_policy = model.dtype_policy
        if architecture_key(clone) != key:
            return None, "a clone built from its config has a different config or weights"
        return _Architecture(clone=clone), None

    def state_difference(self, model: keras.Model) -> str | None:
        """Name a layer whose state the clone's config does not reproduce, if any."""
        if self.template:
            return None  # a subclass's state is compared through its traced graph
        return _state_difference(model, self.clone)

    def graph_difference(self, kind, leaves: list, model: keras.Model, traces: list):
        """For a subclass that is not the template: why the graph its own call traces
        differs from the template's, or None. Costs the model one trace, not kept."""
        if not self.template:
            return None
        reference = self.graph(kind, leaves, model, traces)
        template = self.template_ref()
        if model is template:
            return None
        own = _Architecture.of_template(model)._trace(kind, leaves, model, traces)
        if own.signature != reference.signature:
            named = f"{template.name!r}, " if template is not None else ""
            return (
                f"its call traces another graph than {named}the first model of its class "
                f"{type(model).__qualname__} with the same variables"
            )
        if template is None:  # the template is gone: this model, checked, takes its place
            self.template_ref = weakref.ref(model)
        return None

    def graph(self, kind, leaves: list, model: keras.Model, traces: list) -> _Graph:
        """The concrete function for this input kind, traced on first need."""
        graph = self.graphs.get(kind)
        if graph is None:
            graph = self._trace(kind, leaves, model, traces)
            self.graphs[kind] = graph
        return graph

    def _trace(self, kind, leaves: list, model: keras.Model, traces: list) -> _Graph:
        structure, leaf_kinds = kind
        specs = [tf.TensorSpec(shape, dtype) for shape, dtype in leaf_kinds]
        clone = self.tracer(model)
        normalizations = _adapted_normalizations(clone)

        def run(trainable, non_trainable, flat_x, held):  # pragma: no cover - AutoGraph's
            traces[0] += 1
            mapping = [
                *zip(clone.trainable_variables, trainable, strict=False),
                *zip(clone.non_trainable_variables, non_trainable, strict=False),
            ]
            with keras.StatelessScope(state_mapping=mapping), _recomputed(normalizations):
                outputs = clone(_unflatten(structure, flat_x), training=False)
                return outputs, _stale_flags(normalizations, held)

        trainable = [v.value for v in clone.trainable_variables]
        non_trainable = [v.value for v in clone.non_trainable_variables]
        held_specs = [tf.TensorSpec.from_tensor(t) for t in _held_statistics(normalizations)]
        try:
            concrete = tf.function(run).get_concrete_function(
                trainable, non_trainable, specs, held_specs
            )
        except Exception as error:  # Keras refused this input while tracing
            raise ValueError(
                f"model {model.name!r} expects inputs like {_describe_inputs(model)}; "
                f"got {_describe_leaves(leaves)}: {error}"
            ) from error
        return _Graph(concrete, _internals.flat_caller(concrete), len(trainable))


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


def _template_key(model: keras.Model) -> str:
    """What two models of one subclass must share to share a template: the class, and the
    shape, dtype and name of every variable in order."""
    variables = [
        (list(v.shape), str(v.dtype), v.path.rsplit("/", 1)[-1])
        for group in (model.trainable_variables, model.non_trainable_variables)
        for v in group
    ]
    return _TEMPLATE + json.dumps(
        [f"{type(model).__module__}.{type(model).__qualname__}", variables]
    )


# Attributes that hold a name or a place, not what an operation computes.
_NAME_ATTRIBUTES = frozenset({"_class", "shared_name", "container", "_read_only_resource_inputs"})


def _graph_signature(graph) -> list:
    """What a traced graph computes, without its names: each operation's type, its inputs
    as (operation position, output index) and its attributes (constants' values
    included), in order. Two models whose calls trace the same signature with their
    variables as the same arguments compute the same function of them."""
    position = {op.name: i for i, op in enumerate(graph.get_operations())}
    signature = []
    for op in graph.get_operations():
        attributes = sorted(
            (key, value.SerializeToString(deterministic=True))
            for key, value in op.node_def.attr.items()
            if key not in _NAME_ATTRIBUTES
        )
        inputs = [(position[t.op.name], t.value_index) for t in op.inputs]
        signature.append((op.type, inputs, attributes))
    return signature


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


def _position_names(model: keras.Model) -> dict[str, str]:
    return _renames(model.get_config())


def _renames(config: dict) -> dict[str, str]:
    """Each layer name of a config -> its position, the same in every instance."""
    return {name: f"layer_{i}" for i, name in enumerate(_layer_names(config))}


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
    model: keras.Model, structure, leaves: list, shared, own_graph
) -> tuple[str | None, str | None]:
    """Compare the shared graph with ``model(x, training=False)`` on x and a probe: the
    mismatch, if any, and a note for a model whose graphs differ from its eager call only
    where NaN is. TensorFlow's graph kernels may turn NaN into a number (a MatMul fused
    with its Relu gives 0) where eager ones keep it, so there the model's own traced
    function is the reference: serving it instead would give the same answer."""
    note = None
    for probe in (leaves, _perturbed(leaves)):
        x = _unflatten(structure, probe)
        got, expected = shared(probe), _weights_defined_output(model, x)
        mismatch = _outputs_mismatch(got, expected)
        if mismatch is not None and _nan_positions_differ(got, expected):
            own_mismatch = _outputs_mismatch(got, own_graph(x))
            if own_mismatch is not None:
                own = f"its own traced function ({own_mismatch})"
                return f"the shared graph's output differs from {own}", None
            note = _eager_difference_note(model, got, expected)
            continue
        if mismatch is not None:
            return f"the shared graph's output differs from model(x) ({mismatch})", None
    return None, note


def _nan_positions_differ(got: Any, expected: Any) -> bool:
    return any(
        np.asarray(g).shape == np.asarray(e).shape
        and np.issubdtype(np.asarray(e).dtype, np.floating)
        and not np.array_equal(np.isnan(np.asarray(g)), np.isnan(np.asarray(e)))
        for g, e in zip(tf.nest.flatten(got), tf.nest.flatten(expected), strict=False)
    )


def _eager_difference_note(model: keras.Model, graph_output: Any, eager_output: Any) -> str:
    graph_nan = sum(int(np.isnan(np.asarray(o)).sum()) for o in tf.nest.flatten(graph_output))
    eager_nan = sum(int(np.isnan(np.asarray(o)).sum()) for o in tf.nest.flatten(eager_output))
    size = sum(int(np.asarray(o).size) for o in tf.nest.flatten(eager_output))
    return (
        f"model {model.name!r} gives NaN in {eager_nan} of {size} output values when called "
        f"eagerly and in {graph_nan} in a traced graph (TensorFlow's graph and eager kernels "
        "differ on NaN, e.g. through a fused Relu): it is served from the shared graph, which "
        "answers as its own tf.function does, not as model(x) does; check its weights for NaN"
    )


# One model at a time: the reference call briefly replaces a layer's derived statistics.
_REFERENCE_LOCK = threading.Lock()


def _weights_defined_output(model: keras.Model, x: Any) -> Any:
    """``model(x, training=False)`` with derived statistics recomputed from the weights
    (and put back after), so that a model whose Keras state is stale is still verified
    against what its weights define."""
    with _REFERENCE_LOCK, _recomputed(_adapted_normalizations(model)):
        return model(x, training=False)


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


def architecture_key(model: keras.Model) -> str:
    """A canonical description of what the model computes, independent of its weights.

    It is the model's class and config, with every layer name replaced by its position
    (``dense_3`` in one instance is ``dense_7`` in the next, wherever the config holds
    it, dicts of inputs and outputs included) and the batch size a layer was built with
    dropped, plus the shape and dtype of every trainable and non-trainable weight.
    """
    config = model.get_config()
    canonical = _canonical(config, _renames(config))
    canonical.pop("name", None)
    return json.dumps(
        {
            "class": f"{type(model).__module__}.{type(model).__qualname__}",
            "config": canonical,
            "trainable": _weight_specs(model.trainable_variables),
            "non_trainable": _weight_specs(model.non_trainable_variables),
        },
        sort_keys=True,
        default=repr,
    )


def _layer_names(config: Any) -> list[str]:
    """Every layer name in a (possibly nested) model config, in order of appearance: the
    name of each serialized layer wherever it sits (a model's ``layers``, a wrapper's
    ``layer`` and ``backward_layer``). A serialized layer is an item of a ``layers`` list
    (an ``InputLayer`` among them) or a dict with a ``class_name`` and a ``config``
    holding ``name`` and ``trainable``, which a dtype policy's or an initializer's config
    never holds."""
    names: list[str] = []

    def visit(node: Any, listed: bool = False) -> None:
        if isinstance(node, dict):
            inner = node.get("config")
            if "class_name" in node and isinstance(inner, dict):
                name = inner.get("name")
                named = listed or "trainable" in inner
                if named and isinstance(name, str) and name not in names:
                    names.append(name)
            for key, value in node.items():
                visit(value, listed=key == "layers")
        elif isinstance(node, list | tuple):
            for value in node:
                visit(value, listed)

    visit(config)
    return names


def _canonical(config: Any, renames: dict[str, str]) -> Any:
    """Layer names replaced wherever they appear as a string; build batch sizes dropped."""
    if isinstance(config, dict):
        canonical = {key: _canonical(value, renames) for key, value in config.items()}
        if isinstance(canonical.get("build_config"), dict):
            canonical["build_config"] = _without_batch(canonical["build_config"])
        return canonical
    if isinstance(config, list | tuple):  # Keras configs hold both
        return [_canonical(value, renames) for value in config]
    if isinstance(config, str):
        return renames.get(config, config)
    return config


def _without_batch(build_config: dict) -> dict:
    """A build config's shapes without their batch size (an adapt set's row count)."""
    shape = build_config.get("input_shape")
    if isinstance(shape, list) and shape and not isinstance(shape[0], list | dict):
        return {**build_config, "input_shape": [None, *shape[1:]]}
    return build_config


def _weight_specs(variables: list) -> list[tuple[list[int], str]]:
    return [(list(v.shape), str(v.dtype)) for v in variables]


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
        raise TypeError(f"expected a Keras model, got {type(model).__name__}")
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


def _as_tensor(value: Any) -> tf.Tensor:
    if isinstance(value, tf.Tensor):
        return value
    try:
        return tf.convert_to_tensor(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"cannot use {type(value).__name__} as a model input: {error}") from error


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
