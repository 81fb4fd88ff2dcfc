"""A set_weights that lands between the two calls of a model's first-request check (the
shared graph's, then the model's own) must not be taken for a difference in what the
graph computes: the check compares both on one snapshot of the weights.

The interleaving is forced, not hoped for: a pass-through layer, first in the model,
runs only when the model is called eagerly (the check's second call; the shared graph was
traced once, before), and there has another thread change every weight and waits for it.
"""

from __future__ import annotations

import threading
import warnings

import keras
import numpy as np
import tensorflow as tf
from tf_retracing import ServingFallbackWarning, SharedGraphPredictor

FEATURES = 6

# What the hook does on its next eager call; set by the test, cleared when it has run.
_PENDING: list = []


@keras.saving.register_keras_serializable(package="tf_retracing_race_test")
class EagerHook(keras.layers.Layer):
    """Passes its input through; called eagerly with a pending action, it runs it first."""

    def call(self, x):
        if tf.executing_eagerly() and _PENDING:
            _PENDING.pop()()
        return x


def hooked_model(seed: int) -> keras.Model:
    keras.utils.set_random_seed(seed)
    return keras.Sequential(
        [
            keras.Input((FEATURES,)),
            EagerHook(),
            keras.layers.Dense(8, activation="tanh"),
            keras.layers.Dense(2),
        ]
    )


def new_weights(model: keras.Model, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(w.shape).astype(w.dtype) for w in model.get_weights()]


def set_weights_in_another_thread(model: keras.Model, weights: list) -> None:
    """What a concurrent update does, finished before the caller goes on."""
    writer = threading.Thread(target=model.set_weights, args=(weights,))
    writer.start()
    writer.join()


def test_set_weights_between_the_checks_two_calls_keeps_the_model_shared():
    predictor = SharedGraphPredictor()
    x = tf.constant(np.random.default_rng(0).standard_normal((3, FEATURES)), tf.float32)
    predictor.predict(hooked_model(1), x)  # the architecture's graph, traced and checked
    model = hooked_model(2)
    update = new_weights(model, 3)
    _PENDING.append(lambda: set_weights_in_another_thread(model, update))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServingFallbackWarning)
        first = predictor.predict(model, x)
    assert not _PENDING, "the hook never ran: the interleaving was not forced"
    assert predictor.fallback_reason(model) is None
    # The first answer comes after the update, so it is the updated model's.
    np.testing.assert_allclose(first, model(x, training=False), rtol=0, atol=1e-5)
    # And the model keeps following its weights through the shared graph.
    model.set_weights(new_weights(model, 4))
    np.testing.assert_allclose(
        predictor.predict(model, x), model(x, training=False), rtol=0, atol=1e-5
    )
    assert predictor.fallback_reason(model) is None


def test_the_update_is_not_lost_when_it_lands_inside_the_check():
    # The check reads a snapshot; the writer's assignment reaches the model's variables.
    predictor = SharedGraphPredictor()
    x = tf.ones((1, FEATURES))
    model = hooked_model(5)
    update = new_weights(model, 6)
    _PENDING.append(lambda: set_weights_in_another_thread(model, update))
    predictor.predict(model, x)
    for got, want in zip(model.get_weights(), update, strict=True):
        np.testing.assert_array_equal(got, want)
