"""One architecture's shared graph: its template, its traced concrete functions and the
state it recomputes from the variables it receives."""

from __future__ import annotations

import functools
import json
import statistics
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tf_retracing import _internals

from .architecture_identity import (
    architecture_key,
)
from .inputs import (
    _describe_inputs,
    _describe_leaves,
    _unflatten,
)
from .state_checks import (
    _TEMPLATE,
    _adapted_normalizations,
    _held_statistics,
    _outputs_mismatch,
    _recomputed,
    _stale_flags,
    _state_difference,
)


@dataclass
class _Graph:
    """One concrete function of an architecture, for one kind of input."""

    concrete: Any
    fast_call: Any  # flat inputs -> outputs, or None where TensorFlow offers no such call
    trainable_count: int
    # Where XLA was tried (choose_xla=True): whether it was kept, both times per call in
    # microseconds and whether the outputs agreed (or why XLA could not run).
    compilation: dict | None = None

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

    def call_values(self, values: list, leaves: list) -> Any:
        """The outputs of a graph of ``_trace_on_values``, for a tenant's weight values."""
        if self.fast_call is not None:
            return self.fast_call([*values, *leaves])
        return self.concrete(values, leaves)


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

    def graph(
        self, kind, leaves: list, model: keras.Model, traces: list, choose_xla: bool = False
    ) -> _Graph:
        """The concrete function for this input kind, traced on first need (with
        ``choose_xla``, traced twice, and the faster of the two kept: ``_faster_of``)."""
        graph = self.graphs.get(kind)
        if graph is None:
            graph = self._trace(kind, leaves, model, traces)
            if choose_xla:
                xla = self._trace(kind, leaves, model, traces, jit_compile=True)
                tracer = self.tracer(model)
                handles = [_internals.variable_handle(v) for v in _tracer_variables(tracer)]
                held = _held_statistics(_adapted_normalizations(tracer))
                graph = _faster_of(graph, xla, lambda g: g.call(handles, leaves, held)[0])
            self.graphs[kind] = graph
        return graph

    def _trace(
        self, kind, leaves: list, model: keras.Model, traces: list, jit_compile: bool = False
    ) -> _Graph:
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
            concrete = tf.function(run, jit_compile=jit_compile).get_concrete_function(
                trainable, non_trainable, specs, held_specs
            )
        except Exception as error:  # Keras refused this input while tracing
            raise ValueError(
                f"model {model.name!r} expects inputs like {_describe_inputs(model)}; "
                f"got {_describe_leaves(leaves)}: {error}"
            ) from error
        return _Graph(concrete, _internals.flat_caller(concrete), len(trainable))


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


def _tracer_variables(model: keras.Model) -> list:
    return [*model.trainable_variables, *model.non_trainable_variables]


# Calls of each graph, alternated, whose median decides between XLA and the plain graph.
XLA_TRIAL_CALLS = 7


def _faster_of(plain: _Graph, xla: _Graph, call) -> _Graph:
    """Of one graph traced plainly and for XLA (``jit_compile=True``), the XLA one where
    its output agrees with the plain one's within ``TOLERANCES`` and its median time per
    call over ``XLA_TRIAL_CALLS`` alternated calls is lower; else the plain one. ``call``
    runs a graph on the first request's input and returns its outputs. XLA compiles for
    each input shape it meets: a new batch size later costs a compilation (not a trace),
    and the choice made on the first shape stands for every shape."""
    expected = _materialized(call(plain))
    try:
        got = _materialized(call(xla))  # compiles
    except Exception as error:  # XLA could not compile or run this graph: keep the plain one
        plain.compilation = {"xla": False, "reason": f"XLA failed: {type(error).__name__}"}
        return plain
    mismatch = _outputs_mismatch(got, expected)
    times: dict[int, list[float]] = {id(plain): [], id(xla): []}
    for _ in range(XLA_TRIAL_CALLS):
        for graph in (plain, xla):
            started = time.perf_counter()
            _materialized(call(graph))
            times[id(graph)].append((time.perf_counter() - started) * 1e6)
    plain_us, xla_us = (statistics.median(times[id(g)]) for g in (plain, xla))
    chosen = xla if mismatch is None and xla_us < plain_us else plain
    chosen.compilation = {
        "xla": chosen is xla,
        "plain_us": plain_us,
        "xla_us": xla_us,
        "agrees": mismatch is None,
        "reason": mismatch,
    }
    return chosen


def _materialized(outputs: Any) -> Any:
    return tf.nest.map_structure(np.asarray, outputs)


def _trace_on_values(
    reference: keras.Model,
    kind,
    leaves: list,
    traces: list,
    argument_specs: list,
    unpacked,
    jit_compile: bool = False,
) -> _Graph:
    """A concrete function of ``reference``'s call whose variables' values come from its
    arguments (``argument_specs``; ``unpacked`` turns them into every variable's value,
    trainable ones, then the others): the graph of tenants held as weights, whose weights
    are tensors rather than variables. Adapted ``Normalization`` statistics are
    recomputed from the values, as on the handle-taking graph."""
    structure, leaf_kinds = kind
    variables = [*reference.trainable_variables, *reference.non_trainable_variables]
    normalizations = _adapted_normalizations(reference)

    def run(arguments, flat_x):  # pragma: no cover - runs while tracing
        traces[0] += 1
        mapping = list(zip(variables, unpacked(arguments), strict=True))
        with keras.StatelessScope(state_mapping=mapping), _recomputed(normalizations):
            return reference(_unflatten(structure, flat_x), training=False)

    specs = [tf.TensorSpec(shape, dtype) for shape, dtype in leaf_kinds]
    try:
        concrete = tf.function(run, jit_compile=jit_compile).get_concrete_function(
            argument_specs, specs
        )
    except Exception as error:  # Keras refused this input while tracing
        raise ValueError(
            f"the architecture expects inputs like {_describe_inputs(reference)}; "
            f"got {_describe_leaves(leaves)}: {error}"
        ) from error
    return _Graph(concrete, _internals.flat_caller(concrete), len(argument_specs))
