"""Advice for a Python value that changed fits how the function uses it (issue 41): a value
that chooses a Python object is never advised to become a tensor, since that fails; a value
that only decides an `if` may become a tensor where both branches are tensor operations; a
tf.summary step becomes an int64 tensor; a number the graph uses in several dtypes becomes a
tensor of the one dtype that runs, or of one with the tf.cast it names. Each piece of advice
is applied literally here."""

from __future__ import annotations

import re

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


# --- The one dtype to pass a number as, where the graph uses it in several (issue 41) ----
# Each program retraces for a new Python number; the advice's tf.constant(...) is taken
# from the message as written, put in the number's place, and the fixed program must run
# with one trace and return what the original returned. A dtype the advice says fails is
# shown to fail.

ADVISED = re.compile(r"as a tensor \((tf\.constant\(-?[\d.]+(?:, dtype=tf\.\w+)?\))")


def advised_reason(function, values, *rest):
    """The reason for the last retrace of ``function`` called with each of ``values``
    (then ``rest``), and what the original returned for each."""
    watched = explain_retracing(function)
    results = [watched(value, *rest) for value in values]
    return watched.retrace_reasons[-1], results


def advised_tensor(message: str, value) -> tf.Tensor:
    """The tensor the advice names, made for ``value`` exactly as the advice writes it."""
    (written,) = ADVISED.findall(message)
    number = re.search(r"tf\.constant\((-?[\d.]+)", written).group(1)
    return eval(written.replace(number, repr(value), 1), {"tf": tf})


def same(results, expected) -> bool:
    flat = [tf.nest.flatten(r) for r in results], [tf.nest.flatten(e) for e in expected]
    return all(
        a.dtype == b.dtype and a.numpy().tolist() == b.numpy().tolist()
        for got, want in zip(*flat, strict=True)
        for a, b in zip(got, want, strict=True)
    )


def scaled(n, x):
    return x * n


def range_and_mul(n, x):
    total = tf.reduce_sum(x * n)
    return total + tf.cast(tf.reduce_sum(tf.range(n)), tf.float32)


def one_hot_and_mul(n, ids, x):
    return tf.one_hot(ids, n) * (x * n)


def one_hot_and_mul_fixed(n, ids, x):  # the advised tf.cast, where n feeds Mul
    return tf.one_hot(ids, n) * (x * tf.cast(n, tf.float32))


def python_loop(n, x):
    for _ in range(n):
        x = x * 2.0
    return x


def log_epoch(loss, epoch):
    for i in range(2):  # a Python loop: the steps are epoch * 2 and epoch * 2 + 1
        tf.summary.write("loss", loss, step=epoch * 2 + i)
    return loss


def fails(function, *args) -> bool:
    try:
        tf.function(function)(*args)
    except (TypeError, ValueError):
        return True
    return False


VALUES = (7, 11, 13)


def test_a_number_the_graph_uses_in_one_dtype_is_advised_as_that_dtype():
    x = tf.ones(3)
    reason, expected = advised_reason(scaled, VALUES, x)
    assert "tf.constant(13, dtype=tf.float32), the dtype the function uses it as" in (
        reason.message
    )
    fixed = tf.function(scaled)
    assert same([fixed(advised_tensor(reason.message, n), x) for n in VALUES], expected)
    assert fixed.experimental_get_tracing_count() == 1
    assert fails(scaled, tf.constant(13), x)  # what tf.constant(13) alone (int32) does


def test_of_several_dtypes_the_one_every_operation_takes_is_advised():
    x = tf.ones(3)
    reason, expected = advised_reason(range_and_mul, VALUES, x)
    message = reason.message
    assert "pass it as a tensor (tf.constant(13, dtype=tf.float32))" in message
    assert "The traced graph has `n` as float32 and int32; float32 is the dtype every " in (message)
    assert "An int32 tensor fails at Mul, line " in message
    assert "(`total = tf.reduce_sum(x * n)`)" in message
    assert "dtype=..." not in message
    fixed = tf.function(range_and_mul)
    assert same([fixed(advised_tensor(message, n), x) for n in VALUES], expected)
    assert fixed.experimental_get_tracing_count() == 1
    assert fails(range_and_mul, tf.constant(13, dtype=tf.int32), x)  # where it claims so


def test_where_no_dtype_fits_every_use_the_advice_says_so_and_names_the_cast():
    ids, x = tf.constant([1, 2]), tf.ones((2, 1))
    reason, expected = advised_reason(one_hot_and_mul, VALUES, ids, x)
    message = reason.message
    assert "pass it as a tensor (tf.constant(13, dtype=tf.int32))" in message
    assert (
        "The traced graph has `n` as float32 and int32, and no one dtype fits every "
        "operation it feeds: pass it as int32 and write, in its place, "
        "tf.cast(n, tf.float32) where it feeds Mul, line "
    ) in message
    assert "A float32 tensor fails at OneHot, line " in message
    fixed = tf.function(one_hot_and_mul_fixed)
    assert same([fixed(advised_tensor(message, n), ids, x) for n in VALUES], expected)
    assert fixed.experimental_get_tracing_count() == 1
    # Unchanged, the body fails with either dtype: no one dtype fits without the cast.
    assert fails(one_hot_and_mul, tf.constant(13, dtype=tf.int32), ids, x)
    assert fails(one_hot_and_mul, tf.constant(13, dtype=tf.float32), ids, x)


def test_a_number_the_graph_does_not_show_keeps_the_default_dtype_which_runs():
    x = tf.ones(2)
    reason, expected = advised_reason(python_loop, VALUES, x)
    assert "(tf.constant(13), which is int32" in reason.message
    assert "The traced graph has" not in reason.message
    fixed = tf.function(python_loop)  # AutoGraph makes the loop over a tensor a while loop
    assert same([fixed(advised_tensor(reason.message, n), x) for n in VALUES], expected)
    assert fixed.experimental_get_tracing_count() == 1


def test_an_epoch_that_reaches_a_summary_step_through_a_python_loop_is_int64(tmp_path):
    loss = tf.constant(0.5)
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        watched = explain_retracing(log_epoch)
        expected = [watched(loss, epoch) for epoch in VALUES]
        reason = watched.retrace_reasons[-1]
        assert "as tf.constant(13, dtype=tf.int64), the dtype a step has" in reason.message
        written = ADVISED.pattern.replace("as a tensor \\(", "as ")
        (advice,) = re.findall(written, reason.message)
        fixed = tf.function(log_epoch)
        results = [
            fixed(loss, eval(advice.replace("13", str(epoch)), {"tf": tf})) for epoch in VALUES
        ]
        assert same(results, expected)
        assert fixed.experimental_get_tracing_count() == 1
        assert fails(log_epoch, loss, tf.constant(13))  # int32: a step must be int64


def test_a_step_is_followed_through_assignments_and_loops():
    def through_names(loss, epoch):
        step = epoch * 2
        for _ in range(2):
            tf.summary.write("loss", loss, step=step)
            step = step + 1

    def through_a_loop(loss, epoch):
        for step in range(epoch * 2, epoch * 2 + 2):
            tf.summary.write("loss", loss, step=step)

    def also_a_factor(loss, epoch):
        step = epoch * 2
        tf.summary.write("loss", loss * step, step=step)

    assert uses(through_names, "epoch") == {STEP}
    assert uses(through_a_loop, "epoch") == {STEP}
    assert uses(also_a_factor, "epoch") == {FEEDS}


def times_and_range(n, x, y):
    scaled = x * n
    return scaled, tf.range(y)  # its delta is a constant 1, as n is at the last call


def test_a_constant_that_only_has_the_value_is_not_a_use_of_the_number():
    x, y = tf.ones(3), tf.constant(3)
    reason, expected = advised_reason(times_and_range, (2, 1), x, y)
    assert "tf.constant(1, dtype=tf.float32), the dtype the function uses it as" in (reason.message)
    fixed = tf.function(times_and_range)
    assert same([fixed(advised_tensor(reason.message, n), x, y) for n in (2, 1)], expected)
    assert fixed.experimental_get_tracing_count() == 1


def inside_a_cond(n, x):
    if tf.reduce_sum(x) > 0:  # a tensor: AutoGraph makes it a tf.cond, n * x in a branch
        x = x * n
    return x + tf.cast(n, tf.float32)


def test_a_use_inside_a_tf_cond_branch_counts_and_is_checked_there():
    x = tf.ones(3)
    reason, expected = advised_reason(inside_a_cond, VALUES, x)
    assert "pass it as a tensor (tf.constant(13, dtype=tf.float32))" in reason.message
    assert "An int32 tensor fails at Mul, line " in reason.message
    assert "(`x = x * n`)" in reason.message
    fixed = tf.function(inside_a_cond)
    assert same([fixed(advised_tensor(reason.message, n), x) for n in VALUES], expected)
    assert fixed.experimental_get_tracing_count() == 1
    assert fails(inside_a_cond, tf.constant(13), x)


def test_where_the_check_cannot_run_the_advice_lists_the_dtypes(monkeypatch):
    from tf_retracing._internals import describing

    def moved(*args):  # as a release without the operation registry would do
        raise ImportError("op_def_registry")

    monkeypatch.setattr(describing, "dtype_to_pass", moved)  # where it is looked up
    reason, _ = advised_reason(range_and_mul, VALUES, tf.ones(3))
    assert "tf.constant(13, dtype=...) with the dtype of the operation it feeds; the " in (
        reason.message
    )
    assert "traced graph has it as float32, int32" in reason.message
