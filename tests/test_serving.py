"""SharedGraphPredictor against the models it serves, and the swap baseline beside it.

Tolerances: an output is compared with ``model(x, training=False)`` within
``TOLERANCES[dtype]`` of the output's magnitude (at least 1): 1e-5 for float32, 1e-2 for
float16 (one float16 ulp at 100 is 0.0625, 6e-4 of it). Every input is seeded.
"""

from __future__ import annotations

import functools
import gc
import os
import subprocess
import sys
import threading
import warnings
import weakref

import keras
import numpy as np
import pytest
import tensorflow as tf
from tf_retracing import (
    EagerDifferenceWarning,
    ServingFallbackWarning,
    SharedGraphPredictor,
    StaleKerasStateWarning,
    UnsharableModelError,
    architecture_key,
)
from tf_retracing import _internals as tf_retracing_internals

from snippets.weight_swap_cache import (
    WeightSwapCache,
    count_wrong_outputs,
    overlapping_requests,
)

FEATURES = 8


def sequential(units=16, activation="relu"):
    return keras.Sequential(
        [
            keras.Input((FEATURES,)),
            keras.layers.Dense(units, activation=activation),
            keras.layers.Dense(3),
        ]
    )


def functional_with_batch_norm():
    inputs = keras.Input((FEATURES,))
    hidden = keras.layers.Dense(5, activation="tanh")(inputs)
    hidden = keras.layers.BatchNormalization()(hidden)
    return keras.Model(inputs, keras.layers.Dense(2)(hidden))


def randomise(model, seed):
    """Distinct weights per model, including BatchNormalization's moving statistics."""
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(w.dtype) for w in model.weights])
    return model


TOLERANCES = {"float16": 1e-2, "float32": 1e-5, "float64": 1e-12}


def expected(model, x):
    return model(x, training=False)


def assert_same(got, want):
    """Same structure and dtypes, values within the dtype's tolerance of their scale."""
    tf.nest.assert_same_structure(got, want)
    for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want), strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.dtype.kind != "f":
            np.testing.assert_array_equal(g, w)
            continue
        scale = max(1.0, float(np.abs(w.astype(np.float64)).max(initial=0)))
        np.testing.assert_allclose(g, w, rtol=0, atol=TOLERANCES[str(w.dtype)] * scale)


def seeded(shape, seed=0, dtype="float32"):
    return tf.constant(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


@pytest.fixture(scope="module")
def eight_models():
    """Eight models of two architectures, each with its own weights."""
    return [randomise(sequential(), i) for i in range(4)] + [
        randomise(functional_with_batch_norm(), 10 + i) for i in range(4)
    ]


def test_outputs_match_every_model_and_batch_size_with_one_trace_per_architecture(
    eight_models,
):
    predictor = SharedGraphPredictor()
    for batch in (1, 5, 33):
        x = seeded((batch, FEATURES), seed=batch)
        for model in eight_models:
            assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 2
    assert predictor.architecture_count == 2


def test_numpy_and_list_inputs_of_the_right_dtype_are_accepted(eight_models):
    predictor = SharedGraphPredictor()
    x = np.ones((2, FEATURES), np.float32)
    model = eight_models[0]
    assert_same(predictor.predict(model, x), expected(model, x))
    assert_same(predictor.predict(model, x.tolist()), expected(model, x))


def test_weights_changed_in_place_are_used_on_the_next_call(eight_models):
    predictor = SharedGraphPredictor()
    model = keras.models.clone_model(eight_models[0])
    x = tf.ones((2, FEATURES))
    predictor.predict(model, x)
    randomise(model, 99)
    assert_same(predictor.predict(model, x), expected(model, x))


def two_inputs():
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    joined = keras.layers.Concatenate()([a, b])
    return keras.Model({"a": a, "b": b}, keras.layers.Dense(4)(joined))


def test_multi_input_model_is_served_with_its_input_structure():
    predictor = SharedGraphPredictor()
    x = {"a": tf.ones((6, 3)), "b": tf.ones((6, 2))}
    for seed in range(3):
        model = randomise(two_inputs(), seed)
        assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 1


def test_nested_models_share_a_trace_across_instances():
    def nested():
        inputs = keras.Input((FEATURES,))
        block = keras.Sequential([keras.layers.Dense(4, activation="relu")])
        return keras.Model(inputs, keras.layers.Dense(1)(block(inputs)))

    predictor = SharedGraphPredictor()
    x = tf.ones((3, FEATURES))
    for seed in range(3):
        model = randomise(nested(), seed)
        assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 1


def with_dropout():
    return keras.Sequential(
        [
            keras.Input((FEATURES,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dropout(0.5),  # its seed state is a non-trainable variable
            keras.layers.Dense(3),
        ]
    )


def with_frozen_first_layer():
    model = sequential()
    model.layers[0].trainable = False
    return model


def mixed_precision():
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        return sequential()
    finally:
        keras.mixed_precision.set_global_policy("float32")


@pytest.mark.parametrize("build", [with_dropout, with_frozen_first_layer, mixed_precision])
def test_dropout_frozen_and_mixed_precision_models_match(build):
    predictor = SharedGraphPredictor()
    x = seeded((5, FEATURES))
    for seed in range(2):
        model = randomise(build(), seed)
        assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 1


def test_wrapped_layers_share_one_trace_across_instances():
    def bidirectional():
        tokens = keras.Input((None,), dtype="int32")
        embedded = keras.layers.Embedding(20, 4, mask_zero=True)(tokens)
        return keras.Model(tokens, keras.layers.Bidirectional(keras.layers.GRU(3))(embedded))

    models = [bidirectional() for _ in range(3)]
    ids = np.random.default_rng(0).integers(1, 20, (2, 5)).astype("int32")
    predictor = SharedGraphPredictor()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServingFallbackWarning)
        for model in models:
            assert_same(predictor.predict(model, ids), expected(model, ids))
    assert predictor.tracing_count == 1


def test_architecture_key_tells_dtype_policies_apart():
    def dense(policy):
        return keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, dtype=policy)])

    assert architecture_key(dense("float32")) != architecture_key(dense("mixed_float16"))
    assert architecture_key(dense("float32")) == architecture_key(dense("float32"))


def test_architecture_key_ignores_names_and_weights_but_not_units_or_activation():
    base = architecture_key(sequential())
    assert architecture_key(randomise(sequential(), 1)) == base
    assert architecture_key(sequential(units=17)) != base
    assert architecture_key(sequential(activation="tanh")) != base
    assert architecture_key(functional_with_batch_norm()) == architecture_key(
        functional_with_batch_norm()
    )


def test_models_differing_in_units_or_activation_never_share_a_trace():
    predictor = SharedGraphPredictor()
    x = tf.ones((2, FEATURES))
    for model in (sequential(), sequential(units=17), sequential(activation="tanh")):
        assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 3


def test_eight_threads_give_no_wrong_output(eight_models):
    x = seeded((4, FEATURES), seed=7)
    models = [randomise(sequential(), 20 + i) for i in range(8)]
    predictor = SharedGraphPredictor()
    assert count_wrong_outputs(predictor, models, x, threads=8, calls_per_thread=500) == 0
    assert predictor.tracing_count == 1


def test_two_overlapping_calls_give_the_swap_baseline_another_models_output():
    """The baseline's race, forced rather than hoped for (the Serving page's helper): call
    A swaps its model's weights in and is held just before predicting; call B swaps its
    own in; A then predicts with B's weights and returns B's model's answer."""
    first, second = (randomise(sequential(), 40 + i) for i in range(2))
    x = seeded((4, FEATURES), seed=9)
    got = overlapping_requests(WeightSwapCache(), first, second, x)
    assert_same(got, expected(second, x))  # B's model answered A's request
    assert not np.allclose(got, expected(first, x).numpy(), rtol=0, atol=1e-6)


def test_single_threaded_baseline_is_right_for_one_architecture(eight_models):
    baseline = WeightSwapCache()
    x = seeded((5, FEATURES))
    for model in eight_models[:4]:
        assert_same(baseline.predict(model, x), expected(model, x))
    assert baseline.tracing_count == 1


def test_count_wrong_outputs_reraises_an_error_from_a_thread(eight_models):
    class Failing:
        def predict(self, model, x):
            raise RuntimeError("prediction failed")

    x = tf.ones((2, FEATURES))
    with pytest.raises(RuntimeError, match="prediction failed"):
        count_wrong_outputs(Failing(), eight_models[:1], x, threads=2, calls_per_thread=1)


def test_baseline_key_lets_another_activation_give_a_silently_wrong_output():
    baseline = WeightSwapCache()
    x = seeded((5, FEATURES))
    baseline.predict(sequential(activation="relu"), x)
    tanh_model = sequential(activation="tanh")
    got = baseline.predict(tanh_model, x).numpy()
    assert np.abs(got - expected(tanh_model, x).numpy()).max() > 1e-3


def test_baseline_restores_the_reference_when_the_prediction_raises():
    baseline = WeightSwapCache()
    model = sequential()
    baseline.predict(model, tf.ones((1, FEATURES)))
    reference = next(iter(baseline.reference_models.values()))
    before = reference.get_weights()
    with pytest.raises(TypeError):
        baseline.predict(model, tf.ones((1, FEATURES + 1)))
    for kept, now in zip(before, reference.get_weights(), strict=True):
        np.testing.assert_array_equal(kept, now)


def test_baseline_leaves_the_reference_half_written_when_set_weights_fails():
    def deep(units):
        return keras.Sequential(
            [
                keras.Input((FEATURES,)),
                keras.layers.Dense(4),
                keras.layers.Dense(units),
                keras.layers.Dense(3),
            ]
        )

    baseline = WeightSwapCache()
    baseline.predict(deep(4), tf.ones((1, FEATURES)))
    reference = next(iter(baseline.reference_models.values()))
    before = reference.get_weights()
    with pytest.raises(ValueError, match="not compatible"):
        baseline.predict(randomise(deep(6), 1), tf.ones((1, FEATURES)))
    changed = [
        not np.array_equal(a, b) for a, b in zip(before, reference.get_weights(), strict=True)
    ]
    assert changed[:2] == [True, True]  # the first layer was overwritten ...
    assert not any(changed[2:])  # ... then the mismatch raised, outside the try


def test_a_garbage_collected_model_is_released():
    predictor = SharedGraphPredictor()
    model = sequential()
    predictor.predict(model, tf.ones((2, FEATURES)))
    released = weakref.ref(model)
    del model
    gc.collect()
    assert released() is None
    assert predictor.architecture_count == 1  # the trace stays for the next such model


def with_nan_weight(model):
    weights = model.get_weights()
    weights[0][0, 0] = np.nan
    model.set_weights(weights)
    return model


# oneDNN's fused MatMul+BiasAdd+Relu turns a NaN into 0 in a graph, where the eager Relu
# keeps NaN. TensorFlow turns oneDNN on by default only on CPUs with AVX-512 and the like;
# TF_ENABLE_ONEDNN_OPTS=1, read when TensorFlow loads, turns it on on any x86 CPU.
ONEDNN = "TF_ENABLE_ONEDNN_OPTS"


@functools.cache
def graph_turns_nan_into_zero() -> bool:
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="relu")])
    model.set_weights([np.array([[np.nan], [1.0]], "float32"), np.zeros(1, "float32")])
    x = tf.ones((1, 2))
    graph = tf.function(lambda x: model(x, training=False))(x)
    return bool(np.isnan(model(x, training=False)).all() and (graph.numpy() == 0).all())


def with_onednn_fusion(test):
    """Run ``test`` where a graph turns a NaN into 0 as oneDNN's fused kernel does: in this
    process if its TensorFlow does, else in a pytest of its own with oneDNN turned on."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        if graph_turns_nan_into_zero():
            return test(*args, **kwargs)
        if os.environ.get(ONEDNN) == "1":
            pytest.fail("with TF_ENABLE_ONEDNN_OPTS=1 a graph still keeps NaN: no oneDNN here")
        child = subprocess.run(
            [sys.executable, "-m", "pytest", "-n", "0", "-q", f"{__file__}::{test.__name__}"],
            env={**os.environ, ONEDNN: "1"},
            capture_output=True,
            text=True,
        )
        assert child.returncode == 0, child.stdout[-4000:] + child.stderr[-2000:]
        assert "1 passed" in child.stdout, child.stdout[-2000:]

    return run


def served_with_warnings(predictor, model, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = predictor.predict(model, x)
    return out, [w.category for w in caught], [str(w.message) for w in caught]


@with_onednn_fusion
def test_a_nan_weight_the_graph_turns_into_numbers_is_served_shared_and_named():
    # A Dense fused with its Relu gives 0 for NaN in a graph, NaN eagerly: the shared
    # graph answers as the model's own tf.function does, and the warning says how that
    # differs from model(x).
    predictor = SharedGraphPredictor()
    x = seeded((4, FEATURES))
    predictor.predict(randomise(sequential(), 1), x)
    model = with_nan_weight(randomise(sequential(), 2))
    traces_before = predictor.tracing_count
    out, categories, messages = served_with_warnings(predictor, model, x)
    assert categories == [EagerDifferenceWarning], messages
    assert f"model {model.name!r} gives NaN in 12 of 12 output values" in messages[0]
    assert "and in 0 in a traced graph" in messages[0]
    assert predictor.fallback_reason(model) is None
    assert np.isnan(model(x, training=False).numpy()).all()  # eager: NaN everywhere
    own = tf.function(lambda x: model(x, training=False))(x)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(own))
    assert_same(out, own)
    # One verification trace of the model's own function; the next call traces nothing.
    assert predictor.tracing_count == traces_before + 1
    _, categories, _ = served_with_warnings(predictor, model, x)
    assert categories == [] and predictor.tracing_count == traces_before + 1


def test_a_nan_output_eager_and_graph_agree_on_is_served_without_a_warning():
    predictor = SharedGraphPredictor()
    x = seeded((4, FEATURES))
    predictor.predict(randomise(sequential(activation=None), 1), x)
    model = with_nan_weight(randomise(sequential(activation=None), 2))
    out, categories, messages = served_with_warnings(predictor, model, x)
    assert categories == [], messages
    np.testing.assert_array_equal(np.isnan(out), np.isnan(model(x, training=False)))
    assert np.isnan(out).any()


@with_onednn_fusion
def test_a_graph_that_differs_from_its_own_function_beyond_nan_still_falls_back(monkeypatch):
    # The own traced function is the reference only where it agrees: were it to differ
    # from the shared graph, the model leaves the shared route, naming both.
    from tf_retracing.serving import routing

    real = routing._traced_on_snapshot
    monkeypatch.setattr(
        routing,
        "_traced_on_snapshot",
        lambda *args: (lambda own: lambda x: own(x) + 1.0)(real(*args)),
    )
    predictor = SharedGraphPredictor()
    x = seeded((4, FEATURES))
    predictor.predict(randomise(sequential(), 1), x)
    model = with_nan_weight(randomise(sequential(), 2))
    _, categories, messages = served_with_warnings(predictor, model, x)
    assert ServingFallbackWarning in categories, messages
    assert "differs from its own traced function" in predictor.fallback_reason(model)


def test_least_recently_used_architecture_is_dropped():
    predictor = SharedGraphPredictor(max_architectures=2)
    x = tf.ones((2, FEATURES))
    first, second, third = sequential(4), sequential(5), sequential(6)
    for model in (first, second, first, third):  # `second` is now least recently used
        predictor.predict(model, x)
    assert predictor.architecture_count == 2
    assert predictor.tracing_count == 3
    predictor.predict(first, x)
    assert predictor.tracing_count == 3  # still cached
    assert_same(predictor.predict(second, x), expected(second, x))
    assert predictor.tracing_count == 4  # dropped, so traced again


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, ValueError, "max_architectures must be at least 1, got 0"),
        ("4", TypeError, "max_architectures must be an int, got '4'"),
        (True, TypeError, "max_architectures must be an int, got True"),
    ],
)
def test_max_architectures_must_be_a_positive_int(value, error, message):
    with pytest.raises(error, match=message):
        SharedGraphPredictor(max_architectures=value)


# --- Bad input: a clear error naming what was expected and what was given -------------


@pytest.mark.parametrize(
    ("x", "message"),
    [
        (tf.ones((2, FEATURES + 1)), r"expects inputs like \(None, 8\) float32; got \(2, 9\)"),
        (tf.ones((FEATURES,)), r"got \(8,\) float32"),
        ("eight floats", r"got \(\) string"),
        (object(), "cannot use object as a model input"),
    ],
    ids=["feature-shape", "rank", "string", "not-a-tensor"],
)
def test_an_input_that_does_not_fit_is_refused(eight_models, x, message):
    with pytest.raises(ValueError, match=message):
        SharedGraphPredictor().predict(eight_models[0], x)


def test_multi_input_model_refuses_another_structure():
    x = {"a": tf.ones((6, 3)), "c": tf.ones((6, 2))}
    with pytest.raises(ValueError, match=r"expects inputs like \(None, 3\) float32, \(None, 2\)"):
        SharedGraphPredictor().predict(two_inputs(), x)


def test_an_unbuilt_model_is_refused():
    unbuilt = keras.Sequential([keras.layers.Dense(3)])
    with pytest.raises(ValueError, match="is not built"):
        SharedGraphPredictor().predict(unbuilt, tf.ones((2, FEATURES)))


@pytest.mark.parametrize("not_a_model", [keras.layers.Dense(3), lambda x: x, None])
def test_an_object_that_is_not_a_keras_model_is_refused(not_a_model):
    with pytest.raises(TypeError, match="expected a Keras model, got"):
        SharedGraphPredictor().predict(not_a_model, tf.ones((2, FEATURES)))


def test_fallback_reason_of_an_unserved_model_is_a_key_error():
    with pytest.raises(KeyError, match="has not been served yet"):
        SharedGraphPredictor().fallback_reason(sequential())


# --- Inputs Keras converts itself are served as model(x) serves them -------------------


@pytest.mark.parametrize("dtype", ["float64", "float16", "int64", "int32"])
def test_numpy_inputs_of_another_dtype_are_cast_as_keras_casts_them(eight_models, dtype):
    predictor = SharedGraphPredictor()
    x = (np.random.default_rng(3).standard_normal((3, FEATURES)) * 4).astype(dtype)
    for model in eight_models:
        assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 2


def token_model(built_by_calling):
    layers = [
        keras.layers.Embedding(50, 4),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(2),
    ]
    if not built_by_calling:
        return keras.Sequential([keras.Input((None,), dtype="int32"), *layers])
    model = keras.Sequential(layers)
    model(np.zeros((1, 6), "int32"))
    return model


@pytest.mark.parametrize("built_by_calling", [True, False], ids=["called", "input"])
def test_integer_token_ids_are_served(built_by_calling):
    predictor = SharedGraphPredictor()
    ids = np.random.default_rng(0).integers(0, 50, (4, 6))
    for seed in range(3):
        model = randomise(token_model(built_by_calling), seed)
        for x in (ids, ids.astype("int32"), tf.constant(ids)):
            assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.fallback_reason(model) is None


def test_variable_sequence_lengths_share_one_trace():
    predictor = SharedGraphPredictor()
    model = randomise(token_model(built_by_calling=False), 0)
    for length in (3, 7, 11):
        x = np.random.default_rng(length).integers(0, 50, (2, length))
        assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 1


def test_single_key_dict_input_and_dict_outputs_share_one_trace():
    def dict_model():
        features = keras.Input((FEATURES,), name="features")
        hidden = keras.layers.Dense(4, activation="relu")(features)
        outputs = {"score": keras.layers.Dense(1)(hidden), "logits": keras.layers.Dense(3)(hidden)}
        return keras.Model({"features": features}, outputs)

    predictor = SharedGraphPredictor()
    x = {"features": seeded((5, FEATURES))}
    models = [randomise(dict_model(), seed) for seed in range(3)]
    for model in models:
        assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 1
    assert architecture_key(models[0]) == architecture_key(models[2])


def test_masked_sequences_match():
    def masked():
        ids = keras.Input((None,), dtype="int32")
        hidden = keras.layers.Embedding(20, 4, mask_zero=True)(ids)
        return keras.Model(ids, keras.layers.LSTM(3)(hidden))

    predictor = SharedGraphPredictor()
    x = np.array([[3, 4, 0, 0], [5, 0, 0, 0], [1, 2, 3, 4]], "int32")
    for seed in range(2):
        model = randomise(masked(), seed)
        assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 1


# --- State outside variables: carried into the shared graph, or the model's own route --


def normalized(adapt_rows, adapt_before_build=False, seed=0):
    data = np.random.default_rng(seed).uniform(-5, 20, (adapt_rows, FEATURES))
    normalization = keras.layers.Normalization()
    if adapt_before_build:
        normalization.adapt(data.astype("float32"))
    model = keras.Sequential([keras.Input((FEATURES,)), normalization, keras.layers.Dense(2)])
    if not adapt_before_build:
        normalization.adapt(data.astype("float32"))
    return model


def test_adapted_normalization_state_is_carried_into_the_shared_graph():
    predictor = SharedGraphPredictor()
    x = seeded((4, FEATURES)) * 10
    models = [normalized(100, seed=1), normalized(100, seed=2), normalized(50, True, seed=3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServingFallbackWarning)
        for model in models:
            assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 1
    assert [predictor.fallback_reason(m) for m in models] == [None, None, None]


def test_normalization_loaded_from_weights_file_is_carried(tmp_path):
    trained = normalized(100, seed=4)
    trained.save_weights(tmp_path / "trained.weights.h5")
    loaded = normalized(10, seed=5)
    loaded.load_weights(tmp_path / "trained.weights.h5")
    predictor = SharedGraphPredictor()
    x = seeded((3, FEATURES)) * 10
    predictor.predict(normalized(100, seed=6), x)  # the architecture traced on another
    with warnings.catch_warnings():
        warnings.simplefilter("error", StaleKerasStateWarning)  # load_weights finalizes
        assert_same(predictor.predict(loaded, x), expected(trained, x))
    assert predictor.tracing_count == 1


def new_statistics(model, seed):
    """Weights for ``model`` with another adapt_mean and adapt_variance."""
    rng = np.random.default_rng(seed)
    weights = model.get_weights()
    weights[0] = rng.uniform(-5, 5, weights[0].shape).astype(weights[0].dtype)
    weights[1] = rng.uniform(1, 9, weights[1].shape).astype(weights[1].dtype)
    return weights


def weights_defined(model, x):
    """What the model's weights define: a fresh copy built from them, finalized."""
    copy = keras.models.clone_model(model)
    copy.set_weights(model.get_weights())
    for layer in copy.layers:
        if isinstance(layer, keras.layers.Normalization):
            layer.finalize_state()
    return copy(x, training=False)


def assign_statistics(model, weights):
    normalization = model.layers[0]
    normalization.adapt_mean.assign(weights[0])
    normalization.adapt_variance.assign(weights[1])


@pytest.mark.parametrize("change", [keras.Model.set_weights, assign_statistics])
@pytest.mark.parametrize("when", ["after the first call", "before the first call"])
def test_new_normalization_statistics_are_followed_and_stale_keras_is_named(change, when):
    predictor = SharedGraphPredictor()
    x = seeded((4, FEATURES)) * 10
    predictor.predict(normalized(100, seed=1), x)  # the architecture traced on another
    model = normalized(100, seed=2)
    if when == "after the first call":
        assert_same(predictor.predict(model, x), expected(model, x))
    change(model, new_statistics(model, 3))
    stale = model(x, training=False)
    with pytest.warns(StaleKerasStateWarning) as caught:
        got = predictor.predict(model, x)
    assert len(caught) == 1
    assert "layer 'normalization" in str(caught[0].message)
    assert "finalize_state()" in str(caught[0].message)
    assert_same(got, weights_defined(model, x))
    assert not np.allclose(got, stale)  # Keras's own call is stale here, as the warning says
    with warnings.catch_warnings():
        warnings.simplefilter("error", StaleKerasStateWarning)  # once per model
        assert_same(predictor.predict(model, x), weights_defined(model, x))
    assert predictor.fallback_reason(model) is None
    model.layers[0].finalize_state()
    assert_same(predictor.predict(model, x), expected(model, x))


def test_a_subclassed_model_follows_new_statistics_through_its_template():
    class Normalized(keras.Model):
        def __init__(self):
            super().__init__()
            self.normalization = keras.layers.Normalization()
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(self.normalization(x))

    x = seeded((4, FEATURES)) * 10
    template, model = Normalized(), Normalized()
    for seed, each in enumerate((template, model)):
        each.normalization.adapt(np.random.default_rng(seed).normal(3, 2, (50, FEATURES)))
        each(x)
    predictor = SharedGraphPredictor(strict=True)  # no fallback: both share the template
    assert_same(predictor.predict(template, x), expected(template, x))
    assert_same(predictor.predict(model, x), expected(model, x))
    model.normalization.adapt_mean.assign(np.full(FEATURES, -4.0, "float32"))
    with pytest.warns(StaleKerasStateWarning, match="layer 'normalization"):
        predictor.predict(model, x)
    model.normalization.finalize_state()
    assert_same(predictor.predict(model, x), expected(model, x))


def test_the_own_route_recomputes_statistics_rather_than_keeping_the_first_calls():
    lookup = keras.layers.IntegerLookup(vocabulary=[3, 5, 7])
    normalization = keras.layers.Normalization()
    normalization.adapt(np.random.default_rng(0).normal(3, 2, (50, 1)).astype("float32"))
    ids, values = keras.Input((1,), dtype="int64"), keras.Input((1,))
    features = keras.layers.Concatenate()(
        [keras.ops.cast(lookup(ids), "float32"), normalization(values)]
    )
    model = keras.Model([ids, values], keras.layers.Dense(1)(features))
    x = [np.array([[3], [9]], "int64"), np.array([[1.0], [8.0]], "float32")]
    predictor = SharedGraphPredictor()
    with pytest.warns(ServingFallbackWarning, match="keeps state outside its variables"):
        assert_same(predictor.predict(model, x), expected(model, x))
    normalization.adapt_mean.assign([-6.0])
    with pytest.warns(StaleKerasStateWarning):
        predictor.predict(model, x)
    normalization.finalize_state()
    assert_same(predictor.predict(model, x), expected(model, x))


class Doubled(keras.layers.Layer):
    """Derives ``doubled`` from its variable in finalize_state, as Keras 2's API allowed."""

    def build(self, shape):
        self.factor = self.add_weight(shape=(), initializer="ones")
        self.finalize_state()

    def finalize_state(self):
        self.doubled = tf.convert_to_tensor(self.factor) * 2.0

    def call(self, x):
        return x * self.doubled


def test_a_layer_deriving_state_the_graph_cannot_recompute_is_served_by_its_own_call():
    model = keras.Sequential([keras.Input((FEATURES,)), Doubled()])
    x = seeded((3, FEATURES))
    predictor = SharedGraphPredictor()
    with pytest.warns(StaleKerasStateWarning, match=r"layer 'doubled.*' \(Doubled\)"):
        assert_same(predictor.predict(model, x), expected(model, x))
    assert "finalize_state" in predictor.fallback_reason(model)
    model.layers[0].factor.assign(5.0)
    model.layers[0].finalize_state()
    assert_same(predictor.predict(model, x), x * 10.0)  # its own call, never a stale trace


def test_a_layer_added_after_the_first_call_is_followed_after_forget():
    model = randomise(sequential(), 1)
    x = seeded((4, FEATURES))
    predictor = SharedGraphPredictor()
    before = expected(model, x)
    predictor.predict(model, x)
    model.add(keras.layers.Dense(FEATURES))
    assert expected(model, x).shape != before.shape  # model(x) changed
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no warning says so
        assert_same(predictor.predict(model, x), before)  # as documented: not followed
    predictor.forget(model)
    assert_same(predictor.predict(model, x), expected(model, x))
    # What the package and the method say about it (they once said "never a wrong answer",
    # then that a reassigned activation was not seen: tests/test_serving_changes.py).
    import tf_retracing

    for text in (tf_retracing.__doc__, SharedGraphPredictor.predict.__doc__):
        words = " ".join(text.split())
        assert "not seen" in words and "forget(model)" in words, words
        assert "ModelChangedWarning" in words, words
        assert "wrong answer" not in words


def test_a_wrong_rank_on_a_subclassed_functional_model_names_model_input_and_expectation():
    class Ranker(keras.Model):
        def __init__(self):
            inputs = keras.Input((FEATURES,))
            super().__init__(inputs, keras.layers.Dense(3)(inputs), name="ranker")

    model = Ranker()
    predictor = SharedGraphPredictor()
    predictor.predict(model, seeded((2, FEATURES)))
    message = (
        r"model 'ranker' (expects inputs like \(None, 8\) float32; got \(2, 5, 8\) float32|"
        r"failed on an input of \(2, 5, 8\) float32 \(it expects \(None, 8\) float32\))"
    )
    with pytest.raises(ValueError, match=message):
        predictor.predict(model, np.zeros((2, 5, FEATURES), "float32"))


def sparse_and_ragged_models():
    """A model that takes a SparseTensor (its Input says so) and one whose call takes a
    RaggedTensor; model(x) serves both."""
    sparse_in = keras.Input((4,), sparse=True)
    sparse = keras.Model(sparse_in, keras.layers.Dense(2)(sparse_in), name="sparse_in")

    class RaggedSum(keras.Model):
        def call(self, x):
            return tf.reduce_sum(x, axis=1, keepdims=True) * 2.0

    ragged = RaggedSum(name="ragged_in")
    sparse_x = tf.sparse.from_dense(tf.constant([[1.0, 0.0, 0.0, 2.0]]))
    ragged_x = tf.ragged.constant([[1.0, 2.0], [3.0]])
    ragged(ragged_x)  # built
    return [
        (sparse, sparse_x, "SparseTensor", "tf.sparse.to_dense"),
        (ragged, ragged_x, "RaggedTensor", "to_tensor"),
    ]


@pytest.mark.parametrize("case", range(2), ids=["sparse", "ragged"])
def test_a_sparse_or_ragged_input_is_refused_naming_it_before_any_fallback_warning(case):
    model, x, kind, densify = sparse_and_ragged_models()[case]
    model(x)  # the model itself takes it
    predictor = SharedGraphPredictor()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fallback warning would blame the model
        with pytest.raises(ValueError) as raised:
            predictor.predict(model, x)
    words = str(raised.value)
    assert words.startswith(f"model {model.name!r} failed on an input of {kind}"), words
    assert f"a {kind} is not served" in words and densify in words, words
    assert "clone" not in words and len(words) < 400, words


def test_a_sparse_input_to_a_model_already_served_is_refused_the_same_way():
    model, x, _, _ = sparse_and_ragged_models()[0]
    predictor = SharedGraphPredictor()
    dense = tf.sparse.to_dense(x)
    with warnings.catch_warnings(record=True):  # its Input is sparse: served its own way
        want = model(dense)
        got = predictor.predict(model, dense)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(
        ValueError,
        match=r"model 'sparse_in' failed on an input of SparseTensor.*a SparseTensor is not served",
    ):
        predictor.predict(model, x)


def test_an_error_while_running_the_graph_keeps_its_type_and_names_the_model():
    inputs = keras.Input((3,), dtype="int32")
    model = keras.Model(inputs, keras.layers.Embedding(10, 2)(inputs), name="tokens")
    predictor = SharedGraphPredictor()
    predictor.predict(model, np.array([[1, 2, 3]], "int32"))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"model 'tokens' failed on an input"):
        predictor.predict(model, np.array([[1, 2, 99]], "int32"))


class Scale(keras.layers.Layer):
    """Multiplies by a factor that its get_config leaves out."""

    def __init__(self, factor=1.0, private=False, **kwargs):
        super().__init__(**kwargs)
        if private:
            self._factor = factor
        else:
            self.factor = factor

    def call(self, x):
        return x * getattr(self, "factor", getattr(self, "_factor", None))

    def get_config(self):  # forgets `factor`
        return super().get_config()


def scaled(factor, private=False):
    return keras.Sequential(
        [keras.Input((FEATURES,)), keras.layers.Dense(3), Scale(factor, private)]
    )


@pytest.mark.parametrize("private", [False, True], ids=["public", "private"])
def test_a_custom_layer_whose_config_leaves_out_an_argument_is_served_by_its_own_route(private):
    predictor = SharedGraphPredictor()
    x = seeded((4, FEATURES))
    models = [scaled(1.0, private), scaled(3.0, private)]
    assert_same(predictor.predict(models[0], x), expected(models[0], x))
    with pytest.warns(ServingFallbackWarning, match="model 'sequential_.*' cannot share a graph"):
        assert_same(predictor.predict(models[1], x), expected(models[1], x))
    reason = predictor.fallback_reason(models[1])
    if private:
        assert "differs from model(x)" in reason
    else:
        assert "layer 'scale_" in reason and "factor=3.0" in reason
    assert_same(predictor.predict(models[1], x * 2), expected(models[1], x * 2))


def test_strict_mode_refuses_what_the_shared_graph_cannot_serve():
    predictor = SharedGraphPredictor(strict=True)
    x = seeded((4, FEATURES))
    predictor.predict(scaled(1.0), x)
    with pytest.raises(UnsharableModelError, match=r"layer 'scale_.*' .*factor=3\.0"):
        predictor.predict(scaled(3.0), x)


@pytest.mark.parametrize("kind", ["string", "integer"])
def test_adapted_lookup_layers_are_served_by_their_own_route(kind):
    if kind == "string":
        lookup, data = keras.layers.StringLookup(), np.array([["a", "b"], ["c", "a"]])
    else:
        lookup, data = keras.layers.IntegerLookup(), np.array([[7, 9], [11, 7]])
    lookup.adapt(data)
    inputs = keras.Input((2,), dtype=data.dtype.name if kind == "integer" else "string")
    model = keras.Model(inputs, lookup(inputs))
    predictor = SharedGraphPredictor()
    with pytest.warns(ServingFallbackWarning, match="keeps state outside its variables"):
        got = predictor.predict(model, data)
    assert_same(got, expected(model, data))
    assert "lookup" in predictor.fallback_reason(model)


def lookup_embedding() -> keras.Model:
    """A model on the own route: an adapted StringLookup (a table), then an Embedding."""
    lookup = keras.layers.StringLookup()
    lookup.adapt(np.array([["a", "b"], ["c", "a"]]))
    inputs = keras.Input((2,), dtype="string")
    embedded = keras.layers.Embedding(lookup.vocabulary_size(), 3)(lookup(inputs))
    return keras.Model(inputs, embedded)


def words(batch: int) -> np.ndarray:
    return np.array([["a", "c"], ["b", "zz"], ["c", "a"]] * batch)[:batch]


def test_the_own_route_traces_once_per_kind_of_input_and_follows_new_weights():
    model, predictor = lookup_embedding(), SharedGraphPredictor()
    with pytest.warns(ServingFallbackWarning, match="keeps state outside its variables"):
        predictor.predict(model, words(1))
    for batch in (1, 2, 5):
        assert_same(predictor.predict(model, words(batch)), expected(model, words(batch)))
    assert predictor.tracing_count == 1  # batch sizes share the trace
    model.set_weights([w * 2 + 1 for w in model.get_weights()])
    assert_same(predictor.predict(model, words(3)), expected(model, words(3)))
    assert_same(predictor.predict(model, [words(3)]), expected(model, [words(3)]))
    assert predictor.tracing_count == 2  # a list around the input is another kind


def test_the_own_route_under_concurrent_first_calls_traces_once():
    model, predictor = lookup_embedding(), SharedGraphPredictor()
    start, outputs = threading.Barrier(8), [None] * 8

    def serve(index: int) -> None:
        start.wait()
        outputs[index] = predictor.predict(model, words(index + 1))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ServingFallbackWarning)
        threads = [threading.Thread(target=serve, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    for index, output in enumerate(outputs):
        assert_same(output, expected(model, words(index + 1)))
    assert predictor.tracing_count == 1


def test_the_own_route_without_a_flat_call_uses_the_public_call(monkeypatch):
    monkeypatch.setattr(tf_retracing_internals, "flat_caller", lambda concrete: None)
    model, predictor = lookup_embedding(), SharedGraphPredictor()
    with pytest.warns(ServingFallbackWarning):
        assert_same(predictor.predict(model, words(2)), expected(model, words(2)))
    assert_same(predictor.predict(model, words(4)), expected(model, words(4)))


class FlattensByBatch(keras.Model):
    """A call that needs the batch size while tracing (a reshape to x.shape[0])."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras.layers.Dense(2)

    def call(self, x):
        return self.dense(tf.reshape(x, [x.shape[0], -1]))


def test_a_call_that_needs_the_batch_size_is_served_with_exact_shapes():
    models = [FlattensByBatch() for _ in range(2)]
    for model in models:
        model(seeded((3, 2, 2)))
    predictor = SharedGraphPredictor()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServingFallbackWarning)
        for model in models:
            for batch in (3, 5, 3):
                x = seeded((batch, 2, 2))
                assert_same(predictor.predict(model, x), expected(model, x))
    traced = predictor.tracing_count
    predictor.predict(models[0], seeded((5, 2, 2)))
    assert predictor.tracing_count == traced  # each shape's graph is kept
    with pytest.raises(ValueError, match="flattens_by_batch"):
        predictor.predict(models[0], seeded((3, 2, 2, 2)))


class ReshapeToBatch(keras.layers.Layer):
    def call(self, x):
        return tf.reshape(x, [x.shape[0], -1])


def test_the_own_route_serves_a_call_that_needs_the_batch_size_with_exact_shapes():
    lookup = keras.layers.StringLookup()
    lookup.adapt(np.array([["a", "b"], ["c", "a"]]))
    inputs = keras.Input((2,), batch_size=3, dtype="string")
    embedded = keras.layers.Embedding(lookup.vocabulary_size(), 3)(lookup(inputs))
    model = keras.Model(inputs, ReshapeToBatch()(embedded))
    predictor = SharedGraphPredictor()
    with pytest.warns(ServingFallbackWarning, match="keeps state outside its variables"):
        got = predictor.predict(model, words(3))
    assert_same(got, expected(model, words(3)))
    assert_same(predictor.predict(model, words(3)), expected(model, words(3)))


class Subclassed(keras.Model):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
        self.dense = keras.layers.Dense(3)

    def call(self, x):
        return self.dense(x) * self.factor


class FunctionalSubclass(keras.Model):
    def __init__(self):
        inputs = keras.Input((FEATURES,))
        super().__init__(inputs, keras.layers.Dense(3)(inputs))

    def call(self, x, training=False):
        return super().call(x, training=training) + 1.0


@pytest.mark.parametrize("make", [Subclassed, FunctionalSubclass])
def test_subclassed_models_share_their_templates_graph(make):
    x = seeded((4, FEATURES))
    models = [make() for _ in range(3)]
    for model in models:
        model(x)
    predictor = SharedGraphPredictor()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServingFallbackWarning)
        for model in models:
            assert_same(predictor.predict(model, x), expected(model, x))
            assert_same(predictor.predict(model, x[:2]), expected(model, x[:2]))
    # The template's trace (batch sizes share it), and one comparison trace per other model.
    assert predictor.tracing_count == 1 + 2
    assert [predictor.fallback_reason(m) for m in models] == [None, None, None]


def test_a_subclass_whose_python_state_changes_its_graph_takes_its_own_route():
    x = seeded((4, FEATURES))
    models = [Subclassed(2.0), Subclassed(3.0)]
    for model in models:
        model(x)
    predictor = SharedGraphPredictor()
    predictor.predict(models[0], x)
    with pytest.warns(ServingFallbackWarning, match="its call traces another graph than"):
        assert_same(predictor.predict(models[1], x), expected(models[1], x))
    assert_same(predictor.predict(models[0], x), expected(models[0], x))


def test_the_template_of_a_subclass_is_held_weakly_and_replaced_after_a_check():
    x = seeded((4, FEATURES))
    predictor = SharedGraphPredictor()
    first = Subclassed(2.0)
    first(x)
    predictor.predict(first, x)
    first_ref = weakref.ref(first)
    del first
    gc.collect()
    assert first_ref() is None  # dropping every model of the class frees them all
    # The next model takes the template's place only after the usual check: a model
    # whose call differs is not served from the old graph.
    other, same = Subclassed(3.0), Subclassed(2.0)
    other(x), same(x)
    with pytest.warns(ServingFallbackWarning, match="its call traces another graph than"):
        assert_same(predictor.predict(other, x), expected(other, x))
    assert_same(predictor.predict(same, x), expected(same, x))
    assert predictor.fallback_reason(same) is None
    traces = predictor.tracing_count
    later = Subclassed(2.0)
    later(x)
    assert_same(predictor.predict(later, x), expected(later, x))
    assert predictor.tracing_count == traces + 1  # one comparison trace, as for any model


def test_a_stateful_rnn_takes_its_own_route_and_keeps_its_state():
    def stateful():
        return keras.Sequential(
            [keras.Input((3, 2), batch_size=2), keras.layers.SimpleRNN(4, stateful=True)]
        )

    served, reference = stateful(), stateful()
    reference.set_weights(served.get_weights())
    predictor = SharedGraphPredictor()
    x = seeded((2, 3, 2))
    with pytest.warns(ServingFallbackWarning, match="is stateful"):
        first = predictor.predict(served, x)
    second = predictor.predict(served, x)
    assert_same(first, expected(reference, x))
    assert_same(second, expected(reference, x))  # the state moved on in both


def test_a_model_that_cannot_be_cloned_takes_its_own_route():
    class NoConfig(keras.layers.Layer):
        def __init__(self, units):  # a required argument that get_config does not give
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units))

        def call(self, x):
            return x @ self.kernel

    model = keras.Sequential([keras.Input((FEATURES,)), NoConfig(6)])
    predictor = SharedGraphPredictor()
    with pytest.warns(ServingFallbackWarning, match="cannot be rebuilt from its config"):
        assert_same(
            predictor.predict(model, seeded((2, FEATURES))), expected(model, seeded((2, FEATURES)))
        )


# --- Real architectures -----------------------------------------------------------------


def mobilenet_v2():
    return keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None)


def efficientnet_b0_with_adapted_stem(seed):
    """EfficientNetB0 whose stem Normalization holds its own statistics, as after loading."""
    model = keras.applications.EfficientNetB0(input_shape=(32, 32, 3), weights=None)
    rng = np.random.default_rng(seed)
    stem = next(layer for layer in model.layers if isinstance(layer, keras.layers.Normalization))
    stem.adapt_mean.assign(rng.uniform(50, 150, stem.adapt_mean.shape))
    stem.adapt_variance.assign(rng.uniform(100, 900, stem.adapt_variance.shape))
    stem.finalize_state()
    return model


# Weekly (about 10 CPU-seconds): make test requires instead a passing run of the serving
# corpus, which holds both architectures, at the predictor's code as it is now and on the
# TensorFlow installed, and runs its tabular_normalization live: models whose Normalization
# layers hold statistics of their own, as this EfficientNetB0's stem does
# (tests/test_serving_corpus.py).
@pytest.mark.scheduled
@pytest.mark.parametrize("architecture", ["MobileNetV2", "EfficientNetB0"])
def test_keras_applications_match_with_one_trace(architecture):
    if architecture == "MobileNetV2":
        models = [randomise(mobilenet_v2(), seed) for seed in range(2)]
    else:
        models = [efficientnet_b0_with_adapted_stem(seed) for seed in range(2)]
    predictor = SharedGraphPredictor()
    for batch in (1, 3):
        x = tf.constant(np.random.default_rng(batch).uniform(0, 255, (batch, 32, 32, 3)), "float32")
        for model in models:
            assert_same(predictor.predict(model, x), expected(model, x))
    assert predictor.tracing_count == 1
    assert [predictor.fallback_reason(m) for m in models] == [None, None]


def test_eight_threads_over_mixed_architectures_give_no_wrong_output():
    x = seeded((4, FEATURES), seed=11)
    models = [randomise(sequential(), i) for i in range(3)]
    models += [randomise(functional_with_batch_norm(), 10 + i) for i in range(3)]
    models += [normalized(40, seed=20 + i) for i in range(2)]
    predictor = SharedGraphPredictor()
    wrong = count_wrong_outputs(predictor, models, x, threads=8, calls_per_thread=200)
    assert wrong == 0
    assert predictor.tracing_count == 3
