"""One traced graph for every Keras model of the same architecture.

``SharedGraphPredictor.predict(model, x)`` returns what ``model(x, training=False)``
returns. Models whose architecture is the same (see ``architecture_key``) share a single
concrete function, traced once with a ``None`` batch dimension. Each call passes the
model's own variables to that function, which runs a structural clone of the architecture
through Keras 3 ``stateless_call``: no weight is copied, no model is mutated, so threads can
call it at once without a lock around the computation.

How the ``weight_cache`` benchmark scenario measures it, with public names only:

- traces: ``SharedGraphPredictor.tracing_count`` after serving N models of one
  architecture (1), against the sum of ``experimental_get_tracing_count()`` over N
  dedicated ``tf.function(lambda x, m=m: m(x, training=False))`` (N) and
  ``WeightSwapCache.tracing_count`` (1);
- steady-state latency per call: serve every model once with each variant first, then time
  ``predictor.predict(model, x)``, ``dedicated[i](x)`` and ``swap.predict(model, x)``
  round-robin over the same N models and the same ``x``, the three variants interleaved
  repetition by repetition; report medians with their spread and the ratios against the
  dedicated functions;
- memory for N = 1, 10, 100: in a fresh process per (variant, N), build the N models,
  read the resident set size, serve every model once, collect garbage and read it again;
- wrong outputs under concurrency: ``count_wrong_outputs`` from
  ``snippets/weight_swap_cache.py`` with the same models, ``x``, threads and calls for
  both caches.
"""

# --8<-- [start:predictor]
from __future__ import annotations

import json
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import keras
import tensorflow as tf


@dataclass
class _Architecture:
    """One architecture: the clone it was traced on and its single concrete function."""

    clone: keras.Model
    predict_fn: Any  # a tf ConcreteFunction(trainable, non_trainable, x)
    input_spec: Any  # a TensorSpec, or a nested structure of them, batch dimension None


@dataclass
class _Served:
    """What the cache remembers about a live model: never the model itself."""

    key: str
    trainable: list
    non_trainable: list


class SharedGraphPredictor:
    """Predict with many Keras models through one trace per architecture.

    Thread-safe: the lock guards only the bookkeeping (finding or tracing an
    architecture), never the computation; while a new architecture is being traced, other
    calls wait for that one trace. Models are remembered through weak references
    only, and at most ``max_architectures`` architectures are kept, least recently used
    dropped first.
    """

    def __init__(self, max_architectures: int = 16):
        if max_architectures < 1:
            raise ValueError(f"max_architectures must be at least 1, got {max_architectures}")
        self.max_architectures = max_architectures
        self.tracing_count = 0
        self._architectures: OrderedDict[str, _Architecture] = OrderedDict()
        self._served: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def predict(self, model: keras.Model, x: Any) -> Any:
        """Return what ``model(x, training=False)`` returns, through the shared graph."""
        served = self._served.get(model) if isinstance(model, keras.Model) else None
        if served is None:
            served = self._serve(model)
        architecture = self._architecture(served.key, model)
        x = _checked_input(x, architecture.input_spec, model)
        # The model's own variables go in as resource handles: the graph reads them, so
        # nothing is copied and concurrent calls never share mutable state.
        return architecture.predict_fn(served.trainable, served.non_trainable, x)

    @property
    def architecture_count(self) -> int:
        return len(self._architectures)

    def _serve(self, model: Any) -> _Served:
        _check_model(model)
        # A Keras variable's ``value`` is its backing tf.Variable: the graph receives it by
        # handle and reads it on every call, so later weight updates are seen.
        served = _Served(
            key=architecture_key(model),
            trainable=[v.value for v in model.trainable_variables],
            non_trainable=[v.value for v in model.non_trainable_variables],
        )
        with self._lock:
            self._served[model] = served
        return served

    def _architecture(self, key: str, model: keras.Model) -> _Architecture:
        with self._lock:
            architecture = self._architectures.get(key)
            if architecture is None:
                architecture = _trace(model)
                self.tracing_count += 1
                self._architectures[key] = architecture
                if len(self._architectures) > self.max_architectures:
                    self._architectures.popitem(last=False)
            else:
                self._architectures.move_to_end(key)
            return architecture


def _trace(model: keras.Model) -> _Architecture:
    """Trace one concrete function for the model's architecture, on a clone of it."""
    clone = keras.models.clone_model(model)
    # A cloned Sequential takes the global dtype policy, not the model's: copy it over.
    clone.dtype_policy = model.dtype_policy
    if architecture_key(clone) != architecture_key(model):
        raise TypeError(
            f"model {model.name!r} cannot be rebuilt from its config: its clone has a "
            "different architecture (a custom layer's get_config is probably incomplete)"
        )
    input_spec = tf.nest.map_structure(
        lambda t: tf.TensorSpec([None, *t.shape[1:]], t.dtype), _symbolic_inputs(model)
    )

    def run(trainable, non_trainable, x):  # pragma: no cover - runs as AutoGraph's copy
        outputs, _ = clone.stateless_call(trainable, non_trainable, x, training=False)
        return outputs

    predict_fn = tf.function(run).get_concrete_function(
        [v.value for v in clone.trainable_variables],
        [v.value for v in clone.non_trainable_variables],
        input_spec,
    )
    return _Architecture(clone=clone, predict_fn=predict_fn, input_spec=input_spec)


# --8<-- [end:predictor]


# --8<-- [start:key]
def architecture_key(model: keras.Model) -> str:
    """A canonical description of what the model computes, independent of its weights.

    It is the model's class and config, with every layer name replaced by its position
    (``dense_3`` in one instance is ``dense_7`` in the next), plus the shape and dtype of
    every trainable and non-trainable weight, in order. Units, activations, dtype policies,
    layer order and wiring are all in the config, so models that differ in any of them get
    different keys. Custom layers must describe all their constructor arguments in
    ``get_config`` for this to hold, as Keras already requires for saving them.
    """
    config = model.get_config()
    names = _layer_names(config)
    canonical = _rename(config, {name: f"layer_{i}" for i, name in enumerate(names)})
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
    """Every layer name in a (possibly nested) model config, in order of appearance."""
    names: list[str] = []
    if isinstance(config, dict):
        for layer in config.get("layers", []):
            name = layer.get("config", {}).get("name")
            if name is not None and name not in names:
                names.append(name)
        for value in config.values():
            names.extend(n for n in _layer_names(value) if n not in names)
    elif isinstance(config, list | tuple):
        for value in config:
            names.extend(n for n in _layer_names(value) if n not in names)
    return names


def _rename(config: Any, renames: dict[str, str]) -> Any:
    """Replace layer names where a config holds them: ``name`` fields and graph links."""
    if isinstance(config, dict):
        renamed = {}
        for key, value in config.items():
            if key == "name" and isinstance(value, str):
                renamed[key] = renames.get(value, value)
            elif key == "keras_history":
                renamed[key] = [renames.get(value[0], value[0]), *value[1:]]
            elif key in ("input_layers", "output_layers"):
                renamed[key] = _rename_strings(value, renames)
            else:
                renamed[key] = _rename(value, renames)
        return renamed
    if isinstance(config, list | tuple):  # Keras configs hold both
        return [_rename(value, renames) for value in config]
    return config


def _rename_strings(value: Any, renames: dict[str, str]) -> Any:
    if isinstance(value, str):
        return renames.get(value, value)
    if isinstance(value, list | tuple):
        return [_rename_strings(item, renames) for item in value]
    return value


def _weight_specs(variables: list) -> list[tuple[list[int], str]]:
    return [(list(v.shape), str(v.dtype)) for v in variables]


# --8<-- [end:key]


# --8<-- [start:checks]
def _check_model(model: Any) -> None:
    if not isinstance(model, keras.Model):
        raise TypeError(f"expected a Keras model, got {type(model).__name__}")
    if not model.built:
        raise ValueError(
            f"model {model.name!r} is not built: give it an Input or call it once on data"
        )
    _symbolic_inputs(model)


def _symbolic_inputs(model: keras.Model) -> Any:
    """The model's Input tensor, or its structure of them for a multi-input model."""
    inputs = getattr(model, "inputs", None)  # subclassed models have none
    if not inputs:
        raise TypeError(
            f"model {model.name!r} has no symbolic inputs; the shared graph needs a "
            "Sequential or functional model"
        )
    return inputs[0] if len(inputs) == 1 else model.input


def _checked_input(x: Any, spec: Any, model: keras.Model) -> Any:
    """Convert x to tensors and refuse any that the architecture was not traced for."""
    if isinstance(spec, tf.TensorSpec):  # one input: x may be a tensor, array or list
        return _checked_tensor(spec, x, model)
    try:
        tf.nest.assert_same_structure(spec, x)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"model {model.name!r} expects inputs structured as {spec}; {error}"
        ) from error
    return tf.nest.map_structure(lambda s, v: _checked_tensor(s, v, model), spec, x)


def _checked_tensor(spec: tf.TensorSpec, value: Any, model: keras.Model) -> tf.Tensor:
    expects = (
        f"model {model.name!r} expects input of shape {spec.shape} and dtype {spec.dtype.name}"
    )
    try:
        tensor = tf.convert_to_tensor(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{expects}, got {type(value).__name__}: {error}") from error
    if tensor.dtype != spec.dtype or not spec.shape.is_compatible_with(tensor.shape):
        raise ValueError(f"{expects}, got shape {tensor.shape} and dtype {tensor.dtype.name}")
    return tensor


# --8<-- [end:checks]
