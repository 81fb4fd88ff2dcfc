"""choose_xla=True: each shared graph is traced plainly and for XLA, and the XLA one kept
only where it agrees with the plain one and is faster on the first request."""

from __future__ import annotations

import time

import keras
import numpy as np
import pytest
import tensorflow as tf
from tf_retracing import SharedGraphPredictor
from tf_retracing.serving.shared_graph import _faster_of, _Graph


def bigru(seed: int) -> keras.Model:
    keras.utils.set_random_seed(seed)
    inputs = keras.Input((None,), dtype="int32")
    embedded = keras.layers.Embedding(30, 8)(inputs)
    recurrent = keras.layers.Bidirectional(keras.layers.GRU(6))(embedded)
    return keras.Model(inputs, keras.layers.Dense(2)(recurrent))


TOKENS = tf.constant(np.random.default_rng(0).integers(1, 30, (3, 9)), tf.int32)


def test_models_and_tenants_are_served_right_with_the_choice_recorded():
    predictor = SharedGraphPredictor(choose_xla=True)
    models = [bigru(seed) for seed in (1, 2)]
    for model in models:
        np.testing.assert_allclose(
            predictor.predict(model, TOKENS), model(TOKENS), rtol=0, atol=1e-5
        )
    assert predictor.tracing_count == 2  # the plain trace and the XLA one, once
    (choice,) = predictor.compilation(models[1]).values()
    assert choice["agrees"] is True and choice["reason"] is None
    assert choice["plain_us"] > 0 and choice["xla_us"] > 0
    assert choice["xla"] == (choice["xla_us"] < choice["plain_us"])
    predictor.add_weights("t", models[0], models[1].get_weights())
    np.testing.assert_allclose(predictor.predict("t", TOKENS), models[1](TOKENS), atol=1e-5)
    (tenant_choice,) = predictor.compilation("t").values()
    assert set(tenant_choice) == {"xla", "plain_us", "xla_us", "agrees", "reason"}


def test_without_choose_xla_nothing_is_compiled_for_xla():
    predictor = SharedGraphPredictor()
    model = bigru(1)
    predictor.predict(model, TOKENS)
    assert predictor.tracing_count == 1
    assert list(predictor.compilation(model).values()) == [None]
    with pytest.raises(KeyError, match="has not been served yet"):
        predictor.compilation(bigru(2))


def fake_graph(output, seconds: float) -> tuple[_Graph, callable]:
    graph = _Graph(concrete=None, fast_call=None, trainable_count=0)

    def call():
        time.sleep(seconds)
        return output

    return graph, call


@pytest.mark.parametrize(
    ("xla_output", "xla_seconds", "kept"),
    [
        (np.ones(3), 0.0, True),  # faster and agrees
        (np.ones(3), 0.004, False),  # slower
        (np.ones(3) * 2, 0.0, False),  # faster but its output differs
    ],
)
def test_xla_is_kept_only_when_faster_and_agreeing(xla_output, xla_seconds, kept):
    plain, plain_call = fake_graph(np.ones(3), 0.002)
    xla, xla_call = fake_graph(xla_output, xla_seconds)
    calls = {id(plain): plain_call, id(xla): xla_call}
    chosen = _faster_of(plain, xla, lambda graph: calls[id(graph)]())
    assert (chosen is xla) == kept
    assert chosen.compilation["xla"] == kept
    assert chosen.compilation["agrees"] == (xla_output == 1).all()


def test_a_graph_xla_cannot_run_keeps_the_plain_graph_and_says_why():
    plain, plain_call = fake_graph(np.ones(3), 0.0)
    xla = _Graph(concrete=None, fast_call=None, trainable_count=0)

    def call(graph):
        if graph is xla:
            raise tf.errors.InvalidArgumentError(None, None, "not compilable")
        return plain_call()

    chosen = _faster_of(plain, xla, call)
    assert chosen is plain
    assert chosen.compilation == {"xla": False, "reason": "XLA failed: InvalidArgumentError"}
