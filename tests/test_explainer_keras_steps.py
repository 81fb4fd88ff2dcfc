"""Every step function Keras builds is explained where Keras calls it: ``train_on_batch``,
``test_on_batch`` and ``predict_on_batch`` as well as ``fit``, on Keras 3 (whose
``train_function`` is a plain function holding its tf.functions in closures, one behind a
``functools.wraps`` wrapper) and on tf-keras (whose step functions are tf.functions).
Each test feeds a growing sequence length, the report that once gave no reason at all."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from tf_retracing import explain_retracing
from tf_retracing.explainer import watch as rx_watch

LENGTHS = (2, 3, 4)


def sequence_model(keras):
    model = keras.Sequential(
        [keras.Input((None, 3)), keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)]
    )
    model.compile("sgd", "mse")
    return model


def step_calls(model):
    """Per step kind: the call that goes through it, given a sequence length."""
    return {
        "train": lambda n: model.train_on_batch(np.zeros((2, n, 3)), np.zeros((2, 1))),
        "test": lambda n: model.test_on_batch(np.zeros((2, n, 3)), np.zeros((2, 1))),
        "predict": lambda n: model.predict_on_batch(np.zeros((2, n, 3))),
    }


def traces_of(watched) -> int:
    functions = getattr(watched, "watched_functions", [watched])
    return sum(function.experimental_get_tracing_count() for function in functions)


@pytest.mark.parametrize("library", ["keras", "tf_keras"])
@pytest.mark.parametrize("step", ["train", "test", "predict"])
def test_each_step_path_gives_a_reason_for_every_retrace(library, step):
    keras = importlib.import_module(library)
    model = sequence_model(keras)
    getattr(model, f"make_{step}_function")()
    attribute = f"{step}_function"
    watched = explain_retracing(getattr(model, attribute))
    setattr(model, attribute, watched)  # tf-keras's is a tf.function: watched as a copy
    for length in LENGTHS:
        step_calls(model)[step](length)
    reasons = watched.retrace_reasons
    shape_reasons = [r for r in reasons if r.kind == "shape"]
    assert len(shape_reasons) == 1, [r.message for r in reasons]
    (reason,) = shape_reasons
    assert (reason.before.split(", ")[1], reason.after.split(", ")[1]) == ("2", "3")
    # Never silent: every trace TensorFlow counted beyond the first is a reason.
    first_traces = len(getattr(watched, "watched_functions", [watched]))
    assert len(reasons) >= traces_of(watched) - first_traces
    # Advice the user can act on: their data's shapes, not Keras's internals.
    assert "padded_batch" in reason.message
    assert "create them outside the function" not in " ".join(r.message for r in reasons)
    assert reason.message.count("[TFR001]") == 1


def test_keras_train_and_test_steps_from_one_builder_are_not_a_new_function_each(monkeypatch):
    monkeypatch.setattr(rx_watch, "_CODE_STATS", {})  # as in a new process: no earlier model
    keras = importlib.import_module("keras")
    model = sequence_model(keras)
    model.make_train_function()
    model.make_test_function()
    train = explain_retracing(model.train_function)
    test = explain_retracing(model.test_function)
    model.train_on_batch(np.zeros((2, 2, 3)), np.zeros((2, 1)))
    model.test_on_batch(np.zeros((2, 2, 3)), np.zeros((2, 1)))
    # Both steps come from one Keras function, made for two purposes: no retrace.
    assert train.retrace_reasons == [] and test.retrace_reasons == []
