"""Advice for a Python value that changed fits how the function uses it (issue 41): a value
that chooses a Python object is never advised to become a tensor, since that fails; a value
that only decides an `if` may become a tensor where both branches are tensor operations; a
tf.summary step becomes an int64 tensor. Each piece of advice is applied literally here."""

from __future__ import annotations

import pytest
import tensorflow as tf
from tf_retracing import explain_retracing
from tf_retracing.argument_use import BRANCHES, CHOOSES, FEEDS, STEP, uses

SCALES = {"agent_1": tf.constant(1.0), "agent_2": tf.constant(2.0)}
LAYERS = [tf.constant(1.0), tf.constant(2.0)]


def by_key(agent, x):
    return SCALES[agent] * x


def by_index(i, x):
    return LAYERS[i] * x


def by_branch(mode, x):
    if mode == 2:
        return x * 2.0
    return x - 1.0


def by_step(loss, epoch):
    tf.summary.write("loss", loss, step=epoch)
    return loss


def only_reason(function, first, second, x):
    watched = explain_retracing(function)
    watched(first, x)
    watched(second, x)
    (reason,) = watched.retrace_reasons
    return reason


@pytest.mark.parametrize(
    ("function", "values", "tensor"),
    [(by_key, ("agent_1", "agent_2"), tf.constant("agent_2")), (by_index, (0, 1), tf.constant(1))],
)
def test_a_value_that_chooses_a_python_object_is_not_advised_to_become_a_tensor(
    function, values, tensor
):
    reason = only_reason(function, *values, tf.ones(2))
    assert "choose a Python object" in reason.message
    assert "keep it a Python value" in reason.message
    assert "pass it as a tensor" not in reason.message
    with pytest.raises(TypeError):  # what following the general advice would have done
        tf.function(function)(tensor, tf.ones(2))


def test_the_in_graph_alternative_it_names_picks_with_one_trace():
    @tf.function
    def by_switch(i, x):  # tf.switch_case over one branch per value
        return tf.switch_case(i, [lambda: LAYERS[0] * x, lambda: LAYERS[1] * x])

    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["agent_1", "agent_2"], [1.0, 2.0]), 0.0
    )

    @tf.function
    def by_table(agent, x):  # tf.lookup.StaticHashTable from keys to numbers
        return table.lookup(agent) * x

    results = [by_switch(tf.constant(i), tf.ones(2)).numpy().tolist() for i in (0, 1)]
    results += [by_table(tf.constant(a), tf.ones(2)).numpy().tolist() for a in SCALES]
    assert results == [[1.0, 1.0], [2.0, 2.0], [1.0, 1.0], [2.0, 2.0]]
    assert by_switch.experimental_get_tracing_count() == 1
    assert by_table.experimental_get_tracing_count() == 1


def test_a_value_that_decides_an_if_may_become_the_tensor_the_advice_names():
    reason = only_reason(by_branch, 1, 2, tf.ones(2))
    assert "only to decide an `if`" in reason.message
    advised = reason.message.split("Pass it as a tensor (")[1].split(",")[0:2]
    dtype = advised[1].split("=")[1].rstrip(")")  # e.g. tf.float32
    fixed = tf.function(by_branch)
    results = [
        fixed(tf.constant(mode, dtype=getattr(tf, dtype.removeprefix("tf."))), tf.ones(2))
        for mode in (1, 2)
    ]
    assert [r.numpy().tolist() for r in results] == [[0.0, 0.0], [2.0, 2.0]]
    assert fixed.experimental_get_tracing_count() == 1


def test_a_summary_step_is_advised_as_an_int64_tensor_and_that_runs():
    watched = explain_retracing(by_step)
    with tf.summary.create_noop_writer().as_default():
        watched(tf.constant(0.5), 1)
        watched(tf.constant(0.5), 2)
        (reason,) = watched.retrace_reasons
        assert "tf.constant(2, dtype=tf.int64)" in reason.message
        fixed = tf.function(by_step)
        for epoch in (1, 2, 3):
            fixed(tf.constant(0.5), tf.constant(epoch, dtype=tf.int64))
    assert fixed.experimental_get_tracing_count() == 1


def test_uses_read_from_the_source():
    def body(agent, obs, k, flag, name, step, x, frames):
        policy = SCALES[agent]
        element = obs[k]  # obs is a tensor: tensor indexing
        if flag:
            x = x + 1
        field = getattr(obs, name)
        tf.summary.write("x", x, step=step)
        return policy, element, field, x * 2 if x > 0 else x, frames[0]

    tensors = frozenset({"obs", "x"})
    found = {name: uses(body, name, tensors) for name in ("agent", "k", "flag", "name", "step")}
    assert found == {
        "agent": {CHOOSES},
        "k": {FEEDS},
        "flag": {BRANCHES},
        "name": {CHOOSES},
        "step": {STEP},
    }
    assert uses(body, "x", tensors) == {BRANCHES, FEEDS}
    assert uses(lambda items, i: items[i], "i") == {CHOOSES}


def test_without_source_the_general_advice_is_given():
    namespace: dict = {}
    exec("def nosource(i, x):\n    return [x, x][i]\n", namespace)  # no file to read
    assert uses(namespace["nosource"], "i") == frozenset()
    reason = only_reason(namespace["nosource"], 0, 1, tf.ones(2))
    assert "Every new Python value is a new trace" in reason.message
