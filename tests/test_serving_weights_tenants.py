"""Tenants held as weights (``SharedGraphPredictor.add_weights``): served from their arrays
or their ``.weights.h5`` file through the architecture's shared graph, with no Keras model
per tenant, checked on their first request like models are."""

from __future__ import annotations

import gc
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

FEATURES = 7


def mlp_with_state(seed: int) -> keras.Model:
    """Dropout (a seed state get_weights leaves out) and BatchNormalization (non-trainable
    weights get_weights interleaves with the trainable ones)."""
    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [
            keras.Input((FEATURES,)),
            keras.layers.Dense(12, activation="relu"),
            keras.layers.Dropout(0.2),
            keras.layers.BatchNormalization(),
            keras.layers.Dense(3),
        ]
    )
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(w.dtype) for w in model.weights])
    return model


def inputs(rows: int = 4, seed: int = 0) -> tf.Tensor:
    return tf.constant(np.random.default_rng(seed).standard_normal((rows, FEATURES)), tf.float32)


def assert_close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=0, atol=1e-5)


def served_quietly(predictor, tenant, x):
    """Served with every warning of the predictor's own an error (Keras's DeprecationWarning
    from save_weights, which the first read of a file calls once, is not the predictor's)."""
    with warnings.catch_warnings():
        for category in (ServingFallbackWarning, EagerDifferenceWarning, StaleKerasStateWarning):
            warnings.simplefilter("error", category)
        return predictor.predict(tenant, x)


def test_tenants_given_as_arrays_match_their_models_with_one_trace():
    predictor = SharedGraphPredictor()
    models = [mlp_with_state(seed) for seed in range(1, 6)]
    for index, model in enumerate(models):
        predictor.add_weights(f"tenant-{index}", models[0], model.get_weights())
    x = inputs()
    for batch in (x, x[:1]):
        for index, model in enumerate(models):
            assert_close(served_quietly(predictor, f"tenant-{index}", batch), model(batch))
    assert predictor.tracing_count == 1
    assert predictor.tenant_count == 5
    assert predictor.fallback_reason("tenant-3") is None


def test_the_architecture_model_and_the_arrays_are_not_kept():
    predictor = SharedGraphPredictor()
    model = mlp_with_state(1)
    weights = model.get_weights()
    predictor.add_weights("a", model, weights)
    expected_output = np.asarray(model(inputs()))
    model_ref, array_ref = weakref.ref(model), weakref.ref(weights[0])
    del model, weights
    gc.collect()
    assert model_ref() is None and array_ref() is None
    assert_close(served_quietly(predictor, "a", inputs()), expected_output)


def test_every_tenant_of_an_architecture_shares_one_key_object():
    """A key is the architecture's config as JSON, kilobytes long: each tenant keeping a
    copy of its own cost a small CNN a fifth of its weights' bytes again."""
    models = [mlp_with_state(seed) for seed in (1, 2)]
    assert architecture_key(models[0]) is architecture_key(models[1])
    predictor = SharedGraphPredictor()
    for index, model in enumerate(models):
        predictor.add_weights(f"tenant-{index}", model, model.get_weights())
    keys = {id(record.key) for record in predictor._tenants.values()}
    assert len(keys) == 1


def test_a_weights_file_is_read_on_the_first_request_not_before(tmp_path):
    path = tmp_path / "tenant.weights.h5"
    first, second = mlp_with_state(1), mlp_with_state(2)
    first.save_weights(path)
    predictor = SharedGraphPredictor()
    predictor.add_weights("from-disk", first, path)
    second.save_weights(path)  # replaced after add_weights: the request reads this one
    assert_close(served_quietly(predictor, "from-disk", inputs()), second(inputs()))
    first.save_weights(path)  # read once: later changes to the file are not followed
    assert_close(served_quietly(predictor, "from-disk", inputs()), second(inputs()))


def test_an_architecture_given_by_its_key_after_a_model_of_it():
    predictor = SharedGraphPredictor()
    first, second = mlp_with_state(1), mlp_with_state(2)
    predictor.add_weights("a", first, first.get_weights())
    predictor.add_weights("b", architecture_key(first), second.get_weights())
    assert_close(served_quietly(predictor, "b", inputs()), second(inputs()))
    with pytest.raises(KeyError, match="tenant 'c': no architecture with this key"):
        predictor.add_weights("c", architecture_key(keras.Sequential([keras.Input((2,))])), [])


def test_adding_a_tenant_again_replaces_its_weights_and_forget_drops_it():
    predictor = SharedGraphPredictor()
    first, second = mlp_with_state(1), mlp_with_state(2)
    predictor.add_weights("a", first, first.get_weights())
    served_quietly(predictor, "a", inputs())
    predictor.add_weights("a", first, second.get_weights())
    assert_close(served_quietly(predictor, "a", inputs()), second(inputs()))
    predictor.forget("a")
    with pytest.raises(TypeError, match="expected a Keras model, got str"):
        predictor.predict("a", inputs())
    with pytest.raises(KeyError, match="no tenant 'a' was given to add_weights"):
        predictor.fallback_reason("a")


def test_weights_of_the_wrong_count_or_shape_name_the_tenant_and_the_weight():
    predictor = SharedGraphPredictor()
    model = mlp_with_state(1)
    weights = model.get_weights()
    with pytest.raises(ValueError, match=r"tenant 'x': the list holds 5 weight arrays, and"):
        predictor.add_weights("x", model, weights[:5])
    weights[2] = np.zeros((3, 12), np.float32)
    with pytest.raises(
        ValueError,
        match=r"tenant 'x': weight 2 \(.*batch_normalization.*/gamma\) of the list has shape "
        r"\(3, 12\), and the architecture's has \(12,\)",
    ):
        predictor.add_weights("x", model, weights)


def test_a_weights_file_that_does_not_fit_names_the_tenant_and_the_file(tmp_path):
    other = keras.Sequential([keras.Input((FEATURES,)), keras.layers.Dense(5)])
    path = tmp_path / "other.weights.h5"
    other.save_weights(path)
    predictor = SharedGraphPredictor()
    predictor.add_weights("y", mlp_with_state(1), path)
    with pytest.raises(ValueError, match=f"tenant 'y': cannot read {path} into its architecture"):
        predictor.predict("y", inputs())


def test_a_missing_or_misnamed_weights_file_is_refused_when_added(tmp_path):
    predictor = SharedGraphPredictor()
    model = mlp_with_state(1)
    with pytest.raises(FileNotFoundError, match="tenant 'z': no weights file at"):
        predictor.add_weights("z", model, tmp_path / "absent.weights.h5")
    with pytest.raises(ValueError, match=r"tenant 'z': .*model\.h5 is not a Keras weights file"):
        predictor.add_weights("z", model, tmp_path / "model.h5")
    with pytest.raises(TypeError, match="tenant 'z': weights must be a list of arrays"):
        predictor.add_weights("z", model, {"kernel": 1})


def test_an_input_that_does_not_fit_names_the_tenant():
    predictor = SharedGraphPredictor()
    model = mlp_with_state(1)
    predictor.add_weights("t", model, model.get_weights())
    with pytest.raises(ValueError, match=r"tenant 't' failed on an input of \(2, 3\) float32"):
        predictor.predict("t", tf.ones((2, 3)))


def test_a_sparse_input_to_a_tenant_is_refused_naming_the_tenant():
    predictor = SharedGraphPredictor()
    model = mlp_with_state(1)
    predictor.add_weights("t", model, model.get_weights())
    x = tf.sparse.from_dense(inputs())
    with pytest.raises(
        ValueError,
        match=r"tenant 't' failed on an input of SparseTensor.*a SparseTensor is not served",
    ):
        predictor.predict("t", x)


def test_a_subclassed_architecture_is_refused_naming_the_tenant():
    class Doubled(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return 2 * self.dense(x)

    model = Doubled()
    model(inputs())
    with pytest.raises(UnsharableModelError, match="tenant 's': the architecture of model"):
        SharedGraphPredictor().add_weights("s", model, model.get_weights())


def test_a_model_is_not_a_tenant_id():
    model = mlp_with_state(1)
    with pytest.raises(TypeError, match="add_weights takes a tenant id, not a model"):
        SharedGraphPredictor().add_weights(model, model, model.get_weights())


def test_adapted_normalization_statistics_come_from_each_tenants_weights():
    def normalized(data):
        normalization = keras.layers.Normalization()
        normalization.adapt(data)
        return keras.Sequential(
            [keras.Input((FEATURES,)), normalization, keras.layers.Dense(2, use_bias=False)]
        )

    rng = np.random.default_rng(3)
    first = normalized(rng.normal(0, 1, (50, FEATURES)).astype("float32"))
    second = normalized(rng.normal(5, 3, (50, FEATURES)).astype("float32"))
    second.layers[-1].set_weights(first.layers[-1].get_weights())
    predictor = SharedGraphPredictor()
    predictor.add_weights("one", first, first.get_weights())
    predictor.add_weights("two", first, second.get_weights())
    assert_close(served_quietly(predictor, "two", inputs()), second(inputs()))
    assert not np.allclose(second(inputs()), first(inputs()))


def test_a_tenant_whose_check_fails_is_served_by_the_architectures_own_call(monkeypatch):
    from tf_retracing.serving import routing

    real = routing._weights_defined_output
    monkeypatch.setattr(routing, "_weights_defined_output", lambda *a: real(*a) + 1.0)
    predictor = SharedGraphPredictor()
    model = mlp_with_state(1)
    predictor.add_weights("w", model, model.get_weights())
    with pytest.warns(ServingFallbackWarning, match="tenant 'w' cannot share a graph"):
        predictor.predict("w", inputs())
    assert "differs from model(x)" in predictor.fallback_reason("w")
    monkeypatch.setattr(routing, "_weights_defined_output", real)
    assert_close(predictor.predict("w", inputs()), model(inputs()))
    strict = SharedGraphPredictor(strict=True)
    strict.add_weights("w", model, model.get_weights())
    monkeypatch.setattr(routing, "_weights_defined_output", lambda *a: real(*a) + 1.0)
    with pytest.raises(UnsharableModelError, match="tenant 'w' cannot share a graph"):
        strict.predict("w", inputs())


def test_concurrent_first_requests_from_disk_give_each_tenant_its_output(tmp_path):
    models = [mlp_with_state(seed) for seed in range(1, 9)]
    predictor = SharedGraphPredictor()
    for index, model in enumerate(models):
        path = tmp_path / f"t{index}.weights.h5"
        model.save_weights(path)
        predictor.add_weights(index, models[0], path)
    x = inputs()
    wanted = [np.asarray(model(x)) for model in models]
    wrong, errors = [], []

    def client(order):
        try:
            for index in order:
                if not np.allclose(predictor.predict(index, x), wanted[index], atol=1e-5):
                    wrong.append(index)
        except Exception as error:  # reported below, with the thread's error
            errors.append(error)

    orders = [list(np.random.default_rng(k).permutation(8)) for k in range(4)]
    threads = [threading.Thread(target=client, args=(order,)) for order in orders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and wrong == []
    assert predictor.tracing_count == 1


def test_a_weights_file_with_a_wrong_shape_inside_names_the_tenant_file_and_weight(tmp_path):
    import h5py

    model = mlp_with_state(1)
    path = tmp_path / "tenant.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "r+") as file:
        names = []
        file.visititems(lambda name, item: names.append(name) if hasattr(item, "shape") else None)
        kernel = next(name for name in names if tuple(file[name].shape) == (FEATURES, 12))
        del file[kernel]
        file[kernel] = np.zeros((FEATURES, 11), np.float32)
    predictor = SharedGraphPredictor()
    predictor.add_weights("v", model, path)
    with pytest.raises(
        ValueError,
        match=rf"tenant 'v': weight 0 \(.*dense.*/kernel\) of {path} has shape \({FEATURES}, 11\)",
    ):
        predictor.predict("v", inputs())


def test_a_weights_file_read_directly_gives_what_keras_load_weights_gives(tmp_path, monkeypatch):
    # Written by Keras for a model with interleaved non-trainable weights and a nested
    # model: read through the layout learnt from Keras, each weight lands in its place.
    def nested(seed):
        keras.utils.set_random_seed(seed)
        inner = keras.Sequential([keras.Input((FEATURES,)), keras.layers.Dense(5)])
        inputs_ = keras.Input((FEATURES,))
        hidden = keras.layers.BatchNormalization()(inner(inputs_))
        model = keras.Model(inputs_, keras.layers.Dense(2)(hidden))
        rng = np.random.default_rng(seed)
        model.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(w.dtype) for w in model.weights])
        return model

    first, second = nested(1), nested(2)
    path = tmp_path / "second.weights.h5"
    second.save_weights(path)
    predictor = SharedGraphPredictor()
    predictor.add_weights("n", first, path)
    with monkeypatch.context() as patched:  # read without Keras's loader, or fail here
        patched.setattr(keras.Model, "load_weights", lambda *a, **k: pytest.fail("Keras read"))
        assert_close(served_quietly(predictor, "n", inputs()), second(inputs()))
    first.load_weights(path)
    assert_close(served_quietly(predictor, "n", inputs()), first(inputs()))


def counted_checks(monkeypatch) -> dict:
    """Count the check's eager reference calls and the tenant graph's calls."""
    from tf_retracing.serving import routing, shared_graph

    counts = {"eager": 0, "graph": 0}
    real_eager, real_graph = routing._weights_defined_output, shared_graph._Graph.call_values

    def eager(*args):
        counts["eager"] += 1
        return real_eager(*args)

    def graph(self, *args):
        counts["graph"] += 1
        return real_graph(self, *args)

    monkeypatch.setattr(routing, "_weights_defined_output", eager)
    monkeypatch.setattr(shared_graph._Graph, "call_values", graph)
    return counts


def test_a_further_tenants_first_request_runs_the_graph_and_the_eager_call_once(monkeypatch):
    counts = counted_checks(monkeypatch)
    predictor = SharedGraphPredictor()
    models = [mlp_with_state(seed) for seed in (1, 2)]
    for k, model in enumerate(models):
        predictor.add_weights(k, model, model.get_weights())
    x = inputs()
    assert_close(predictor.predict(0, x), models[0](x))
    # The first tenant: the request's input and the perturbed one, each both ways.
    assert counts == {"eager": 2, "graph": 2}
    assert_close(predictor.predict(1, x), models[1](x))
    # A further tenant: its own input once each way, and the graph's output is the answer.
    assert counts == {"eager": 3, "graph": 3}
    assert_close(predictor.predict(1, x), models[1](x))
    assert counts == {"eager": 3, "graph": 4}


def test_the_perturbed_input_is_probed_until_a_tenants_check_passes_with_it(monkeypatch):
    """A graph that is right on the request's input only (as one that kept the input it
    was traced on would be) fails every tenant's check, not only the first one's."""
    from tf_retracing.serving import routing

    real = routing._weights_defined_output
    first_input = inputs()

    def wrong_off_the_first_input(model, x, snapshot):
        output = real(model, x, snapshot)
        same = x.shape == first_input.shape and np.array_equal(x, first_input)
        return output if same else output + 1.0

    monkeypatch.setattr(routing, "_weights_defined_output", wrong_off_the_first_input)
    predictor = SharedGraphPredictor()
    models = [mlp_with_state(seed) for seed in (1, 2)]
    for k, model in enumerate(models):
        predictor.add_weights(k, model, model.get_weights())
    for k in range(2):
        with pytest.warns(ServingFallbackWarning, match=f"tenant {k} cannot share a graph"):
            predictor.predict(k, first_input)
        assert "differs from model(x)" in predictor.fallback_reason(k)


def test_freed_heap_memory_is_returned_once_per_so_many_tenant_checks():
    from tf_retracing.serving.freed_memory import FreedMemory

    calls = []
    predictor = SharedGraphPredictor()
    predictor._freed_memory = FreedMemory(every=3, trim=calls.append)
    model = mlp_with_state(0)
    x = inputs()
    for k in range(7):
        predictor.add_weights(k, model, mlp_with_state(k).get_weights())
        served_quietly(predictor, k, x)
    for k in range(7):  # steady requests check nothing, so trim nothing
        served_quietly(predictor, k, x)
    assert calls == [0, 0]  # after the 3rd and 6th of 7 checks, malloc_trim(0)
    assert predictor._freed_memory.trims == 2


def test_without_a_c_library_trim_nothing_is_called():
    from tf_retracing.serving.freed_memory import FreedMemory

    freed = FreedMemory(every=1, trim=None)
    freed._trim = None  # as on a system whose C library has no malloc_trim
    freed.after_check()
    assert freed.trims == 0
