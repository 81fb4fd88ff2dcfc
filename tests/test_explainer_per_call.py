"""Functions TensorFlow makes anew on each eager call (pfor's, behind tape.jacobian,
tape.batch_jacobian and eager tf.vectorized_map) are watched in whole-program mode: each
user line that makes them is named, with the fix that removes the retraces, and that fix,
applied literally, leaves nothing to report."""

from __future__ import annotations

from pathlib import Path

import pytest
import tensorflow as tf
from tf_retracing import report, report_data, watch_every_tf_function

CALLS = 4


def jacobian(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return tape.jacobian(y, x)  # line: jacobian


def batch_jacobian(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return tape.batch_jacobian(y, x)  # line: batch_jacobian


def vectorized(x):
    return tf.vectorized_map(lambda row: row * 2.0, x)  # line: vectorized


def line_of(marker: str) -> str:
    lines = Path(__file__).read_text().splitlines()
    (number,) = [i + 1 for i, text in enumerate(lines) if text.endswith(f"# line: {marker}")]
    return f"{Path(__file__).name}:{number}"


@pytest.mark.parametrize("body", [jacobian, batch_jacobian, vectorized])
def test_each_eager_call_is_a_retrace_at_the_users_line(body):
    with watch_every_tf_function() as watches:
        for _ in range(CALLS):
            body(tf.ones((2, 3)))
    data = report_data(watches)
    (row,) = [f for f in data["functions"] if f["defined_at"] == line_of(body.__name__)]
    assert (row["function"], row["tf_functions"], row["traces"]) == (
        "pfor.<locals>.f",
        CALLS,
        CALLS,
    )
    assert row["retraces"] == CALLS - 1
    assert {r["cause"] for r in row["reasons"]} == {"TFR006"}
    message = row["reasons"][-1]["message"]
    assert f"every eager call of your line {line_of(body.__name__)}" in message
    assert "run that line inside one tf.function of your own, made once" in message
    assert data["unwatched"] == []  # watched, so never "cannot say why"
    assert "pfor.<locals>.f" in report(watches)


@pytest.mark.parametrize("body", [jacobian, batch_jacobian, vectorized])
def test_the_advice_applied_removes_every_retrace(body):
    with watch_every_tf_function() as watches:
        fixed = tf.function(body)  # one tf.function, made once, around the line
        results = [fixed(tf.ones((2, 3))) for _ in range(CALLS)]
    assert all(result.shape == body(tf.ones((2, 3))).shape for result in results)
    data = report_data(watches)
    assert [(f["traces"], f["retraces"]) for f in data["functions"]] == [(1, 0)]
    assert data["unwatched"] == []


def test_pfor_is_put_back_after_the_block():
    from tensorflow.python.ops.parallel_for import control_flow_ops

    before = control_flow_ops.def_function
    with watch_every_tf_function():
        assert control_flow_ops.def_function is not before
    assert control_flow_ops.def_function is before
