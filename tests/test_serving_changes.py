"""The predictor after a served model changes, and when its architectures outnumber its
cache (issue 53): a changed layer is served as it is now and said once; calls, predict and
fit of the model change nothing; a cache too small for the architectures in use is said
once, with the numbers and what to pass."""

from __future__ import annotations

import warnings

import keras
import numpy as np
import pytest
from tf_retracing import ArchitecturesEvictedWarning, ModelChangedWarning, SharedGraphPredictor

X = np.random.default_rng(0).normal(size=(3, 4)).astype("float32")


def mlp(seed: int = 0, units: int = 8) -> keras.Model:
    keras.utils.set_random_seed(seed)
    return keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(units, activation="relu"), keras.layers.Dense(1)]
    )


def nested() -> keras.Model:
    keras.utils.set_random_seed(1)
    inner = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu")])
    inputs = keras.Input((4,))
    return keras.Model(inputs, keras.layers.Dense(1)(inner(inputs)))


def served(predictor, model) -> list:
    """predict on X, with every warning it gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answer = np.asarray(predictor.predict(model, X))
    assert np.allclose(answer, model(X, training=False), atol=1e-6)  # never the old graph
    return [w for w in caught if issubclass(w.category, ModelChangedWarning)]


@pytest.mark.parametrize(
    "change",
    [
        lambda m: setattr(m.layers[0], "activation", keras.activations.tanh),
        lambda m: setattr(m.layers[1], "use_bias", False),
    ],
    ids=["activation", "use_bias"],
)
def test_a_layer_attribute_assigned_after_the_first_serve_is_served_as_it_is_now(change):
    predictor, model = SharedGraphPredictor(), mlp()
    assert served(predictor, model) == []
    change(model)
    (warning,) = served(predictor, model)
    layer = next(
        name
        for name in (model.layers[0].name, model.layers[1].name)
        if name in str(warning.message)
    )
    assert f"model {model.name!r} changed after it was first served: layer {layer!r}" in str(
        warning.message
    )
    assert served(predictor, model) == []  # said once per change


def test_a_nested_models_layer_is_watched_too():
    predictor, model = SharedGraphPredictor(), nested()
    served(predictor, model)
    model.layers[1].layers[0].activation = keras.activations.sigmoid
    (warning,) = served(predictor, model)
    assert "'activation' assigned" in str(warning.message)


def test_calls_predict_and_fit_are_not_changes_and_trace_nothing():
    predictor, model = SharedGraphPredictor(), mlp()
    served(predictor, model)
    model(X)
    model.predict(X, verbose=0)
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, np.ones((3, 1)), epochs=2, verbose=0)  # new weights: read at the next call
    model.evaluate(X, np.ones((3, 1)), verbose=0)
    assert served(predictor, model) == []
    assert predictor.tracing_count == 1


def test_two_predictors_each_see_a_change_once():
    first, second, model = SharedGraphPredictor(), SharedGraphPredictor(), mlp()
    served(first, model)
    served(second, model)
    model.layers[0].activation = keras.activations.tanh
    assert len(served(first, model)) == 1
    assert len(served(second, model)) == 1


def test_a_cache_too_small_for_the_architectures_in_use_is_said_once():
    small, wide = mlp(0, 8), mlp(1, 16)
    predictor = SharedGraphPredictor(max_architectures=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(20):
            predictor.predict(small if k % 2 == 0 else wide, X)
    evicted = [w for w in caught if issubclass(w.category, ArchitecturesEvictedWarning)]
    assert len(evicted) == 1
    message = str(evicted[0].message)
    assert "2 architectures have been served and max_architectures=1" in message
    assert "pass max_architectures=2 or more" in message
    assert predictor.tracing_count == 20  # what the warning is about

    enough = SharedGraphPredictor(max_architectures=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(20):
            enough.predict(small if k % 2 == 0 else wide, X)
    assert not [w for w in caught if issubclass(w.category, ArchitecturesEvictedWarning)]
    assert enough.tracing_count == 2


def test_what_is_not_watched_is_as_the_docstring_says_and_forget_follows_it():
    """The model object's own attributes (a subclass's) and added layers are not watched:
    the old graph answers, without a warning, until forget(model)."""

    @keras.saving.register_keras_serializable(package="test_serving_changes")
    class Scaled(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = keras.layers.Dense(1)
            self.scale = 2.0

        def call(self, x):
            return self.dense(x) * self.scale

    keras.utils.set_random_seed(0)
    model = Scaled()
    model(X)
    predictor = SharedGraphPredictor()
    before = np.asarray(predictor.predict(model, X))
    model.scale = 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelChangedWarning)
        assert np.allclose(predictor.predict(model, X), before)
    predictor.forget(model)
    assert np.allclose(predictor.predict(model, X), model(X))
