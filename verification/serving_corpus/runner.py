"""One architecture of the corpus, served the way serving systems use a model.

Three models of the architecture, each with its own weights, are served through one
``SharedGraphPredictor``. Then, in turn: new weights by ``set_weights`` (model 0), by
``variable.assign`` on every variable (model 1), by ``load_weights`` of another model's
checkpoint (model 2 takes model 0's), and eight threads calling all three on their own
inputs. After each step the predictor's output is compared with the output the model's
weights define: the model's own call once every layer that derives state from its
variables has re-derived it (``finalize_state``). Where Keras's own call, before that, gave
something else, the predictor must have warned for that model (StaleKerasStateWarning).
"""

from __future__ import annotations

import tempfile
import threading
import time
import warnings
from collections import Counter
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf
from tf_retracing import SharedGraphPredictor, StaleKerasStateWarning
from tf_retracing._internals import flatten_layers

from benchmarks.architectures import Architecture

MODELS = 3
THREADS = 8
CALLS_PER_THREAD = 4
# The predictor's graph against the model's eager call, relative to the output's largest
# magnitude: float32 graphs may fuse or reorder operations.
TOLERANCE = 1e-4


def run_architecture(architecture: Architecture) -> dict:
    started = time.monotonic()
    models = [architecture.make(seed) for seed in range(1, MODELS + 1)]
    x = architecture.sample(4, 100)
    predictor = SharedGraphPredictor()
    steps, stale = {}, set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        steps["first calls"] = max(_served_error(predictor, m, x, stale) for m in models)
        models[0].set_weights(_new_weights(models[0], seed=10))
        steps["set_weights"] = _served_error(predictor, models[0], x, stale)
        for variable, value in zip(
            models[1].weights, _new_weights(models[1], seed=11), strict=True
        ):
            variable.assign(value)
        steps["assign"] = _served_error(predictor, models[1], x, stale)
        with tempfile.TemporaryDirectory() as folder:
            checkpoint = Path(folder) / "model.weights.h5"
            models[0].save_weights(checkpoint)
            models[2].load_weights(checkpoint)
        steps["load_weights"] = _served_error(predictor, models[2], x, stale)
        steps["8 threads"] = _threads_error(predictor, models, architecture)
    warned = Counter(_model_name(w.message) for w in caught if w.category is StaleKerasStateWarning)
    reason = predictor.fallback_reason(models[0])
    # keras.applications models all have one name: compare counts per name (the predictor
    # warns once per model).
    stale_names = Counter(model.name for model in models if id(model) in stale)
    unwarned = sorted(name for name, count in stale_names.items() if warned[name] < count)
    return {
        "id": architecture.id,
        "title": architecture.title,
        "source": architecture.source,
        "variables": len(models[0].weights),
        "route": "shared graph" if reason is None else "own function",
        "reason": reason,
        "traces": predictor.tracing_count,
        "errors": {step: round(error, 9) for step, error in steps.items()},
        "stale_keras_models": len(stale),
        "stale_unwarned": unwarned,
        "passed": all(error <= TOLERANCE for error in steps.values()) and not unwarned,
        "seconds": round(time.monotonic() - started, 1),
    }


def _served_error(predictor, model, x, stale: set) -> float:
    """The predictor's largest difference from the weights-defined output on x; a model
    whose own call disagreed with that output is added (by id) to ``stale``."""
    got = predictor.predict(model, x)
    keras_output = model(x, training=False)
    want = _weights_defined(model, x)
    if _difference(keras_output, want) > TOLERANCE:
        stale.add(id(model))
    return _difference(got, want)


def _weights_defined(model, x):
    for layer in flatten_layers(model):
        if isinstance(layer, keras.layers.Normalization) and layer.input_mean is None:
            layer.finalize_state()
    return model(x, training=False)


def _threads_error(predictor, models, architecture: Architecture) -> float:
    inputs = [architecture.sample(3, 200 + i) for i in range(THREADS)]
    wanted = [_weights_defined(models[i % MODELS], inputs[i]) for i in range(THREADS)]
    errors = [0.0] * THREADS
    failures: list[BaseException] = []

    def serve(i: int) -> None:
        try:
            for _ in range(CALLS_PER_THREAD):
                got = predictor.predict(models[i % MODELS], inputs[i])
                errors[i] = max(errors[i], _difference(got, wanted[i]))
        except BaseException as error:  # reported by the main thread
            failures.append(error)

    threads = [threading.Thread(target=serve, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return max(errors)


def _difference(got, want) -> float:
    """Largest absolute difference relative to the output's largest magnitude (a softmax
    over many classes is small everywhere: a floor of 1 would hide a wrong answer)."""
    largest = 0.0
    for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want), strict=True):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        if g.shape != w.shape:
            return float("inf")
        scale = max(float(np.max(np.abs(w), initial=0.0)), 1e-30)
        largest = max(largest, float(np.max(np.abs(g - w), initial=0.0)) / scale)
    return largest


def _new_weights(model, seed: int) -> list:
    """Every floating-point weight scaled by its own factor in [0.5, 1.5]: new values that
    keep variances positive; integer weights (counts) unchanged."""
    rng = np.random.default_rng(seed)
    weights = []
    for value in model.get_weights():
        if np.issubdtype(value.dtype, np.floating):
            value = (value * rng.uniform(0.5, 1.5, value.shape)).astype(value.dtype)
        weights.append(value)
    return weights


def _model_name(message) -> str:
    return str(message).split("'")[1]
