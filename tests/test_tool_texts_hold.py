"""Texts the tools print that an audit (issue 50) found overstated, checked against
TensorFlow: each test builds the situation, checks what TensorFlow does, then checks that
the text says exactly that. In-process and small: a few seconds in all.
"""

from __future__ import annotations

import collections
import itertools
import tempfile
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf
from tf_retracing import CAUSES, explain_retracing
from tf_retracing.comparison.advice import Fixes, _composite_shape_fix
from tf_retracing.explainer import watch as watch_module
from tf_retracing.lint import lint_source


def test_reduce_retracing_raises_index_error_only_for_more_variadic_arguments():
    def body(x, *more, **options):
        return x

    more = tf.function(body, reduce_retracing=True)
    more(tf.ones([2]))
    with pytest.raises(IndexError):  # more arguments than the earlier trace had
        more(tf.ones([2]), tf.ones([2]))
    renamed = tf.function(body, reduce_retracing=True)
    renamed(tf.ones([2]), a=tf.ones([2]))
    renamed(tf.ones([2]), b=tf.ones([2]))  # another keyword, as many: no error
    fewer = tf.function(body, reduce_retracing=True)
    fewer(tf.ones([2]), tf.ones([2]))
    fewer(tf.ones([2]))  # fewer: no error
    assert (renamed.experimental_get_tracing_count(), fewer.experimental_get_tracing_count()) == (
        2,
        2,
    )
    note = Fixes(("*more", "**options")).variadic_note()
    assert "raise IndexError when a call passes more arguments through *more and " in note
    assert "than an earlier trace had" in note and "did not have" not in note


def _traces_over(dataset: tf.data.Dataset, batches: int) -> int:
    strategy = tf.distribute.MirroredStrategy(["/CPU:0"])

    @tf.function
    def step(batch):
        return batch

    for batch in itertools.islice(strategy.experimental_distribute_dataset(dataset), batches):
        step(batch)
    return step.experimental_get_tracing_count()


def test_repeating_keeps_batches_full_only_without_a_count_before_batching():
    data = tf.data.Dataset.range(10)
    assert [int(b.shape[0]) for b in data.batch(3).repeat(2)] == [3, 3, 3, 1] * 2
    assert _traces_over(data.batch(3).repeat(2), 8) == 2  # repeated after batching
    assert _traces_over(data.repeat(2).batch(3), 7) == 2  # with a count: a last short batch
    assert _traces_over(data.repeat().batch(3), 10) == 1  # the advice, as written
    text = _composite_shape_fix("batch", "PerReplica", batch_only=True)
    assert "drop_remainder=True (or repeat it without a count before batching)" in text


class _CountingLayer(keras.layers.Layer):
    traces = 0

    def call(self, x):
        _CountingLayer.traces += 1  # Python: runs when a step traces, not when it runs
        return x


KERAS_LOOP = """
model = keras.Sequential([keras.Input((4,)), Counting(), keras.layers.Dense(1)])
model.compile(loss="mse")
Counting.traces = 0  # building the model called the layer once
for i in range(1, 6):
    model.{step}
"""


@pytest.mark.parametrize(
    ("call", "traces"),
    [
        ("predict(np.ones([i, 4]), verbose=0)", 2),
        ("predict_on_batch(np.ones([i, 4]))", 2),
        ("test_on_batch(np.ones([i, 4]), np.ones([i, 1]))", 2),
        # one more: the first step creates the optimizer's variables, then traces again
        ("train_on_batch(np.ones([i, 4]), np.ones([i, 1]))", 3),
    ],
)
def test_a_keras_step_given_a_shape_per_iteration_traces_once_more_not_once_per_shape(call, traces):
    program = textwrap.dedent(KERAS_LOOP.format(step=call))
    header = "import keras\nimport numpy as np\n"
    findings = [f for f in lint_source(header + program) if f.rule == "TFL011"]
    assert findings and all(
        f.message.endswith(
            "Keras traces its step with reduce_retracing=True, so the second shape traces it "
            "once more with that dimension None, and later shapes of the same rank reuse that "
            "trace"
        )
        for f in findings
    )
    exec(program, {"keras": keras, "np": np, "Counting": _CountingLayer})
    assert _CountingLayer.traces == traces  # five shapes


def _predict_traces(dataset: tf.data.Dataset) -> int:
    inputs = keras.Input([None])
    model = keras.Model(inputs, keras.ops.sum(_CountingLayer()(inputs), axis=1))
    _CountingLayer.traces = 0  # building the model called the layer once
    model.predict(dataset, verbose=0)
    return _CountingLayer.traces


@pytest.mark.filterwarnings("ignore:Your input ran out of data")
def test_only_padding_to_one_length_keeps_a_keras_step_to_one_trace():
    lengths = [3, 5, 7, 9, 4, 6]
    sequences = tf.data.Dataset.from_generator(
        lambda: (np.ones([n], np.float32) for n in lengths),
        output_signature=tf.TensorSpec([None], tf.float32),
    )
    assert _predict_traces(sequences.padded_batch(2, padded_shapes=[10])) == 1  # the advice
    assert _predict_traces(sequences.padded_batch(2)) == 2  # each batch to its own longest
    buckets = sequences.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [6, 10], [3, 3, 3], pad_to_bucket_boundary=True
    )
    assert _predict_traces(buckets) == 2  # two lengths: no fewer than unpadded data
    assert _predict_traces(sequences.batch(1)) == 2  # reduce_retracing: one general trace
    advice = watch_module._LIBRARY_SHAPE_ADVICE
    assert "to keep one trace, pad the inputs to one length" in advice
    assert "padded_batch and fixed padded_shapes" in advice
    assert "Bucketing to a few lengths saves no trace here" in advice


def test_a_save_under_another_variable_policy_traces_each_concrete_function_again():
    module = tf.Module()
    module.add = tf.function(lambda x: x + 1)
    module.add(tf.ones([2]))
    policy = tf.saved_model.experimental.VariablePolicy.SAVE_VARIABLE_DEVICES
    counts = []
    for options in (None, None, tf.saved_model.SaveOptions(experimental_variable_policy=policy)):
        tf.saved_model.save(module, tempfile.mkdtemp(), options=options)
        counts.append(module.add.experimental_get_tracing_count())
    assert counts == [2, 2, 3]  # the same options: none; another variable policy: one more
    (row,) = [cause for cause in CAUSES if cause.code == "TFR012"]
    assert row.fix.endswith("at its first save under each variable policy")


def test_a_mapping_of_another_class_with_the_same_keys_is_no_new_trace():
    @explain_retracing
    def total(features):
        return tf.add_n(list(features.values()))

    total({"a": tf.ones([2])})
    total(collections.OrderedDict(a=tf.ones([2])))  # another container type, same keys
    assert total.experimental_get_tracing_count() == 1
    total({"a": tf.ones([2]), "b": tf.ones([2])})  # new keys: a new trace
    (reason,) = total.retrace_reasons
    assert "Each container type, length and set of keys is a new trace (a dict and an " in (
        reason.message
    )
    assert "OrderedDict with the same keys count as one)" in reason.message


def test_an_unwatched_functions_trace_count_is_the_one_at_the_report():
    """It said "(5 traces)", the count at TensorFlow's first warning, for a function that
    had traced 8 times by the report (audit s15)."""
    from tf_retracing.explainer.summary import report
    from tf_retracing.explainer.watching import watch_every_tf_function

    made_before = tf.function(lambda x: x + 1)
    with watch_every_tf_function() as watches:
        for size in range(1, 9):
            made_before(tf.zeros([size]))
    assert made_before.experimental_get_tracing_count() == 8
    text = report(watches)
    assert "it is one tf.function (8 traces) made before" in text
