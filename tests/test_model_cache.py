"""SharedGraphPredictor against the models it serves, and the swap baseline beside it."""

from __future__ import annotations

import gc
import weakref

import keras
import numpy as np
import pytest
import tensorflow as tf

from snippets.model_cache import SharedGraphPredictor, architecture_key
from snippets.weight_swap_cache import WeightSwapCache, count_wrong_outputs

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


def expected(model, x):
    return model(x, training=False).numpy()


def assert_same(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=0, atol=1e-6)


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
        x = tf.random.normal((batch, FEATURES), seed=batch)
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
    x = tf.random.normal((5, FEATURES))
    for seed in range(2):
        model = randomise(build(), seed)
        got = predictor.predict(model, x)
        assert got.dtype == model(x, training=False).dtype
        assert_same(got, expected(model, x))
    assert predictor.tracing_count == 1


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


def test_eight_threads_give_no_wrong_output_while_the_swap_baseline_gives_many(eight_models):
    x = tf.random.normal((4, FEATURES), seed=7)
    models = [randomise(sequential(), 20 + i) for i in range(8)]
    predictor = SharedGraphPredictor()
    assert count_wrong_outputs(predictor, models, x, threads=8, calls_per_thread=500) == 0
    assert predictor.tracing_count == 1

    # The baseline is far slower per call, so fewer calls already show the race.
    baseline = WeightSwapCache()
    wrong = count_wrong_outputs(baseline, models, x, threads=8, calls_per_thread=25)
    print(f"WeightSwapCache: {wrong} wrong outputs in {8 * 25} concurrent calls")
    assert wrong > 0


def test_single_threaded_baseline_is_right_for_one_architecture(eight_models):
    baseline = WeightSwapCache()
    x = tf.random.normal((5, FEATURES))
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
    x = tf.random.normal((5, FEATURES))
    baseline.predict(sequential(activation="relu"), x)
    tanh_model = sequential(activation="tanh")
    got = baseline.predict(tanh_model, x).numpy()
    assert np.abs(got - expected(tanh_model, x)).max() > 1e-3


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
    assert len(predictor._served) == 0
    assert predictor.architecture_count == 1  # the trace stays for the next such model


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


def test_max_architectures_must_be_positive():
    with pytest.raises(ValueError, match="max_architectures must be at least 1, got 0"):
        SharedGraphPredictor(max_architectures=0)


@pytest.mark.parametrize(
    ("x", "message"),
    [
        (tf.ones((2, FEATURES + 1)), r"expects input of shape \(None, 8\) .* got shape \(2, 9\)"),
        (tf.ones((2, FEATURES), tf.float64), "dtype float32, got .* dtype float64"),
        (tf.ones((FEATURES,)), r"got shape \(8,\)"),
        ([tf.ones((2, FEATURES))] * 2, r"got shape \(2, 2, 8\)"),
        ("eight floats", r"got shape \(\) and dtype string"),
        (object(), "got object: "),
    ],
    ids=["feature-shape", "dtype", "rank", "list-of-two", "string", "not-a-tensor"],
)
def test_an_input_that_does_not_fit_is_refused(eight_models, x, message):
    with pytest.raises(ValueError, match=message):
        SharedGraphPredictor().predict(eight_models[0], x)


def test_multi_input_model_refuses_another_structure():
    x = {"a": tf.ones((6, 3)), "c": tf.ones((6, 2))}
    with pytest.raises(ValueError, match="expects inputs structured as"):
        SharedGraphPredictor().predict(two_inputs(), x)


def test_an_unbuilt_model_is_refused():
    unbuilt = keras.Sequential([keras.layers.Dense(3)])
    with pytest.raises(ValueError, match="is not built"):
        SharedGraphPredictor().predict(unbuilt, tf.ones((2, FEATURES)))


@pytest.mark.parametrize("not_a_model", [keras.layers.Dense(3), lambda x: x, None])
def test_an_object_that_is_not_a_keras_model_is_refused(not_a_model):
    with pytest.raises(TypeError, match="expected a Keras model, got"):
        SharedGraphPredictor().predict(not_a_model, tf.ones((2, FEATURES)))


def test_a_subclassed_model_without_symbolic_inputs_is_refused():
    class Subclassed(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = keras.layers.Dense(3)

        def call(self, x):
            return self.dense(x)

    model = Subclassed()
    model(tf.ones((1, FEATURES)))
    with pytest.raises(TypeError, match="has no symbolic inputs"):
        SharedGraphPredictor().predict(model, tf.ones((2, FEATURES)))


def test_a_layer_whose_config_cannot_rebuild_it_is_refused():
    class Incomplete(keras.layers.Layer):
        def __init__(self, units=4, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units))

        def call(self, x):
            return x @ self.kernel

        def get_config(self):  # forgets `units`
            return super().get_config()

    model = keras.Sequential([keras.Input((FEATURES,)), Incomplete(units=6)])
    with pytest.raises(TypeError, match="cannot be rebuilt from its config"):
        SharedGraphPredictor().predict(model, tf.ones((2, FEATURES)))
