"""The predictor: which route serves a model (the shared graph of its architecture or its
own traced function), kept per live model, with an LRU of architectures."""

from __future__ import annotations

import contextlib
import functools
import inspect
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

from .architecture_identity import (
    architecture_key,
)
from .errors import (
    ArchitecturesEvictedWarning,
    EagerDifferenceWarning,
    ModelChangedWarning,
    ServingFallbackWarning,
    StaleKerasStateWarning,
    UnsharableModelError,
)
from .freed_memory import FreedMemory
from .inputs import (
    _check_fits,
    _check_model,
    _input_kind,
    _input_mismatch,
    _of_any_shape,
    _refuse_if_not_dense,
    _require_keras3,
    _served_kind,
    _symbolic_inputs,
)
from .own_route import (
    _call_eagerly,
    _OwnFunction,
    _variables,
)
from .shared_graph import (
    _Architecture,
    _faster_of,
    _Graph,
    _template_key,
    _trace_on_values,
)
from .state_checks import (
    _SUBCLASS,
    _TEMPLATE,
    _adapted_normalizations,
    _base_layer_attributes,
    _held_statistics,
    _layers_reason,
    _stale_message,
    _state_difference,
    _structural_reason,
    _traced_on_snapshot,
    _unrecomputable_layer,
    _unrecomputable_message,
    _unrecomputable_reason,
    _verification_mismatch,
    _weights_defined_output,
    _WeightsSnapshot,
)
from .weights_tenants import (
    _eager_on_values,
    _Reference,
    _tenant_input_mismatch,
    _weights_source,
    _WeightsTenant,
)


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
    # (layer name, attribute) assigned since the model was admitted: see _watch_layers.
    changes: _Changes = field(default_factory=lambda: _Changes())  # see _watch_layers


class SharedGraphPredictor:
    """Predict with many Keras models through one trace per architecture.

    Thread-safe: the lock guards only the bookkeeping (finding, tracing or dropping an
    architecture), never a computation. Models are held through weak references; at most
    ``max_architectures`` architectures are kept, least recently used dropped first.
    """

    def __init__(
        self, max_architectures: int = 16, *, strict: bool = False, choose_xla: bool = False
    ):
        if isinstance(max_architectures, bool) or not isinstance(max_architectures, int):
            raise TypeError(f"max_architectures must be an int, got {max_architectures!r}")
        if max_architectures < 1:
            raise ValueError(f"max_architectures must be at least 1, got {max_architectures}")
        _require_keras3()
        self.max_architectures = max_architectures
        self.strict = strict
        # Trace each shared graph for XLA too, and keep it where it is faster and agrees.
        self.choose_xla = choose_xla
        self._architectures: OrderedDict[str, _Architecture] = OrderedDict()
        # Keys max_architectures dropped: one coming back means too small a cache (said once).
        self._evicted: set[str] = set()
        self._eviction_warned = False
        self._served: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()
        self._traces = [0]  # a list, so traced functions can count without holding self
        self._tenants: dict[Any, _WeightsTenant] = {}  # tenants held as weights
        # Architecture key -> its reference model, kept while the predictor lives.
        self._references: dict[str, _Reference] = {}
        self._freed_memory = FreedMemory()  # the heap gaps tenants' checks leave, returned

    def predict(self, model: keras.Model, x: Any) -> Any:
        """Return the output of ``model`` on ``x`` as its weights define it, computed in
        the graph shared by the model's architecture (verified against the model's own
        call on its first call for each kind of input) or, where the graph cannot serve
        it, by the model's own traced function, with one ``ServingFallbackWarning`` per
        model. That is what ``model(x, training=False)`` returns, except where Keras's
        call answers from state derived from older weights (an adapted ``Normalization``
        after ``set_weights``): one ``StaleKerasStateWarning`` per model says so. After an
        attribute of one of its layers is assigned (an ``activation`` swapped, a sub-layer
        replaced), the next call gives a ``ModelChangedWarning`` and checks the model again
        as it is now; an attribute of the model object itself, or a layer added to it, is
        not seen: call ``forget(model)`` then.

        Raises ``TypeError`` for something that is not a Keras 3 model (a Keras 2 model is
        named as such), ``ValueError`` for a model that is not built, for a sparse or
        ragged input (one dense graph cannot serve it: refused before anything else, with
        how to densify it) or for an input the model does not accept (naming the model,
        the input and what it expects; an error
        TensorFlow raises while running the graph keeps its type and gains the same
        names), and ``UnsharableModelError`` instead of falling back when
        ``strict=True``."""
        if not isinstance(model, keras.Model):
            tenant = self._tenant(model)
            if tenant is not None:
                return self._predict_tenant(model, tenant, x)
        served = self._served.get(model) if isinstance(model, keras.Model) else None
        if served is not None and served.changes.seen:
            served = self._changed(model, served)
        if served is None:
            if isinstance(model, keras.Model):
                _refuse_if_not_dense(x, lambda: _input_mismatch(model, x))
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
            if isinstance(model, keras.Model):
                self._served.pop(model, None)
            elif self._tenant(model) is not None:
                del self._tenants[model]

    def add_weights(self, tenant: Any, architecture: keras.Model | str, weights: Any) -> None:
        """Serve ``tenant`` (any hashable id but a model: ``predict(tenant, x)``) from its
        weights alone, through the shared graph of ``architecture``, with no Keras model
        kept for it.

        ``architecture`` is a model of the architecture (a plain ``Sequential`` or
        functional model: it is cloned once per architecture, never kept) or the
        ``architecture_key`` of one given before. ``weights`` is a list of arrays in
        ``model.get_weights()`` order, or the path of a ``.weights.h5`` file
        (``model.save_weights``), read on the tenant's first request. On its first request
        for each kind of input the graph's output is checked against the architecture's
        own call on the tenant's weights, as a model's is. Adding a tenant again replaces
        its weights. Raises ``ValueError`` naming the tenant (and the file or weight) for
        weights that do not fit, ``FileNotFoundError`` for a missing file, and
        ``UnsharableModelError`` for an architecture a shared graph cannot serve."""
        if isinstance(tenant, keras.Model):
            raise TypeError(
                f"add_weights takes a tenant id, not a model ({tenant.name!r}): "
                "predict(model, x) serves a model as it is"
            )
        try:
            hash(tenant)
        except TypeError as error:
            raise TypeError(f"a tenant id must be hashable, got {type(tenant).__name__}") from error
        reference, key = self._reference(tenant, architecture)
        arrays, path = _weights_source(tenant, weights)
        values = None if arrays is None else reference.packed(tenant, arrays, "the list")
        with self._lock:
            self._tenants[tenant] = _WeightsTenant(key=key, values=values, path=path)

    @property
    def tenant_count(self) -> int:
        """Tenants held as weights (``add_weights``)."""
        return len(self._tenants)

    def _tenant(self, tenant: Any) -> _WeightsTenant | None:
        try:
            return self._tenants.get(tenant)
        except TypeError:  # unhashable: not a tenant
            return None

    def _reference(self, tenant: Any, architecture: Any) -> tuple[_Reference, str]:
        """The reference model of an architecture given as a model or a key, built once."""
        if isinstance(architecture, str):
            reference = self._references.get(architecture)
            if reference is None:
                raise KeyError(
                    f"tenant {tenant!r}: no architecture with this key was given to "
                    "add_weights yet; pass a model of the architecture the first time"
                )
            return reference, architecture
        _check_model(architecture)
        key = architecture_key(architecture)
        with self._lock:
            reference = self._references.get(key)
            if reference is None:
                reference = self._new_reference(tenant, architecture, key)
                self._references[key] = reference
        return reference, key

    def _new_reference(self, tenant: Any, model: keras.Model, key: str) -> _Reference:
        reason = _structural_reason(model)
        if reason is _SUBCLASS:
            reason = (
                f"it is a subclass ({type(model).__qualname__}), whose call its config does "
                "not describe; build it as a Sequential or functional model"
            )
        unrecomputable = _unrecomputable_layer(model)
        if reason is None and unrecomputable is not None:
            reason = _unrecomputable_reason(unrecomputable)
        reference = None
        if reason is None:
            try:
                reference = _Reference.of(model)
            except Exception as error:  # any failure means: not rebuildable from its config
                reason = f"it cannot be rebuilt from its config ({type(error).__name__}: {error})"
        if reason is None and architecture_key(reference.model) != key:
            reason = "a clone built from its config has a different config or weights"
        if reason is None:
            reason = _state_difference(model, reference.model)
        if reason is not None:
            raise UnsharableModelError(
                f"tenant {tenant!r}: the architecture of model {model.name!r} cannot be "
                f"served from weights alone: {reason}"
            )
        return reference

    def _predict_tenant(self, tenant: Any, record: _WeightsTenant, x: Any) -> Any:
        reference = self._references[record.key]
        try:
            values = record.values
            if values is None:  # read on first need; two first requests may both read it
                values = record.values = reference.read(tenant, record.path)
            arguments = reference.arguments(values)
            if record.reason is not None:
                return _eager_on_values(reference, arguments, x)
            leaves, kind = _input_kind(x, reference.input_shapes)
            kind = _served_kind(kind, leaves, record.exact_kinds)
            graph = record.graphs.get(kind)
            if graph is None:
                checked = _of_any_shape(
                    lambda kind: self._verified_tenant_graph(
                        tenant, record, reference, arguments, leaves, kind
                    ),
                    kind,
                    leaves,
                    record.exact_kinds,
                    refused=ValueError,
                )
                if checked is None:  # the check moved the tenant to the eager route
                    return _eager_on_values(reference, arguments, x)
                return checked  # the graph's output on x, which the check compared
            return graph.call_values(arguments, leaves)
        except tf.errors.OpError as error:
            message = f"{_tenant_input_mismatch(tenant, reference.model, x)}: {error.message}"
            raise type(error)(error.node_def, error.op, message) from error
        except (TypeError, ValueError) as error:
            if str(error).startswith(f"tenant {tenant!r}"):
                raise  # already names the tenant
            raise ValueError(
                f"{_tenant_input_mismatch(tenant, reference.model, x)}: {error}"
            ) from error

    def _graph_on_values(self, reference, kind, leaves: list, arguments: list) -> _Graph:
        """The architecture's graph on weight values, traced (twice with ``choose_xla``,
        the faster kept) on the first tenant's arguments."""

        def trace(jit_compile: bool) -> _Graph:
            return _trace_on_values(
                reference.model,
                kind,
                leaves,
                self._traces,
                reference.argument_specs(),
                reference.unpacked,
                jit_compile,
            )

        graph = trace(False)
        if self.choose_xla:
            graph = _faster_of(graph, trace(True), lambda g: g.call_values(arguments, leaves))
        return graph

    def compilation(self, served: Any) -> dict:
        """For a model or tenant: per kind of input it was served with, what XLA gave
        when ``choose_xla`` tried it (``xla``: kept; ``plain_us``, ``xla_us``: median
        microseconds per call; ``agrees``), or None where it was not tried."""
        record = self._tenant(served) if not isinstance(served, keras.Model) else None
        if record is None:
            record = self._served.get(served) if isinstance(served, keras.Model) else None
        if record is None:
            raise KeyError(f"{served!r} has not been served yet")
        return {kind: graph.compilation for kind, graph in record.graphs.items()}

    def _verified_tenant_graph(self, tenant, record, reference, arguments, leaves, kind):
        """Check the architecture's graph on weight values for this input kind against the
        reference model's own call on the tenant's weights; once they agree, the graph
        serves the tenant, and the output it gave on the request's input is returned as
        the answer (None: the tenant moved to the eager route). The perturbed input is
        probed until one tenant's check passes with it for this kind."""
        model = reference.model
        _check_fits(model, leaves)
        with self._lock:
            graph = reference.graphs.get(kind)
            if graph is None:
                graph = reference.graphs[kind] = self._graph_on_values(
                    reference, kind, leaves, arguments
                )
        # The tenant's values are tensors, never assigned: a snapshot as they stand.
        snapshot = _WeightsSnapshot(_variables(model), reference.unpacked(arguments))
        own_function = functools.cache(lambda: _traced_on_snapshot(model, snapshot, self._traces))
        perturb = kind not in reference.probed_kinds
        mismatch, eager_note, answer = _verification_mismatch(
            model,
            kind[0],
            leaves,
            lambda probe: graph.call_values(arguments, probe),
            lambda x: _weights_defined_output(model, x, snapshot),
            lambda x: own_function()(x),
            subject=f"tenant {tenant!r}",
            perturb=perturb,
        )
        if eager_note is not None:
            _warn_at_caller(eager_note, EagerDifferenceWarning)
        if mismatch is not None:
            message = f"tenant {tenant!r} cannot share a graph: {mismatch}"
            if self.strict:
                raise UnsharableModelError(message)
            _warn_at_caller(
                f"{message}; it is served through its architecture's own call on its "
                "weights instead",
                ServingFallbackWarning,
            )
            record.reason = mismatch
            return None
        if perturb:
            reference.probed_kinds.add(kind)
        record.graphs[kind] = graph
        self._freed_memory.after_check()
        return answer

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
        if not isinstance(model, keras.Model):
            tenant = self._tenant(model)
            if tenant is None:
                raise KeyError(f"no tenant {model!r} was given to add_weights")
            return tenant.reason
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
        _watch_layers(model, served.changes)
        with self._lock:
            self._served[model] = served
        return served

    def _changed(self, model: keras.Model, served: _Served) -> None:
        """A layer of ``model`` had an attribute assigned since its first call: forget what
        was checked then, say so once per change, and let the caller admit it anew (its
        architecture key, graph and check are those of the model as it is now)."""
        with self._lock:
            if self._served.get(model) is served:
                del self._served[model]
        layer, attribute = served.changes.seen[0]
        _warn_at_caller(
            f"model {model.name!r} changed after it was first served: layer {layer!r} had "
            f"its {attribute!r} assigned; it is checked again as it is now, which traces "
            "again if its architecture changed",
            ModelChangedWarning,
        )
        return None

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
                graph = architecture.graph(kind, leaves, model, self._traces, self.choose_xla)
                mismatch = architecture.graph_difference(kind, leaves, model, self._traces)
        if mismatch is None:
            held = _held_statistics(served.normalizations)
            # Every call of the check reads these values, whatever set_weights does meanwhile.
            snapshot = _WeightsSnapshot(_variables(model))
            # Traced only where the eager call and the graph differ on NaN, and once.
            own_function = functools.cache(
                lambda: _traced_on_snapshot(model, snapshot, self._traces)
            )
            mismatch, eager_note, _ = _verification_mismatch(
                model,
                kind[0],
                leaves,
                lambda probe: graph.call(snapshot.handles(), probe, held)[0],
                lambda x: _weights_defined_output(model, x, snapshot),
                lambda x: own_function()(x),
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
            if key in self._evicted:
                self._warn_evicted(key)
            self._architectures[key] = architecture
            if len(self._architectures) > self.max_architectures:
                dropped, _ = self._architectures.popitem(last=False)
                self._evicted.add(dropped)
                for served in list(self._served.values()):
                    if served.key == dropped:
                        served.graphs.clear()  # verified again on the next architecture
            return architecture, None

    def _warn_evicted(self, key: str) -> None:
        """Once per predictor: an architecture traced again after the LRU dropped it."""
        if self._eviction_warned:
            return
        self._eviction_warned = True
        in_use = len(self._evicted | set(self._architectures) | {key})
        _warn_at_caller(
            f"SharedGraphPredictor traced an architecture again after dropping it: "
            f"{in_use} architectures have been served and max_architectures="
            f"{self.max_architectures} keeps {self.max_architectures}, so each one dropped "
            f"traces again when it comes back; pass max_architectures={in_use} or more to "
            "keep them all",
            ArchitecturesEvictedWarning,
        )

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


# Assignments Keras itself makes while calling, predicting or fitting a model (built, a
# model's predict_function): not a change to what it computes.
_KERAS_BOOKKEEPING = frozenset({"history", "stop_evaluating", "stop_predicting", "stop_training"})


class _Changes:
    """(layer name, attribute) pairs assigned since a model was admitted; weakly held by
    the layers' watchers, so that a forgotten model's record goes with its list."""

    __slots__ = ("__weakref__", "seen")

    def __init__(self):
        self.seen: list[tuple[str, str]] = []


def _watch_layers(model: keras.Model, changes: _Changes) -> None:
    """Record in ``changes`` each (layer, attribute) later assigned on a layer of ``model``,
    nested layers included: a reassigned ``activation`` or sub-layer changes what the model
    computes, while its traced graphs (shared or its own) keep what it computed before.
    Each layer gets one watcher, whatever the number of predictors and admissions."""
    for layer in _internals.flatten_layers(model):
        watch = _internals.watch_assignments(layer, functools.partial(_LayerWatch, layer))
        if watch is not None:
            watch.records.append(weakref.ref(changes))


_DERIVED = frozenset({"mean", "variance"})


class _LayerWatch(_internals.AssignmentWatch):
    """Told the name of each attribute assigned on one layer; passes the ones that
    change what it computes to the records of the models it is served in. Private names
    and what every Keras layer and model has (``built``, ``predict_function``) are Keras's
    bookkeeping; a Normalization's mean and variance are derived from its variables (by
    adapt, finalize_state and this predictor's checks), which the stale-state check
    compares on every call instead. Small: one per layer of every served model."""

    __slots__ = ("derived", "layer_name", "records")

    def __init__(self, layer):
        self.layer_name = layer.name
        self.derived = _DERIVED if isinstance(layer, keras.layers.Normalization) else ()
        self.records: list = []  # weak references to _Changes

    def assigned(self, attribute: str) -> None:
        if attribute.startswith("_") or attribute in _ignored_attributes():
            return
        if attribute in self.derived:
            return
        alive = []
        for record in self.records:
            changes = record()
            if changes is not None:
                changes.seen.append((self.layer_name, attribute))
                alive.append(record)
        self.records = alive


@functools.cache
def _ignored_attributes() -> frozenset:
    return _base_layer_attributes() | _model_attributes() | _KERAS_BOOKKEEPING


@functools.cache
def _model_attributes() -> frozenset:
    return frozenset(vars(keras.Model()))


def _warn_at_caller(message: str, category: type[Warning]) -> None:
    """Warn at the reader's call of ``predict``: the first frame outside this module,
    however many of the predictor's own functions the path went through."""
    frame, level = inspect.currentframe().f_back, 2
    while frame is not None and frame.f_code.co_filename == __file__:
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
