"""What a lint message says will happen, checked by running the program it flags.

Each program is linted (the message is the rule's, on the line it names), then run here
with TensorFlow, and the consequence the message states is checked: a count of traces, or
the error it says the program fails with. In-process and small: a few seconds in all.
"""

from __future__ import annotations

import textwrap
import warnings

import keras
import numpy as np
import pytest
import tensorflow as tf
from tf_retracing.lint import lint_source

HEADER = "import keras\nimport numpy as np\nimport tensorflow as tf\n\n"


def flagged(program: str) -> tuple[str, dict]:
    """The one finding's message, and the namespace the program ran in."""
    source = HEADER + textwrap.dedent(program)
    (finding,) = lint_source(source)
    return finding.message, {"keras": keras, "np": np, "tf": tf}


def test_tfl001_a_new_function_per_call_traces_on_every_call():
    program = """
        traces = []
        def add_one(x):
            traces.append(1)
            return x + 1
        for step in range(3):
            tf.function(add_one)(tf.constant(step))
        """
    message, space = flagged(program)
    assert "a new tf.function is created and called" in message
    exec(HEADER + textwrap.dedent(program), space)
    assert len(space["traces"]) == 3  # a new tf.function per call: every call traced


def test_tfl003_a_python_value_per_iteration_is_one_trace_per_value():
    program = """
        @tf.function
        def repeat(x, times):
            return x * times
        for times in [1, 2, 3, 4]:
            repeat(tf.ones([2]), times)
        """
    message, space = flagged(program)
    assert message.endswith("one trace per value")
    exec(HEADER + textwrap.dedent(program), space)
    assert space["repeat"].experimental_get_tracing_count() == 4


def test_tfl005_a_variable_made_on_every_trace_fails_on_the_first_call():
    program = """
        @tf.function
        def make_and_use(x):
            weight = tf.Variable(2.0)
            return x * weight
        """
    message, space = flagged(program)
    assert message.endswith("it fails on the first call")
    exec(HEADER + textwrap.dedent(program), space)
    with pytest.raises(ValueError, match=r"tf\.function only supports singleton tf\.Variables"):
        space["make_and_use"](tf.ones([1]))


def test_tfl006_predict_inside_a_tf_function_fails_while_tracing():
    program = """
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        @tf.function
        def serve(x):
            return model.predict(x)
        """
    message, space = flagged(program)
    assert message.endswith("it fails while tracing")
    exec(HEADER + textwrap.dedent(program), space)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # AutoGraph's notes about Keras's progress bar
        with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute"):
            space["serve"](tf.ones([1, 2]))  # predict reads .numpy() of a graph tensor
    assert space["serve"].experimental_get_tracing_count() == 0  # no trace was kept


def test_tfl009_a_numpy_default_array_is_a_float64_trace_beside_the_float32_one():
    program = """
        @tf.function
        def scaled(x):
            return x * 2
        scaled(tf.constant([1.0, 2.0]))
        scaled(np.array([1.0, 2.0]))
        """
    message, space = flagged(program)
    assert message.endswith("a float64 trace beside the float32 one")
    exec(HEADER + textwrap.dedent(program), space)
    dtypes = sorted(
        f.structured_input_signature[0][0].dtype.name
        for f in space["scaled"]._list_all_concrete_functions()
    )
    assert dtypes == ["float32", "float64"]


def test_tfl011_an_array_shaped_by_the_loop_is_one_trace_per_shape():
    program = """
        @tf.function
        def total(x):
            return tf.reduce_sum(x)
        data = tf.ones([100])
        for n in range(1, 5):
            total(data[:n])
        """
    message, space = flagged(program)
    assert message.endswith("one trace per shape")
    exec(HEADER + textwrap.dedent(program), space)
    assert space["total"].experimental_get_tracing_count() == 4
