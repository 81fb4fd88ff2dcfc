"""The retrace explainer: every kind of reason, transparency, the budget, the CLI."""

from __future__ import annotations

import collections
import functools
import gc
import logging
import re
import sys
import textwrap

import attr
import keras
import pytest
import tensorflow as tf
from tensorflow.core.function.polymorphism.function_cache import FunctionContext
from tensorflow.python.eager.polymorphic_function.function_context import EagerContext
from tf_retracing import (
    RetracingBudgetExceeded,
    explain_retracing,
    tracing_budget,
    watch_every_tf_function,
)
from tf_retracing import explainer as rx
from tf_retracing.explain import main as explain_main
from tf_retracing.explainer import watch as rx_watch


def only_reason(fn):
    """The single retrace reason of ``fn``, asserting there is exactly one."""
    reasons = fn.retrace_reasons
    assert len(reasons) == 1, [r.message for r in reasons]
    return reasons[0]


def assert_reason(reason, argument, kind, before, after):
    assert (reason.argument, reason.kind, reason.before, reason.after) == (
        argument,
        kind,
        before,
        after,
    ), reason.message
    assert reason.kind in rx.KINDS


# Every kind, with a realistic case ----------------------------------------------


def test_shape_names_the_dimension_and_the_spec_to_use():
    @explain_retracing
    def predict(x):
        return x * 2.0

    predict(tf.zeros((8, 4)))
    predict(tf.zeros((5, 4)))  # the last, smaller batch
    reason = only_reason(predict)
    assert_reason(reason, "x", "shape", "(8, 4)", "(5, 4)")
    assert reason.function == "test_shape_names_the_dimension_and_the_spec_to_use.<locals>.predict"
    assert reason.trace == 2
    assert "dimension 0: 8 -> 5" in reason.message
    assert "tf.TensorSpec(shape=[None, 4], dtype=tf.float32)" in reason.message
    assert "reduce_retracing=True" in reason.message
    assert reason.message.startswith(f"`{reason.function}` traced again (trace 2)")


def test_shape_rank_change():
    @explain_retracing
    def flat(x):
        return tf.reshape(x, [-1])

    flat(tf.zeros((2, 2)))
    flat(tf.zeros((2, 2, 2)))
    reason = only_reason(flat)
    assert_reason(reason, "x", "shape", "(2, 2)", "(2, 2, 2)")
    assert "rank changed from 2 to 3" in reason.message


def test_dtype():
    @explain_retracing
    def normalise(image):
        return image / 255

    normalise(tf.zeros((2, 2), tf.float32))
    normalise(tf.zeros((2, 2), tf.float64))  # e.g. a NumPy array converted upstream
    reason = only_reason(normalise)
    assert_reason(reason, "image", "dtype", "float32", "float64")
    assert "tf.cast(image, tf.float32)" in reason.message


def test_python_value_learning_rate():
    @explain_retracing
    def step(x, learning_rate):
        return x * learning_rate

    step(tf.constant(1.0), 0.1)
    step(tf.constant(1.0), 0.05)
    reason = only_reason(step)
    assert_reason(reason, "learning_rate", "python-value", "0.1", "0.05")
    assert (
        "tf.constant(0.05, dtype=tf.float32), the dtype the function uses it as" in reason.message
    )


def test_python_value_between_tensor_and_python_number():
    @explain_retracing
    def advance(x, n):
        return x + tf.cast(n, tf.float32)

    advance(tf.constant(1.0), tf.constant(3))
    advance(tf.constant(1.0), 4)  # a Python int slipped in
    advance(tf.constant(1.0), 5)
    tensor_to_int, int_to_int = advance.retrace_reasons
    assert_reason(tensor_to_int, "n", "python-value", "an int32 tensor of shape ()", "4")
    assert "Pass a tensor every time" in tensor_to_int.message
    assert_reason(int_to_int, "n", "python-value", "4", "5")

    @explain_retracing
    def back(n):
        return n

    back(4)
    back(tf.constant(4))
    assert_reason(only_reason(back), "n", "python-value", "4", "an int32 tensor of shape ()")


def test_object_config_is_matched_by_identity():
    class Config:
        def __init__(self, scale):
            self.scale = scale

    @explain_retracing
    def apply(config, x):
        return x * config.scale

    first, second = Config(2.0), Config(2.0)
    apply(first, tf.constant(1.0))
    apply(second, tf.constant(1.0))
    reason = only_reason(apply)
    # Named by type and the order first seen, never by address: the same on every run.
    assert (reason.argument, reason.kind) == ("config", "object")
    assert re.fullmatch(r"Config #\d+", reason.before), reason.before
    assert re.fullmatch(r"Config #\d+", reason.after) and reason.after != reason.before
    assert "0x" not in reason.message
    assert "__eq__ and __hash__" in reason.message


def test_object_description_survives_garbage_collection():
    class Options:
        pass

    @explain_retracing
    def run(options, x):
        return x

    first = Options()
    run(first, tf.constant(1))
    first_label = run._watch.traces[0].description.call["options"].description
    del first
    gc.collect()
    run(Options(), tf.constant(1))  # a temporary object per call: every call traces
    reason = only_reason(run)
    assert reason.before == first_label  # named as it was while it lived
    assert reason.after != first_label  # a new object gets a new number, even at its address


def test_structure_list_length_tuple_and_dict_keys():
    @explain_retracing
    def total(items):
        return tf.add_n(list(items))

    one = tf.constant(1)
    total([one, one])
    total([one, one, one])
    total((one, one))
    length, container = total.retrace_reasons
    assert_reason(length, "items", "structure", "a list of 2", "a list of 3")
    assert "tf.RaggedTensor" in length.message
    # Two traces are one change away: the most recent one is the closest.
    assert_reason(container, "items", "structure", "a list of 3", "a tuple of 2")

    @explain_retracing
    def embed(features):
        return features["ids"]

    embed({"ids": one})
    embed({"ids": one, "mask": one})
    assert_reason(
        only_reason(embed),
        "features",
        "structure",
        "a dict with keys 'ids'",
        "a dict with keys 'ids', 'mask'",
    )


def test_structure_when_a_tensor_becomes_a_variable():
    @explain_retracing
    def read(x):
        return x + 1.0

    read(tf.constant([1.0]))
    read(tf.Variable([1.0]))
    assert_reason(
        only_reason(read),
        "x",
        "structure",
        "a float32 tensor of shape (1,)",
        "a float32 Variable of shape (1,)",
    )


def test_structure_of_a_dataset_argument():
    @explain_retracing
    def first(ds):
        return next(iter(ds))

    first(tf.data.Dataset.range(3))
    first(tf.data.Dataset.from_tensors(1.0))
    reason = only_reason(first)
    # What changed inside the dataset, at its path: its elements' dtype.
    assert (reason.argument, reason.kind) == ("ds.element_spec", "dtype")
    assert (reason.before, reason.after) == ("int64", "float32")


def test_nested_paths_into_dicts_lists_and_namedtuples():
    Batch = collections.namedtuple("Batch", ["tokens", "labels"])

    @attr.s(frozen=True)
    class Window:
        start = attr.ib()
        stop = attr.ib()

    @explain_retracing
    def train_step(batch, xs, pair):
        return batch["ids"], xs[2], pair

    ids, x = tf.zeros((4, 16), tf.int32), tf.zeros(3)
    pair = Batch(tf.zeros(2), tf.zeros(2))
    train_step({"ids": ids}, [x, x, x], pair)
    train_step({"ids": tf.zeros((4, 20), tf.int32)}, [x, x, x], pair)
    train_step({"ids": ids}, [x, x, tf.zeros(3, tf.float64)], pair)
    train_step({"ids": ids}, [x, x, x], Batch(tf.zeros(2), tf.zeros(5)))
    train_step({"ids": ids}, [x, x, x], Window(0, 5))
    by_dict, by_list, by_field, by_type = train_step.retrace_reasons
    assert_reason(by_dict, "batch['ids']", "shape", "(4, 16)", "(4, 20)")
    assert "dimension 1: 16 -> 20" in by_dict.message
    assert "tf.TensorSpec(shape=[4, None], dtype=tf.int32)" in by_dict.message
    assert_reason(by_list, "xs[2]", "dtype", "float32", "float64")
    assert_reason(by_field, "pair.labels", "shape", "(2,)", "(5,)")
    assert_reason(by_type, "pair", "structure", "a Batch(tokens, labels)", "a Window(start, stop)")

    @explain_retracing
    def crop(window):
        return window.stop - window.start

    crop(Window(0, 5))
    crop(Window(0, 6))
    assert_reason(only_reason(crop), "window.stop", "python-value", "5", "6")


def test_new_argument_keyword_and_varargs():
    @explain_retracing
    def forward(x, *extra, **options):
        return x

    x = tf.zeros(2)
    forward(x)
    forward(x, training=True)
    forward(x, 7)
    by_keyword, by_position = forward.retrace_reasons
    assert_reason(by_keyword, "training", "new-argument", "not passed", "True")
    assert_reason(by_position, "extra[0]", "new-argument", "not passed", "7")

    @explain_retracing
    def dropped(x, **options):
        return x

    dropped(x, verbose=True)
    dropped(x)
    assert_reason(only_reason(dropped), "verbose", "new-argument", "True", "not passed")


def test_keyword_argument_with_a_default_is_a_python_value():
    @explain_retracing
    def layer(x, training=False):
        return x

    layer(tf.zeros(2))
    layer(tf.zeros(2), training=True)
    assert_reason(only_reason(layer), "training", "python-value", "False", "True")


def test_context_when_the_first_call_creates_variables():
    state = {}

    @explain_retracing
    def accumulate(x):
        if "total" not in state:
            state["total"] = tf.Variable(0.0)
        return state["total"].assign_add(x)

    accumulate(tf.constant(1.0))
    assert accumulate.experimental_get_tracing_count() == 2  # one call, two traces
    reason = only_reason(accumulate)
    assert_reason(
        reason,
        None,
        "context",
        "its first call (creating variables)",
        "a later call (no new variables)",
    )


def test_context_in_graph_mode():
    @explain_retracing
    def inc(x):
        return x + 1

    inc(tf.constant(1))
    with tf.Graph().as_default():
        inc(tf.constant(1))
    assert_reason(
        only_reason(inc),
        None,
        "context",
        "eagerly (or from a tf.function)",
        "in a tf.Graph (graph mode)",
    )


def test_context_fields_other_than_the_graph():
    from tf_retracing import _internals, comparison

    def context(policy, xla_context_id):
        eager = EagerContext(None, (), (), False, policy, xla_context_id)
        return _internals.describe_context(FunctionContext(eager, None))

    change = comparison._context_change(context(None, 0), context(None, 7))
    assert (change.before, change.after) == ("xla_context_id=0", "xla_context_id=7")
    # A save policy is set only while tf.saved_model.save traces.
    saving = comparison._context_change(context(None, 0), context("save_variable_devices", 0))
    assert (saving.subkind, saving.after) == ("saving", "while saving (tf.saved_model.save)")


def test_self_on_a_tf_module_method():
    class Scaler(tf.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = tf.Variable(factor)

        @explain_retracing
        @tf.function
        def __call__(self, x):
            if tf.reduce_sum(x) > 0:  # AutoGraph still converts the body
                return x * self.factor
            return x

    first = Scaler(2.0)
    assert first(tf.constant([1.0])).numpy().tolist() == [2.0]
    assert first(tf.constant([-1.0])).numpy().tolist() == [-1.0]
    second = Scaler(3.0)  # per request, for example
    second(tf.constant([1.0]))
    reason = only_reason(Scaler.__call__)
    assert (reason.argument, reason.kind) == ("self", "object")
    assert re.fullmatch(r"Scaler #\d+ \('scaler'\)", reason.before), reason.before
    assert re.fullmatch(r"Scaler #\d+ \('scaler'\)", reason.after) and reason.after != reason.before
    assert "every new instance traces again" in reason.message
    # The history is shared by the class attribute and every instance's method.
    assert second.__call__.retrace_reasons == Scaler.__call__.retrace_reasons


def test_keras_layer_method_and_model_call():
    class Scale(keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(shape[-1],), initializer="ones")

        @explain_retracing
        @tf.function
        def call(self, x):
            return x * self.w

    Scale()(tf.zeros((2, 3)))
    Scale()(tf.zeros((2, 3)))
    assert (only_reason(Scale.call).argument, only_reason(Scale.call).kind) == ("self", "object")

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    serve = explain_retracing(model)
    expected = model(tf.ones((2, 4)))
    assert tf.reduce_all(serve(tf.ones((2, 4))) == expected)
    serve(tf.ones((3, 4)))
    serve(tf.ones((3, 4)), training=True)
    shape, keyword = serve.retrace_reasons
    assert_reason(shape, "args[0]", "shape", "(2, 4)", "(3, 4)")
    assert shape.function == "Sequential"
    assert_reason(keyword, "training", "new-argument", "not passed", "True")


def test_repeated_tf_function_reason_and_count():
    reasons = []

    def handle_request(x):
        forward = explain_retracing(lambda x: x * 2)
        forward(x)
        reasons.extend(forward.retrace_reasons)

    for _ in range(3):
        handle_request(tf.constant(1))
    assert [(r.argument, r.kind, r.count) for r in reasons] == [
        (None, "object", 2),
        (None, "object", 3),
    ]
    assert_reason(reasons[-1], None, "object", "2 tf.function objects", "3 tf.function objects")
    assert "Create the tf.function once" in reasons[-1].message
    assert "test_retrace_explainer.py:" in reasons[-1].message


def test_closest_trace_not_the_last_one():
    @explain_retracing
    def scale(x, factor):
        return x * factor

    scale(tf.zeros(2), 1)
    scale(tf.zeros(3), 2)
    scale(tf.zeros(2), 3)  # one change from the first trace, two from the last
    last = scale.retrace_reasons[-1]
    assert_reason(last, "factor", "python-value", "1", "3")
    assert last.others == ()
    first_retrace = scale.retrace_reasons[0]
    assert first_retrace.others == ("`factor` python-value 1 -> 2",)
    assert "Also different from that trace: `factor`" in first_retrace.message


# Transparency: same results, traces and exceptions ------------------------------


def body(x, n):
    if n > 2:
        raise ValueError(f"n too large: {n}")
    return x * n


CALLS = [
    (tf.constant([1.0, 2.0]), 1),
    (tf.constant([3.0, 4.0]), 1),
    (tf.constant([1.0, 2.0, 3.0]), 1),
    (tf.constant([1.0, 2.0]), 2),
    (tf.constant([1.0, 2.0]), 3),  # raises inside the body, while tracing
    (tf.constant([1, 2]), 2),
]


def run_calls(fn):
    seen = []
    for x, n in CALLS:
        try:
            seen.append(("ok", fn(x, n).numpy().tolist(), fn.experimental_get_tracing_count()))
        except ValueError as error:
            seen.append(("error", str(error), fn.experimental_get_tracing_count()))
    return seen


@pytest.mark.parametrize(
    "options",
    [{}, {"reduce_retracing": True}, {"jit_compile": True}, {"autograph": False}],
    ids=["default", "reduce_retracing", "jit_compile", "no_autograph"],
)
def test_results_traces_and_errors_match_the_unwatched_function(options):
    unwatched = run_calls(tf.function(body, **options))
    watched_fn = explain_retracing(tf.function(body, **options))
    assert run_calls(watched_fn) == unwatched
    # Every trace after the first is explained. (The first may be too: `body` is wrapped
    # by several tf.function objects in this file, the repeated-function case.)
    retraces = set(range(2, watched_fn.experimental_get_tracing_count() + 1))
    assert retraces <= {reason.trace for reason in watched_fn.retrace_reasons}
    assert run_calls(explain_retracing(body, **options)) == unwatched


def test_a_failed_trace_leaves_no_reason_and_the_same_exception():
    @explain_retracing
    def check(x, limit):
        if limit < 0:
            raise ValueError("limit must be >= 0")
        return x

    check(tf.zeros(2), 1)
    with pytest.raises(ValueError, match="limit must be >= 0") as raised:
        check(tf.zeros(2), -1)
    assert type(raised.value) is ValueError
    assert check.retrace_reasons == []
    check(tf.zeros(2), 2)
    assert_reason(only_reason(check), "limit", "python-value", "1", "2")
    assert only_reason(check).trace == 2


def test_a_trace_that_fails_after_the_body_leaves_no_reason():
    @explain_retracing
    def leak(x, give_object):
        return object() if give_object else x

    leak(tf.zeros(1), False)
    with pytest.raises(TypeError):
        leak(tf.zeros(1), True)  # the body returned, the trace still failed
    assert leak.retrace_reasons == []
    assert leak.experimental_get_tracing_count() == 1


def test_input_signature_and_reduce_retracing():
    @explain_retracing(input_signature=[tf.TensorSpec([None], tf.float32)])
    def signed(x):
        return x + 1

    for n in (1, 2, 3):
        signed(tf.zeros(n))
    assert signed.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError) as watched_error:
        signed(tf.zeros(2, tf.int32))
    plain = tf.function(lambda x: x + 1, input_signature=[tf.TensorSpec([None], tf.float32)])
    with pytest.raises(TypeError) as plain_error:
        plain(tf.zeros(2, tf.int32))
    assert str(watched_error.value).replace("<lambda>", "signed") == str(plain_error.value).replace(
        "<lambda>", "signed"
    )
    assert signed.retrace_reasons == []

    @explain_retracing(reduce_retracing=True)
    def relaxed(x):
        return x * 2

    for n in (2, 3, 4, 5):
        relaxed(tf.zeros(n))
    assert relaxed.experimental_get_tracing_count() == 2
    reason = only_reason(relaxed)
    assert_reason(reason, "x", "shape", "(2,)", "(3,)")
    assert "reduce_retracing made this trace general ((None,))" in reason.message

    relaxed(tf.zeros((2, 2)))  # a new rank: generalised to any shape
    assert "general ((unknown rank))" in relaxed.retrace_reasons[-1].message


def test_each_retrace_is_logged_once(caplog):
    @explain_retracing
    def logged(x):
        return x

    with caplog.at_level(logging.WARNING, logger="retrace"):
        logged(1)
        logged(1)
        logged(2)
    records = [r for r in caplog.records if r.name == "retrace"]
    assert [r.getMessage() for r in records] == [only_reason(logged).message]


def test_functions_run_eagerly_record_nothing():
    @explain_retracing
    def eager(x):
        return x + 1

    tf.config.run_functions_eagerly(True)
    try:
        assert eager(tf.constant(1)).numpy() == 2
        assert eager(2) == 3  # run as plain Python
    finally:
        tf.config.run_functions_eagerly(False)
    assert eager.retrace_reasons == []


def test_a_clone_made_by_tensorflow_is_not_recorded():
    @explain_retracing
    def original(x):
        return x

    original(1)
    clone = original._clone(None)
    clone(2)
    clone(3)
    assert original.retrace_reasons == []


def test_an_explainer_fault_never_breaks_the_function(monkeypatch, caplog):
    @explain_retracing
    def sturdy(x):
        return x * 3

    def broken(self, args):
        raise RuntimeError("explainer bug")

    monkeypatch.setattr(rx._Watch, "before_body", broken)
    with caplog.at_level(logging.ERROR, logger="retrace"):
        assert sturdy(tf.constant(2)).numpy() == 6
    assert "could not record a trace" in caplog.text


def test_watching_twice_returns_the_same_function():
    watched = explain_retracing(tf.function(lambda x: x))
    assert explain_retracing(watched) is watched
    assert isinstance(watched, tf.types.experimental.PolymorphicFunction)
    concrete = watched.get_concrete_function(tf.TensorSpec([2], tf.float32))
    assert concrete(tf.ones(2)).numpy().tolist() == [1.0, 1.0]
    watched.get_concrete_function(tf.TensorSpec([3], tf.float32))
    assert watched.experimental_get_tracing_count() == 2
    assert only_reason(watched).kind == "shape"


# The budget ---------------------------------------------------------------------


def test_budget_passes_and_fails_with_reasons():
    @explain_retracing
    def serve(x):
        return x

    with tracing_budget(serve, 1):
        serve(tf.zeros(2))
        serve(tf.zeros(2))
    with pytest.raises(RetracingBudgetExceeded) as exceeded, tracing_budget(serve, 1):
        serve(tf.zeros(3))
        serve(tf.zeros(4))
    text = str(exceeded.value)
    assert "traced 2 times inside the block; the budget is 1" in text
    assert "changed shape from (2,) to (3,)" in text
    assert isinstance(exceeded.value, AssertionError)

    @explain_retracing
    def fresh(x):
        return x

    first_trace = pytest.raises(RetracingBudgetExceeded, match="first trace of this function")
    with first_trace, tracing_budget(fresh, 0):
        fresh(1)


def test_budget_on_an_unwatched_tf_function_counts_only():
    plain = tf.function(lambda x: x)
    count_only = pytest.raises(RetracingBudgetExceeded, match="Wrap it with explain_retracing")
    with count_only, tracing_budget(plain, 1):
        plain(1)
        plain(2)


def test_budget_lets_the_blocks_own_error_through():
    @explain_retracing
    def serve(x):
        return x

    with pytest.raises(KeyError), tracing_budget(serve, 0):
        serve(1)
        raise KeyError("from the block")


@pytest.mark.parametrize(
    ("fn", "max_traces", "error", "text"),
    [
        (tf.function(lambda x: x), 1.5, TypeError, "max_traces must be an int, got 1.5"),
        (tf.function(lambda x: x), True, TypeError, "max_traces must be an int"),
        (tf.function(lambda x: x), -1, ValueError, "max_traces must be >= 0, got -1"),
        (len, 1, TypeError, "needs a tf.function or a function from explain_retracing"),
    ],
)
def test_budget_bad_input(fn, max_traces, error, text):
    with pytest.raises(error, match=text), tracing_budget(fn, max_traces):
        pass


# Bad input ----------------------------------------------------------------------


def test_bad_input_is_named():
    with pytest.raises(TypeError, match=r"needs a tf\.function or a Python callable, got int 3"):
        explain_retracing(3)
    with pytest.raises(TypeError, match=r"'reduce_retrace' is not a tf\.function option"):
        explain_retracing(lambda x: x, reduce_retrace=True)
    with pytest.raises(ValueError, match=r"already a tf.function.*\['reduce_retracing'\]"):
        explain_retracing(tf.function(lambda x: x), reduce_retracing=True)
    with pytest.raises(TypeError, match="input_signature must be either a tuple or a list"):
        explain_retracing(lambda x: x, input_signature=5)
    concrete = tf.function(lambda x: x).get_concrete_function(tf.TensorSpec([], tf.float32))
    with pytest.raises(TypeError, match="ConcreteFunction, which never retraces"):
        explain_retracing(concrete)


def test_a_decorated_function_is_named_after_the_inner_one():
    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)

        return wrapper

    @explain_retracing
    @logged
    def inner(x):
        return x

    inner(1)
    inner(2)
    assert only_reason(inner).function.endswith("<locals>.inner")


def test_decorator_with_options():
    @explain_retracing(reduce_retracing=True)
    def relaxed(x):
        return x

    assert relaxed._reduce_retracing is True


# Whole-program mode -------------------------------------------------------------


SCRIPT = """
import os
import sys
import tensorflow as tf


@tf.function
def predict(x):
    return x * 2


@tf.function(reduce_retracing=False)
def steady(x):
    return x


for n in (2, 3, 4):
    predict(tf.zeros(n))
steady(tf.zeros(1))
for _ in range(3):
    tf.function(lambda x: x + 1)(tf.constant(1))
print("script args:", sys.argv[1:])
print("script folder first:", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
sys.exit(int(sys.argv[1]))
"""


def test_main_runs_a_script_and_reports(tmp_path, capsys):
    script = tmp_path / "serve.py"
    script.write_text(textwrap.dedent(SCRIPT))
    argv, path = list(sys.argv), list(sys.path)
    assert explain_main([str(script), "3"]) == 3
    assert (sys.argv, sys.path) == (argv, path)  # restored after the script
    captured = capsys.readouterr()
    assert "retracing report" not in captured.out  # the program's output is its own
    out = captured.out + captured.err
    assert "script args: ['3']" in out
    assert "script folder first: True" in out
    assert f"== retracing report for {script} ==" in out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("function"))
    assert header.split()[:6] == ["function", "defined", "at", "tf.functions", "traces", "retraces"]
    assert header.split()[6:] == ["trace", "ms", "retrace", "ms"]
    row = {line.split()[0]: line.split()[2:5] for line in lines if line.startswith(("pre", "ste"))}
    assert row["predict"] == ["1", "3", "2"]
    assert row["steady"] == ["1", "1", "0"]
    assert any(
        line.split()[:1] == ["<lambda>"] and line.split()[2:5] == ["3", "3", "2"] for line in lines
    )
    assert (
        "  2 retraces for argument `x`: a tensor's shape changed. `predict` traced again 2 "
        "times for this argument (traces 2, 3): "
        "argument `x` took 3 shapes ((2,), (3,), (4,)): dimension 0 varied." in out
    )
    assert (
        "  2 retraces: a new tf.function for the same code. `<lambda>` traced again because" in out
    )
    assert tf.function is rx._ORIGINAL_TF_FUNCTION


def test_main_usage_and_missing_script(tmp_path, capsys):
    assert explain_main([]) == 2
    assert explain_main(["--help"]) == 0
    assert "usage: python -m tf_retracing.explain" in capsys.readouterr().out
    assert explain_main([str(tmp_path / "missing.py")]) == 2
    assert "can't open file" in capsys.readouterr().err


def test_main_reports_when_no_function_was_made(tmp_path, capsys):
    script = tmp_path / "empty.py"
    script.write_text("raise SystemExit('stopped')\n")
    assert explain_main([str(script)]) == 1
    err = capsys.readouterr().err
    assert "stopped" in err
    assert "no tf.function was created" in err


def test_watch_every_tf_function_is_not_reentrant():
    with (
        watch_every_tf_function(),
        pytest.raises(RuntimeError, match="already active"),
        watch_every_tf_function(),
    ):
        pass
    assert tf.function is rx._ORIGINAL_TF_FUNCTION


# Fault injection: a failing explanation never changes or breaks the call ----------------


def test_a_failing_explanation_leaves_the_call_unchanged(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("injected failure")

    monkeypatch.setattr(rx_watch, "_changes", broken)
    plain = tf.function(lambda x: x * 3)
    watched = explain_retracing(lambda x: x * 3)
    for n in (2, 3):
        x = tf.range(n)
        assert watched(x).numpy().tolist() == plain(x).numpy().tolist()
    (reason,) = watched.retrace_reasons
    assert reason.kind == "unknown"
    assert "could not tell why (RuntimeError: injected failure)" in reason.message
    assert rx.REPORT_URL in reason.message
    assert watched.experimental_get_tracing_count() == 2


def test_counting_fallback_records_each_retrace_without_a_cause():
    from tf_retracing._counting import make_explain_retracing
    from tf_retracing._counting import tracing_budget as counting_budget

    explain = make_explain_retracing("TensorFlow 9.9 is outside the supported range")
    watched = explain(lambda x: x + 1)
    for n in (1, 2, 3):
        assert watched(tf.zeros(n)).shape == (n,)
    assert [r.kind for r in watched.retrace_reasons] == ["unknown", "unknown"]
    assert "outside the supported range" in watched.retrace_reasons[0].message
    with (
        pytest.raises(RetracingBudgetExceeded, match="traced 1 times"),
        counting_budget(watched, 0),
    ):
        watched(tf.zeros(4))


def test_counting_fallback_binds_methods_and_shares_one_history():
    from tf_retracing._counting import make_explain_retracing

    explain = make_explain_retracing("TensorFlow 9.9 is outside the supported range")

    class Scale(tf.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        @explain
        def __call__(self, x):
            return x * self.factor

    double, triple = Scale(2.0), Scale(3.0)
    assert double(tf.constant(1.0)).numpy() == 2.0
    assert triple(tf.constant(1.0)).numpy() == 3.0  # its own instance, not double's
    assert double(tf.zeros([2])).numpy().tolist() == [0.0, 0.0]
    assert double.__call__ is double.__call__  # one bound function per instance
    # As in the explainer: the second instance's first trace is a retrace (trace 2).
    assert [r.trace for r in Scale.__call__.retrace_reasons] == [2, 3]
    assert [r.trace for r in triple.__call__.retrace_reasons] == [2, 3]
    assert double.__call__.experimental_get_tracing_count() == 2


def test_counting_fallback_names_a_model_by_its_class():
    from tf_retracing._counting import make_explain_retracing

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    serve = make_explain_retracing("TensorFlow 9.9 is outside the supported range")(model)
    serve(tf.zeros((32, 4)))
    serve(tf.zeros((7, 4)))  # a model has no __name__: the reason still names it
    (reason,) = serve.retrace_reasons
    assert reason.function == "Sequential" and reason.message.startswith("`Sequential` traced")


# Advice that works: the suggested spec is executed -----------------------------------


def _advised_spec(message: str):
    """The spec a message suggests, evaluated as the reader would paste it."""
    start = message.index("tf.", message.index("the spec "))
    end = message.index("(", start)
    depth = 1
    while depth:
        end += 1
        depth += {"(": 1, ")": -1}.get(message[end], 0)
    return eval(message[start : end + 1], {"tf": tf})


@pytest.mark.parametrize("kind", ["ragged", "sparse", "dense-rank"])
def test_the_advised_spec_accepts_both_calls_with_one_trace(kind):
    if kind == "ragged":
        values = [tf.ragged.constant([[1.0], [2.0, 3.0]]), tf.ragged.constant([[1.0]] * 3)]
    elif kind == "sparse":
        values = [
            tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 4]),
            tf.sparse.SparseTensor([[0, 1]], [2.0], [3, 4]),
        ]
    else:
        values = [tf.zeros((2, 3)), tf.zeros((2, 3, 4))]
    watched = explain_retracing(lambda x: x)
    for value in values:
        watched(value)
    message = watched.retrace_reasons[-1].message  # earlier: the lambda made anew per case
    spec = _advised_spec(message)
    fixed = tf.function(lambda x: x, input_signature=[spec])
    for value in values:
        fixed(value)
    assert fixed.experimental_get_tracing_count() == 1, message


def test_dtypes_take_the_right_article():
    def identity(x):
        return x

    watched = explain_retracing(identity)
    watched(3)
    watched(tf.constant(3))
    message = watched.retrace_reasons[-1].message
    assert "an int32 tensor" in message and " a int32" not in message


def test_each_reason_says_what_its_trace_cost_and_is_plain_data():
    import json
    import time

    def slow_to_trace(x):
        time.sleep(0.05)  # Python runs only while tracing
        return x + 1

    watched = explain_retracing(slow_to_trace)
    watched(tf.zeros(1))
    watched(tf.zeros(2))
    reason = only_reason(watched)
    assert reason.trace_ms >= 50
    data = json.loads(json.dumps(reason.as_dict()))
    assert data["kind"] == "shape" and data["argument"] == "x" and data["trace_ms"] >= 50


def test_whole_program_mode_accepts_a_positional_input_signature():
    with watch_every_tf_function() as watches:
        fn = tf.function(lambda x: x * 2, [tf.TensorSpec([None], tf.float32)])
        fn(tf.zeros(2))
        fn(tf.zeros(3))
    assert fn.experimental_get_tracing_count() == 1
    assert len(watches) == 1


def test_a_retrace_with_no_visible_difference_is_reported_as_unknown(monkeypatch):
    monkeypatch.setattr(rx_watch, "_changes", lambda earlier, new: [])
    watched = explain_retracing(lambda x: x)
    watched(tf.zeros(1))
    watched(tf.zeros(2))
    (reason,) = watched.retrace_reasons
    assert reason.kind == "unknown" and "cause is unknown" in reason.message


def test_guard_raises_on_a_retrace_after_warm_up_and_the_trace_stays_usable():
    from tf_retracing import guard_retracing

    @explain_retracing
    def serve(x):
        return x + 1

    serve(tf.zeros(2))  # warm-up
    with guard_retracing(serve) as guard:
        serve(tf.zeros(2))  # reuses the trace: fine
        with pytest.raises(RetracingBudgetExceeded, match="retrace after warm-up"):
            serve(tf.zeros(3))
    assert [r.kind for r in guard.reasons] == ["shape"]
    assert serve(tf.zeros(3)).shape == (3,)  # outside the guard, the new trace is used


def test_guard_in_log_mode_logs_once_per_function(caplog):
    from tf_retracing import guard_retracing

    @explain_retracing
    def serve(x):
        return x * 2

    serve(tf.zeros(1))
    with caplog.at_level(logging.ERROR, logger="retrace"), guard_retracing(action="log") as g:
        for n in (2, 3, 4):
            assert serve(tf.zeros(n)).shape == (n,)
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and len(g.reasons) == 3


def test_guard_refuses_bad_arguments():
    from tf_retracing import guard_retracing

    with pytest.raises(ValueError, match="action must be"), guard_retracing(action="ignore"):
        pass
    with (
        pytest.raises(TypeError, match="needs functions from explain_retracing"),
        guard_retracing(tf.function(lambda x: x)),
    ):
        pass


def test_importing_the_package_or_its_linter_is_silent_on_an_unsupported_tensorflow(tmp_path):
    """The linter never imports TensorFlow and works on any release, so neither importing
    the package nor the linter says anything about the installed TensorFlow (here, one
    whose metadata says 9.9.0), and neither imports it."""
    import subprocess
    import sys

    fake = tmp_path / "tensorflow-9.9.0.dist-info"
    fake.mkdir()
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 9.9.0\n")
    probe = (
        "import sys, warnings\n"
        "warnings.simplefilter('error')\n"
        "import tf_retracing, tf_retracing.lint\n"
        "print('tensorflow' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env={**__import__("os").environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "False\n", "")


def test_the_first_tensorflow_tool_says_when_tensorflow_is_unsupported(monkeypatch):
    import tf_retracing
    from tf_retracing._counting import CountingFunction

    monkeypatch.delenv(tf_retracing.ALLOW_UNTESTED_VARIABLE, raising=False)
    monkeypatch.setattr(tf, "__version__", "2.99.0")
    with pytest.warns(tf_retracing.UnsupportedTensorFlowWarning) as warned:
        tools = tf_retracing._load_tensorflow_tools()  # what the first use of a tool runs
    (warning,) = warned
    message = (
        "TensorFlow 2.99.0 is outside the tested range 2.16 to 2.21 "
        "(set TF_RETRACING_ALLOW_UNTESTED=1 to run the full explainer on it)"
    )
    assert message in str(warning.message) and message == tools["EXPLAINER_UNAVAILABLE"]
    assert tools["WatchedFunction"] is CountingFunction
    with pytest.raises(RuntimeError, match="TF_RETRACING_ALLOW_UNTESTED=1"):
        tools["report"]()


def test_opting_in_runs_the_full_explainer_on_an_untested_tensorflow(monkeypatch):
    import tf_retracing
    from tf_retracing import explainer

    monkeypatch.setenv(tf_retracing.ALLOW_UNTESTED_VARIABLE, "1")
    monkeypatch.setattr(tf, "__version__", "2.23.0-dev20261026")
    with pytest.warns(tf_retracing.UnsupportedTensorFlowWarning) as warned:
        tools = tf_retracing._load_tensorflow_tools()
    (warning,) = warned  # still said once: the release was not tested
    assert str(warning.message) == (
        "tf_retracing: TensorFlow 2.23.0-dev20261026 is outside the tested range 2.16 to 2.21; "
        "running the full explainer because TF_RETRACING_ALLOW_UNTESTED=1"
    )
    assert tools["EXPLAINER_UNAVAILABLE"] is None
    assert tools["explain_retracing"] is explainer.explain_retracing


def test_a_missing_internal_is_named_even_when_opted_in(monkeypatch):
    import tf_retracing
    from tf_retracing import _internals
    from tf_retracing._counting import CountingFunction

    monkeypatch.setenv(tf_retracing.ALLOW_UNTESTED_VARIABLE, "1")
    monkeypatch.setattr(tf, "__version__", "2.30.0")
    missing = "ImportError: cannot import name 'tracing_compilation'"
    monkeypatch.setattr(_internals, "EXPLAINER_ERROR", missing)
    with pytest.warns(tf_retracing.UnsupportedTensorFlowWarning):
        tools = tf_retracing._load_tensorflow_tools()
    unavailable = tools["EXPLAINER_UNAVAILABLE"]
    assert unavailable == (
        "TensorFlow 2.30.0 lacks an internal the explainer reads, which TensorFlow 2.16 to 2.21 "
        f"have ({missing})"
    )
    assert tools["WatchedFunction"] is CountingFunction  # counting still works
    with pytest.raises(RuntimeError) as raised:  # what needs the explainer stops, naming it
        tools["watch_every_tf_function"]()
    assert missing in str(raised.value)


def test_the_opt_in_is_not_offered_where_an_internal_is_missing(monkeypatch):
    """TensorFlow 2.13 lacks tracing_compilation: opting in would change nothing there, so
    the message names the missing internal and does not suggest the variable."""
    import tf_retracing
    from tf_retracing import _internals

    monkeypatch.delenv(tf_retracing.ALLOW_UNTESTED_VARIABLE, raising=False)
    monkeypatch.setattr(tf, "__version__", "2.13.1")
    missing = "ImportError: cannot import name 'tracing_compilation'"
    monkeypatch.setattr(_internals, "EXPLAINER_ERROR", missing)
    with pytest.warns(tf_retracing.UnsupportedTensorFlowWarning):
        tools = tf_retracing._load_tensorflow_tools()
    assert missing in tools["EXPLAINER_UNAVAILABLE"]
    assert tf_retracing.ALLOW_UNTESTED_VARIABLE not in tools["EXPLAINER_UNAVAILABLE"]


@pytest.mark.parametrize("value", ["0", "", "yes"])
def test_only_the_value_1_opts_in(monkeypatch, value):
    import tf_retracing

    monkeypatch.setenv(tf_retracing.ALLOW_UNTESTED_VARIABLE, value)
    monkeypatch.setattr(tf, "__version__", "2.23.0")
    with pytest.warns(tf_retracing.UnsupportedTensorFlowWarning):
        tools = tf_retracing._load_tensorflow_tools()
    assert tools["EXPLAINER_UNAVAILABLE"] is not None
