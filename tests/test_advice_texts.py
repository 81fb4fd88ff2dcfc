"""What the explainer's messages state about TensorFlow, checked against TensorFlow.

Each test builds the situation a message describes, checks that the message says it,
then checks the statement itself on the installed TensorFlow (a count, a value), and
where the message advises a change, applies it literally. The texts most often checked
elsewhere (shape specs, structures, Python values) have their tests in
test_explainer_on_real_programs.py and test_explainer_value_use.py; saving and devices
(TFR012, TFR013) are there too.
"""

from __future__ import annotations

import gc
import tempfile

import tensorflow as tf
from tf_retracing import explain_retracing


def only(fn, subkind: str):
    found = [r for r in fn.retrace_reasons if r.subkind == subkind]
    assert len(found) == 1, [r.message for r in fn.retrace_reasons]
    return found[0]


def test_variable_creation_happens_once_per_function_and_moving_the_variable_ends_it():
    state = {}

    @explain_retracing
    def accumulate(x):
        if "total" not in state:
            state["total"] = tf.Variable(0.0)
        return state["total"].assign_add(x)

    for _ in range(3):
        accumulate(tf.constant(1.0))
    reason = only(accumulate, "variable-creation")
    assert "This happens once per function that creates variables" in reason.message
    assert accumulate.experimental_get_tracing_count() == 2  # once: not per call
    total = tf.Variable(0.0)  # "create them outside the function to avoid it"

    @explain_retracing
    def outside(x):
        return total.assign_add(x)

    outside(tf.constant(1.0))
    outside(tf.constant(1.0))
    assert outside.experimental_get_tracing_count() == 1


def test_each_calling_context_keeps_its_own_traces_and_one_context_traces_once():
    @explain_retracing
    def inc(x):
        return x + 1

    inc(tf.constant(1))
    with tf.Graph().as_default():
        inc(tf.constant(1))
    inc(tf.constant(1))  # back in the eager context: its trace is still there
    assert inc.experimental_get_tracing_count() == 2
    assert "Each calling context has its own traces" in only(inc, "graph").message


def test_a_normal_call_after_a_save_made_the_first_trace_traces_once():
    class Module(tf.Module):
        @explain_retracing
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def add(self, x):
            return x + 1

    module = Module()
    tf.saved_model.save(module, tempfile.mkdtemp())
    assert module.add.experimental_get_tracing_count() == 1  # made by the save
    module.add(tf.ones([2]))
    module.add(tf.ones([3]))
    assert module.add.experimental_get_tracing_count() == 2  # "its own trace, once"
    reason = only(module.add, "saving")
    assert "a normal call needs its own trace, once" in reason.message


def test_the_dtype_advice_cast_before_the_call_ends_the_retrace():
    @explain_retracing
    def normalise(image):
        return image / 255

    normalise(tf.zeros((2, 2), tf.float32))
    normalise(tf.zeros((2, 2), tf.float64))
    reason = only(normalise, "dtype")
    assert "Each dtype needs its own graph: cast before the call, e.g. " in reason.message
    assert "tf.cast(image, tf.float32)" in reason.message

    @explain_retracing
    def fixed(image):
        return image / 255

    for dtype in (tf.float32, tf.float64):
        image = tf.zeros((2, 2), dtype)
        fixed(tf.cast(image, tf.float32))  # the advice, as written
    assert fixed.experimental_get_tracing_count() == 1


def test_the_rank_advice_any_rank_spec_traces_once_and_reduce_retracing_twice():
    @explain_retracing
    def flat(x):
        return tf.reshape(x, [-1])

    flat(tf.zeros((2, 2)))
    flat(tf.zeros((2, 2, 2)))
    message = only(flat, "rank").message
    spec = "tf.TensorSpec(shape=None, dtype=tf.float32)"
    assert f"give `x` the spec {spec} in input_signature (any rank, one trace)" in message
    shapes = [(2, 2), (2, 2, 2), (3,), (1, 1, 1, 1)]

    @tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)])
    def any_rank(x):
        return tf.reshape(x, [-1])

    @tf.function(reduce_retracing=True)
    def reduced(x):
        return tf.reshape(x, [-1])

    for shape in shapes:
        any_rank(tf.zeros(shape))
        reduced(tf.zeros(shape))
    assert any_rank.experimental_get_tracing_count() == 1
    assert reduced.experimental_get_tracing_count() == 2  # one more, then any rank


def test_a_trace_per_spec_name_and_one_name_or_none_traces_once():
    @explain_retracing
    def double(x):
        return x * 2

    for name in ("a", "b"):
        double.get_concrete_function(tf.TensorSpec([2], tf.float32, name=name))
    message = only(double, "spec-name").message
    assert "TensorFlow keeps a trace per spec name. Give the specs one name, or none" in message
    assert double.experimental_get_tracing_count() == 2
    for names in (("a", "a"), (None, None)):

        @tf.function
        def same(x):
            return x * 2

        for name in names:
            same.get_concrete_function(tf.TensorSpec([2], tf.float32, name=name))
        assert same.experimental_get_tracing_count() == 1, names


def test_a_bool_flag_costs_at_most_one_more_trace():
    @explain_retracing
    def scale(x, training):
        return x * 2 if training else x

    for training in (True, False, True, False):
        scale(tf.ones(2), training)
    message = only(scale, "value").message
    assert "A bool has two values, so it costs at most one more trace" in message
    assert scale.experimental_get_tracing_count() == 2


class Config:
    def __init__(self, factor):
        self.factor = factor

    def __eq__(self, other):
        return isinstance(other, Config) and other.factor == self.factor

    def __hash__(self):
        return hash(self.factor)


class Plain:
    factor = 2.0


def test_objects_match_by_identity_or_eq_and_hash_and_a_collected_one_never_again():
    def scaled():
        @explain_retracing
        def scale(x, config):
            return x * config.factor

        return scale

    plain = scaled()
    kept = Plain()
    plain(tf.ones(1), kept)
    plain(tf.ones(1), kept)  # the same object: no trace
    plain(tf.ones(1), Plain())  # another one, no __eq__: a trace
    assert plain.experimental_get_tracing_count() == 2
    message = only(plain, "object").message
    assert "Objects are matched by identity (or by __eq__ and __hash__ if the class" in message
    assert "a collected object never matches again" in message

    equal = scaled()
    first, second = Config(2.0), Config(2.0)
    equal(tf.ones(1), first)
    equal(tf.ones(1), second)  # equal by __eq__ and __hash__: the same trace
    assert equal.experimental_get_tracing_count() == 1
    del first, second
    gc.collect()
    equal(tf.ones(1), Config(2.0))  # equal, but the traced object was collected
    assert equal.experimental_get_tracing_count() == 2


def test_a_variable_trace_reads_the_current_value_on_every_call():
    @explain_retracing
    def double(x):
        return x * 2

    variable = tf.Variable(1.0)
    double(tf.constant(1.0))
    double(variable)
    message = only(double, "kind-of-value").message
    assert "a Variable's trace reads its current value on every call anyway" in message
    variable.assign(5.0)
    assert double(variable).numpy() == 10.0
    assert double.experimental_get_tracing_count() == 2


def test_a_method_of_a_temporary_traces_with_self_none_on_every_call():
    seen = []

    class Model(tf.Module):
        @explain_retracing
        def call(self, x):
            seen.append(self)
            return x

    for _ in range(3):
        Model().call(tf.ones(1))
    assert seen == [None, None, None]  # "TensorFlow then traces with `self` None"
    messages = [r.message for r in Model.call.retrace_reasons]
    assert len(messages) == 2  # "a new object per call traces on every call"
    assert "TensorFlow then traces with `self` None" in messages[0]
    kept = Model()
    for _ in range(3):
        kept.call(tf.ones(1))  # "Keep the object in a variable": one trace
    assert len(seen) == 4


def test_a_new_tf_function_per_call_starts_empty_and_one_made_once_traces_once():
    reasons, counts = [], []

    def handle_request(x):
        forward = explain_retracing(lambda x: x * 2)
        forward(x)
        counts.append(forward.experimental_get_tracing_count())
        reasons.extend(forward.retrace_reasons)

    for _ in range(3):
        handle_request(tf.constant(1))
    assert counts == [1, 1, 1]  # "each starting with an empty trace cache"
    assert "each starting with an empty trace cache" in reasons[-1].message
    forward = explain_retracing(lambda x: x * 2)  # "Create the tf.function once"
    for _ in range(3):
        forward(tf.constant(1))
    assert forward.experimental_get_tracing_count() == 1
