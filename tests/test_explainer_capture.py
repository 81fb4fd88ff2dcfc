"""What the explainer watches and how it reads it, on real TensorFlow and Keras: SavedModel
functions, Keras step functions, recursion, and bad input (issue 16's first class of
failures). Each test is a minimal program of our own."""

from __future__ import annotations

import pickle
from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf
from tf_retracing import (
    RetracingBudgetExceeded,
    _internals,
    explain_retracing,
    report,
    tracing_budget,
    watch_every_tf_function,
)
from tf_retracing.explainer import WatchedCaller, WatchedCopyWarning
from tf_retracing.explainer import watch as rx_watch


class Doubler(tf.Module):
    @tf.function
    def scale(self, x):
        return x * 2.0


def saved_doubler(folder) -> str:
    """A SavedModel whose `scale` was traced for any length of vector: loaded, it traces
    once per new length (its Python body picks the saved graph each time)."""
    module = Doubler()
    module.scale.get_concrete_function(tf.TensorSpec([None], tf.float32))
    path = str(folder / "doubler")
    tf.saved_model.save(module, path)
    return path


def calls_of(function, lengths=(2, 3, 3, 4)):
    seen = [function(tf.ones(n)).numpy().tolist() for n in lengths]
    with pytest.raises(ValueError) as error:  # no saved graph for a matrix
        function(tf.ones((2, 2)))
    first_line = str(error.value).splitlines()[0]
    return seen, function.experimental_get_tracing_count(), first_line


def test_saving_is_explained_as_saving_not_as_a_shape_change(tmp_path):
    @explain_retracing
    def scale(x):
        return x * 2.0

    module = tf.Module()
    module.scale = scale
    scale(tf.ones((2, 5)))
    tf.saved_model.save(module, str(tmp_path / "m"))
    reason = scale.retrace_reasons[-1]
    assert (reason.argument, reason.kind, reason.subkind) == (None, "context", "saving")
    assert "(2, 5) to (2, 5)" not in reason.message
    assert reason.others == ()
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert loaded.scale(tf.ones((2, 5))).numpy().sum() == 20.0


def test_specs_named_apart_are_explained_by_their_names():
    watched = explain_retracing(lambda x: x)
    watched.get_concrete_function(tf.TensorSpec([2], tf.float32, name="a"))
    watched.get_concrete_function(tf.TensorSpec([2], tf.float32, name="b"))
    (reason,) = watched.retrace_reasons
    assert (reason.argument, reason.subkind, reason.before, reason.after) == (
        "x",
        "spec-name",
        "'a'",
        "'b'",
    )


def test_whole_program_mode_watches_functions_loaded_from_a_saved_model(tmp_path):
    path = saved_doubler(tmp_path)
    unwatched = calls_of(tf.saved_model.load(path).scale)
    with watch_every_tf_function() as watches:
        loaded = tf.saved_model.load(path)
    assert calls_of(loaded.scale) == unwatched  # same results, traces and errors
    (watch,) = watches
    assert (watch.name, watch.where) == ("scale", "a SavedModel")
    shapes = [(r.argument, r.kind, r.before, r.after) for r in loaded.scale.retrace_reasons]
    assert shapes == [("x", "shape", "(2,)", "(3,)"), ("x", "shape", "(3,)", "(4,)")]
    assert "restored_function_body" not in report(watches)
    assert _internals.function_deserialization.recreate_function.__name__ == (
        "recreate_function"
    )  # put back after the block


def test_a_wrapped_loaded_function_keeps_its_name_and_signature(tmp_path):
    loaded = tf.saved_model.load(saved_doubler(tmp_path))
    watched = explain_retracing(loaded.scale)
    assert calls_of(watched) == calls_of(tf.saved_model.load(saved_doubler(tmp_path)).scale)
    reason = watched.retrace_reasons[0]
    assert (reason.function, reason.argument) == ("scale", "x")
    assert reason.kind == "shape"  # not "a new tf.function object", as loaded bodies share code
    again = tf.saved_model.load(str(tmp_path / "doubler"))
    again.scale = explain_retracing(again.scale)  # and it saves again like the loaded one
    tf.saved_model.save(again, str(tmp_path / "again"))
    assert tf.saved_model.load(str(tmp_path / "again")).scale(tf.ones(2)).numpy().tolist() == [
        2.0,
        2.0,
    ]


def small_model():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def test_a_keras_train_function_is_explained_where_keras_calls_it():
    model = small_model()
    model.fit(np.zeros((8, 4)), np.zeros((8, 1)), epochs=1, verbose=0)
    watched = explain_retracing(model.train_function)  # a plain function in Keras 3
    assert isinstance(watched, WatchedCaller) and watched.__wrapped__ is model.train_function
    names = [function.__name__ for function in watched.watched_functions]
    # fit's path first; train_on_batch's behind Keras's functools.wraps wrapper below it
    assert names == ["multi_step_on_iterator", "one_step_on_data"]
    # fit keeps calling model.train_function, which now calls the watched step function.
    history = model.fit(np.zeros((8, 4)), np.zeros((8, 1)), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    # Sample weights make each element a triple: the step function traces again.
    model.fit(np.zeros((8, 4)), np.zeros((8, 1)), sample_weight=np.ones(8), verbose=0)
    # Both step functions trace again (the inner one inside the outer's trace); an earlier
    # test's model may have made this step's code trace before (a new tf.function).
    outer, inner = (r for r in watched.retrace_reasons if r.kind == "structure")
    assert (inner.argument, inner.before, inner.after) == ("data", "a tuple of 2", "a tuple of 3")
    reason = outer
    assert (reason.argument, reason.kind) == ("iterator.element_spec", "structure")
    assert (reason.before, reason.after) == ("a tuple of 2", "a tuple of 3")
    assert "keras/src" not in reason.message


def test_a_plain_function_calling_a_closure_tf_function_is_watched_where_it_calls_it():
    inner = tf.function(lambda x: x + 1)

    def outer(x):
        return inner(x) * 2

    watched = explain_retracing(outer)
    assert watched(tf.constant(1)).numpy() == 4
    assert outer(tf.constant([1, 2])).numpy().tolist() == [4, 6]  # through the original too
    (reason,) = watched.retrace_reasons
    assert (reason.argument, reason.kind) == ("x", "shape")
    assert inner.experimental_get_tracing_count() == 2  # watched in place: its own traces
    again = explain_retracing(tf.function(outer))  # one graph around it, if asked for
    assert again(tf.constant(1)).numpy() == 4


def test_a_keras_predict_function_is_watched_in_place(monkeypatch):
    monkeypatch.setattr(rx_watch, "_CODE_STATS", {})  # as in a new process: no earlier model
    model = small_model()
    model.predict(np.zeros((8, 4)), verbose=0)
    with pytest.warns(WatchedCopyWarning, match="has traced already"):  # a copy, said so
        model.predict_function = explain_retracing(model.predict_function)
    model.predict(np.zeros((8, 4)), verbose=0)
    model.predict(np.zeros((5, 4)), verbose=0)
    (reason,) = model.predict_function.retrace_reasons
    assert (reason.argument, reason.kind, reason.before, reason.after) == (
        "data[0]",
        "shape",
        "(8, 4)",
        "(5, 4)",
    )
    assert "generator" not in reason.message


def test_a_keras_model_per_loop_iteration_points_at_the_users_line():
    with watch_every_tf_function() as watches:
        for _ in range(3):
            small_model().predict(np.zeros((2, 4)), verbose=0)  # the line to blame
    reasons = [r for watch in watches for r in watch.reasons if r.subkind == "new-tf-function"]
    assert len(reasons) >= 2  # 3 if an earlier test made a Keras predict function
    message = reasons[-1].message
    assert "keras makes it for your code at test_explainer_capture.py:" in message
    line = int(message.split("test_explainer_capture.py:")[1].split(",")[0])
    source = Path(__file__).read_text().splitlines()[line - 1]
    assert "the line to blame" in source


def test_the_report_keeps_each_distinct_change_with_its_count():
    with watch_every_tf_function() as watches:

        @tf.function
        def step(n):
            return n

        for n in range(6):
            step(n)
        step(tf.constant(9))
    tally = [
        line for line in report(watches).splitlines() if " for argument `n`: a Python value" in line
    ]
    assert len(tally) == 2, tally
    assert (
        tally[0].startswith("  5 retraces for argument `n`: a Python value changed. ")
        and "(trace 6): argument `n` is a Python int" in tally[0]
    )
    assert (
        tally[1].startswith("  1 retrace for argument `n`: a Python value changed. ")
        and "(trace 7): argument `n` was the Python value 5" in (tally[1])
    )


def recursive_factorial():
    @explain_retracing
    def factorial(n):
        if n <= 1:
            return tf.constant(1)
        return n * factorial(n - 1)

    return factorial


def test_a_recursive_function_records_every_trace():
    factorial = recursive_factorial()
    assert factorial(5).numpy() == 120
    assert factorial.experimental_get_tracing_count() == 5
    assert [r.trace for r in factorial.retrace_reasons] == [2, 3, 4, 5]
    fresh = recursive_factorial()
    with pytest.raises(RetracingBudgetExceeded, match="traced 5 times"), tracing_budget(fresh, 4):
        fresh(5)


def test_a_nested_trace_that_fails_leaves_nothing_behind():
    @explain_retracing
    def countdown(n):
        if n == 0:
            raise ValueError("bottom")
        try:
            return countdown(n - 1)
        except ValueError:  # the inner trace failed; this one goes on
            return tf.constant(n)

    assert countdown(2).numpy() == 1
    assert countdown.experimental_get_tracing_count() == 2
    assert [r.trace for r in countdown.retrace_reasons] == [2]
    cache = _internals.function_cache(countdown)
    countdown(3)  # a new top-level trace clears what the failed one left
    assert cache.pending == {}


# Bad input: behaviour identical to an unwatched tf.function ----------------------------


def outcome(action):
    try:
        return "ok", action()
    except Exception as error:
        return type(error), str(error)


def test_a_function_raising_while_tracing_raises_the_same_in_both():
    def fragile(x):
        raise KeyError(f"no {x.shape}")

    plain, watched = tf.function(fragile), explain_retracing(fragile)
    seen = [outcome(lambda f=function: f(tf.ones(2))) for function in (plain, watched)]
    assert seen[0] == seen[1]
    assert issubclass(seen[0][0], KeyError) and "no (2,)" in seen[0][1]
    assert watched.experimental_get_tracing_count() == plain.experimental_get_tracing_count()
    assert watched.retrace_reasons == []


@pytest.mark.parametrize("value", [3, "predict", [1, 2]], ids=["int", "str", "list"])
def test_a_non_callable_gets_tensorflows_error_and_what_is_needed(value):
    unwatched_type, unwatched_text = outcome(lambda: tf.function(value))
    watched_type, watched_text = outcome(lambda: explain_retracing(value))
    assert watched_type is unwatched_type is TypeError
    assert watched_text.startswith(unwatched_text)
    assert "explain_retracing() needs a tf.function or a Python callable" in watched_text


def square(x):
    return x * x


def test_pickling_behaves_as_for_the_unwatched_function():
    plain, watched = tf.function(square), explain_retracing(square)
    copy = pickle.loads(pickle.dumps(watched))  # never called: both pickle
    pickle.loads(pickle.dumps(plain))
    assert copy(tf.constant(3.0)).numpy() == 9.0
    copy(tf.ones(2))
    assert copy.retrace_reasons[0].kind == "shape"  # the copy is watched, from scratch
    for function in (plain, watched):
        function(tf.constant(2.0))
    assert outcome(lambda: pickle.dumps(watched)) == outcome(lambda: pickle.dumps(plain))
    assert watched(tf.constant(4.0)).numpy() == 16.0  # still usable


def test_saving_and_loading_behaves_as_for_the_unwatched_function(tmp_path):
    results = []
    for name, function in (("plain", tf.function(square)), ("watched", explain_retracing(square))):
        module = tf.Module()
        module.square = function
        function(tf.constant(2.0))
        tf.saved_model.save(module, str(tmp_path / name))
        loaded = tf.saved_model.load(str(tmp_path / name))
        results.append(
            (loaded.square(tf.constant(3.0)).numpy(), function.experimental_get_tracing_count())
        )
    assert results[0] == results[1]
