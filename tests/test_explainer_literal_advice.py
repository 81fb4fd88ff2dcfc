"""Advice that can be applied as printed, for the classes where it once could not.

Each test builds the situation, reads what the explainer prints, applies each piece of
advice literally (the exact call it names, keyword calls and closures included) and checks
with TensorFlow that the traces stop, or are the ones the advice says to expect, and that
results stay right. The corpus holds the cited, reduced cases of each class
(verification/explainer_corpus/cases: rcfr_*, generate_*, trieste_*); a solver per test
case is in tests/fixtures/explain, its report being one a corpus case already cites.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf
from tf_retracing import explain_retracing, report
from tf_retracing._internals import number_dtype


def messages(function) -> list[str]:
    return [reason.message for reason in function.retrace_reasons]


# --- A list of Keras layers passed as an argument (OpenSpiel RCFR) ---------------------


def built_layers(hidden: int, seed: int) -> list:
    """A feedforward network's layers, built by a call, as RCFR's DeepRcfrModel does."""
    keras.utils.set_random_seed(seed)
    layers = [keras.layers.Dense(4, activation="relu") for _ in range(hidden)]
    layers.append(keras.layers.Dense(1))
    x = tf.zeros([1, 3])
    for layer in layers:
        x = layer(x)
    return layers


def evaluate_layers(layers, x):
    for layer in layers:
        x = layer(x)
    return x


def test_new_layers_are_compared_with_the_closest_trace_and_advised_as_objects():
    feedforward = explain_retracing(tf.function(evaluate_layers))
    x = tf.ones([2, 3])
    two, three, other_three = built_layers(1, 0), built_layers(2, 1), built_layers(2, 2)
    for layers in (two, three, other_three):
        feedforward(layers, x)
    grew, replaced = [r for r in feedforward.retrace_reasons if r.argument is not None]
    assert (grew.kind, grew.argument) == ("structure", "layers")
    assert "holds Python objects (Dense #" in grew.message
    assert "stack the items" not in grew.message
    # trace 3 is compared with trace 2 (a list of 3), not trace 1: new objects, not length
    assert (replaced.trace, replaced.kind, replaced.argument) == (3, "object", "layers[0]")
    assert "changed structure" not in replaced.message
    assert "tf.stack cannot take them" in grew.message
    with pytest.raises((TypeError, ValueError)):
        tf.stack(three)


def test_the_method_advice_traces_once_per_model_and_the_variables_advice_once():
    message = "make the tf.function a method of the object that owns them (a tf.Module or "
    feedforward = explain_retracing(tf.function(evaluate_layers))
    x = tf.ones([2, 3])
    models = [built_layers(2, seed) for seed in range(3)]
    for layers in models:
        feedforward(layers, x)
    first = next(r for r in feedforward.retrace_reasons if r.subkind == "object")
    assert message + "Keras model), which traces once per instance" in first.message
    assert "pass their variables instead (e.g. [item.variables for item in layers])" in (
        first.message
    )

    class Network(tf.Module):  # the advice, as written: a method of the owner
        def __init__(self, layers):
            super().__init__()
            self.layers = layers

        @tf.function
        def __call__(self, x):
            return evaluate_layers(self.layers, x)

    networks = [Network(layers) for layers in models]
    for network in networks:
        network(x)
        network(x)
    assert [n.__call__.experimental_get_tracing_count() for n in networks] == [1, 1, 1]

    @tf.function  # the other advice: their variables, computed with in the function
    def with_variables(weights, x):
        for index, (kernel, bias) in enumerate(weights):
            x = tf.matmul(x, kernel) + bias
            if index < len(weights) - 1:
                x = tf.nn.relu(x)
        return x

    for layers in models:
        result = with_variables([item.variables for item in layers], x)
        np.testing.assert_allclose(result, evaluate_layers(layers, x), rtol=1e-5, atol=1e-6)
    models[0][0].kernel.assign(models[0][0].kernel * 2)  # read on every call, not frozen
    result = with_variables([item.variables for item in models[0]], x)
    np.testing.assert_allclose(result, evaluate_layers(models[0], x), rtol=1e-5, atol=1e-6)
    assert with_variables.experimental_get_tracing_count() == 1  # "matched by dtype and shape"


def test_a_list_of_variables_that_grew_is_not_told_to_stack_them():
    def halve(variables):
        for variable in variables:
            variable.assign(variable * 0.5)

    decay = explain_retracing(tf.function(halve))
    pool = [tf.Variable(tf.ones([2])) for _ in range(3)]
    decay(pool[:2])
    decay(pool)
    (reason,) = [r for r in decay.retrace_reasons if r.kind == "structure"]
    assert "it holds tf.Variables: keep one container of them" in reason.message
    assert "stack the items" not in reason.message
    stacked = tf.stack(pool)  # "tf.stack would pass a copy of their values"
    assert not hasattr(stacked, "assign")
    before = stacked.numpy().copy()
    pool[0].assign(tf.zeros([2]))
    np.testing.assert_array_equal(stacked, before)  # the copy did not follow the variable
    fixed = tf.function(halve)  # "keep one container of them"
    values = [v.numpy() for v in pool]
    for _ in range(3):
        fixed(pool)
    assert fixed.experimental_get_tracing_count() == 1
    for variable, value in zip(pool, values, strict=True):
        np.testing.assert_allclose(variable.numpy(), value * 0.125)


# --- reduce_retracing and keyword arguments (a generate-style function) --------------


def generate_body(input_ids, **kwargs):
    beams = kwargs.get("num_beams", 1)
    return tf.repeat(input_ids, beams, axis=0)


def test_reduce_retracing_raises_on_a_new_keyword_and_input_signature_refuses_it():
    reduced = tf.function(generate_body, reduce_retracing=True)
    reduced(tf.ones([1, 3]))
    with pytest.raises(IndexError):  # TensorFlow's own function_type.py, no explainer
        reduced(tf.ones([1, 3]), num_beams=2)
    signed = tf.function(generate_body, input_signature=[tf.TensorSpec([1, None])])
    signed(tf.ones([1, 3]))
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_beams'"):
        signed(tf.ones([1, 3]), num_beams=2)


def test_reduce_retracing_is_never_advised_for_a_function_that_takes_kwargs():
    generate = explain_retracing(tf.function(generate_body))
    generate(tf.ones([1, 3]))
    generate(tf.ones([1, 4]))  # no keyword passed yet: an input_signature still fits
    generate(tf.ones([1, 4]), num_beams=2)
    generate(tf.ones([1, 4]), num_beams=3)
    generate(tf.ones([1, 5]), num_beams=3)  # after keywords: neither fits
    for message in messages(generate):  # never offered as a fix, only said not to fit
        assert "use reduce_retracing=True" not in message
        assert "or reduce_retracing=True)" not in message
    before, passed, value, after = [r for r in generate.retrace_reasons if r.argument]
    spec = "tf.TensorSpec(shape=[1, None], dtype=tf.float32)"
    assert f"give `input_ids` the spec {spec} in input_signature;" in before.message
    assert "raise IndexError" in before.message
    assert (passed.kind, passed.argument) == ("new-argument", "num_beams")
    assert (value.kind, value.argument) == ("python-value", "num_beams")
    assert "Pad or bucket inputs to a few sizes: one trace each." in after.message
    assert "in input_signature" not in after.message.split("Neither")[0]

    shape_line = next(line for line in report([generate._watch]).splitlines() if "shape" in line)
    assert (
        "took 3 shapes" in shape_line and "in input_signature" not in shape_line.split("Neither")[0]
    )
    # The first shape advice, applied where no call passes a keyword: one trace.
    signed = tf.function(generate_body, input_signature=[tf.TensorSpec([1, None], tf.float32)])
    for width in (3, 4, 5):
        signed(tf.ones([1, width]))
    assert signed.experimental_get_tracing_count() == 1


def test_the_report_takes_back_an_input_signature_once_a_call_passes_a_keyword():
    generate = explain_retracing(tf.function(generate_body))
    generate(tf.ones([1, 3]))
    generate(tf.ones([1, 4]))  # advised: an input_signature (no keyword passed yet)
    generate(tf.ones([1, 4]), num_beams=2)
    shape = next(r for r in generate.retrace_reasons if r.kind == "shape")
    assert " in input_signature;" in shape.message
    text = report([generate._watch])
    assert "Later calls passed keyword arguments through **kwargs (`num_beams`), which an " in text
    assert "input_signature refuses: pad or bucket inputs to a few sizes instead." in text


def test_a_keyword_changed_on_purpose_costs_a_trace_per_value_or_one_as_a_tensor():
    generate = explain_retracing(tf.function(generate_body))
    ids = tf.ones([1, 4])
    generate(ids)
    generate(ids, num_beams=2)
    (passed,) = [r for r in generate.retrace_reasons if r.argument == "num_beams"]
    advice = "bound them by passing it as a tensor on every call, the calls that left it out "
    assert advice + "included (tf.constant(2, dtype=tf.int32)" in passed.message
    assert "each distinct value is a trace of its own (and leaving it out another)" in (
        passed.message
    )
    per_value = tf.function(generate_body)
    for beams in (None, 2, 3, 2):
        per_value(ids) if beams is None else per_value(ids, num_beams=beams)
    assert per_value.experimental_get_tracing_count() == 3  # left out, 2 and 3

    as_tensor = tf.function(generate_body)  # the advice, as written, every call
    for beams in (1, 2, 3, 2):
        result = as_tensor(ids, num_beams=tf.constant(beams, dtype=tf.int32))
        assert result.shape == (beams, 4)
    assert as_tensor.experimental_get_tracing_count() == 1


def test_a_varargs_function_is_not_advised_reduce_retracing_either():
    def gather(x, *more):
        return x + sum(more) if more else x

    reduced = tf.function(gather, reduce_retracing=True)
    reduced(tf.ones([2]))
    with pytest.raises(IndexError):
        reduced(tf.ones([2]), tf.ones([2]))
    watched = explain_retracing(tf.function(gather))
    watched(tf.ones([2]))
    watched(tf.ones([3]))
    (reason,) = [r for r in watched.retrace_reasons if r.kind == "shape"]
    assert "Not reduce_retracing=True: the function takes *more" in reason.message
    assert "an input_signature takes only the positional arguments it lists" in reason.message
    signed = tf.function(gather, input_signature=[tf.TensorSpec([None])])
    signed(tf.ones([2]))
    signed(tf.ones([3]))
    assert signed.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="too many positional arguments"):
        signed(tf.ones([2]), tf.ones([2]))


# --- One model per test case ----------------------------------------------------------


class Net(tf.Module):
    def __init__(self, units):
        super().__init__()
        self.dense = keras.layers.Dense(units)
        self.dense(tf.zeros([1, 5]))

    @explain_retracing
    @tf.function
    def __call__(self, x):
        return self.dense(x)


def test_one_model_per_test_case_is_said_to_be_expected(monkeypatch):
    nets = []
    for units in (2, 3, 4):  # what pytest does for each parametrised case
        monkeypatch.setenv("PYTEST_CURRENT_TEST", f"test_nets.py::test_net[{units}] (call)")
        nets.append(Net(units))
        assert nets[-1](tf.ones([2, 5])).shape == (2, units)
    reasons = [r for r in Net.__call__.retrace_reasons if r.subkind == "self"]
    assert len(reasons) == 2, messages(Net.__call__)
    for reason in reasons:
        assert "That is expected, not a retrace to fix" in reason.message
        assert "Create the object once" not in reason.message
    # and it is what TensorFlow does: one trace per model, none more
    for net in nets:
        net(tf.ones([2, 5]))
    assert [net.__call__.experimental_get_tracing_count() for net in nets] == [1, 1, 1]


def test_new_objects_within_one_test_case_are_still_a_retrace_to_fix(monkeypatch):
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "test_nets.py::test_loop (call)")

    @explain_retracing
    @tf.function
    def predict(model, x):
        return model.dense(x)

    for _ in range(2):
        predict(Net(3), tf.ones([2, 5]))
    (reason,) = predict.retrace_reasons
    assert "not a retrace to fix" not in reason.message
    assert "Reuse one object" in reason.message
    model = Net(3)  # the advice, as written: one trace
    fixed = tf.function(lambda model, x: model.dense(x))
    for _ in range(2):
        fixed(model, tf.ones([2, 5]))
    assert fixed.experimental_get_tracing_count() == 1


PER_CONFIGURATION = """
import keras, numpy as np
for units in (2, 3, 4):  # one model per configuration
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(units)])
    model.predict(np.ones((2, 5)), verbose=0)
    print(model.predict_function.experimental_get_tracing_count())
"""


def test_a_model_per_configuration_says_one_trace_per_object_is_expected(
    tmp_path, preloaded_python
):
    script = tmp_path / "per_configuration.py"
    script.write_text(PER_CONFIGURATION, encoding="utf-8")
    done = preloaded_python.run(["-m", "tf_retracing.explain", str(script)], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (
        "Where each object differs on purpose (one model per configuration), one trace "
        "per object is expected." in done.stderr + done.stdout
    )
    # and that is what TensorFlow does: each model's predict function traced once
    assert done.stdout.split() == ["1", "1", "1"]


# Reduced from open_spiel#1208, which a corpus case already cites (one report per case):
# kept here, beside the tests, rather than in the corpus.
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "explain"
# The corpus cases' own helper (corpus_watch), which the fixture imports as a case does.
CORPUS_CASES = Path(__file__).resolve().parents[1] / "verification" / "explainer_corpus" / "cases"


def test_a_solver_per_test_case_is_reported_as_expected(tmp_path, preloaded_python):
    report = tmp_path / "report.json"
    # Beside the corpus cases' helper, which it imports as a case does.
    case = shutil.copy(FIXTURES / "deep_cfr_solver_per_test_case.py", tmp_path)
    shutil.copy(CORPUS_CASES / "corpus_watch.py", tmp_path)
    done = preloaded_python.run(
        ["-m", "tf_retracing.explain", "--json", str(report), str(case)], tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (function,) = json.loads(report.read_text(encoding="utf-8"))["functions"]
    assert len(function["reasons"]) == 2  # the second and third test case's solvers
    for reason in function["reasons"]:
        assert "That is expected, not a retrace to fix" in reason["message"]
        assert "Create the object once" not in reason["message"]


# --- A closure over a value that changes per step (Trieste) ----------------------------


CANDIDATES = tf.linspace(-2.0, 2.0, 9)[:, None]
OBSERVED = [3.0, 2.0, 1.0, 0.5]


def model_mean(x):
    return tf.reduce_sum(x**2, axis=-1)


def expected_improvement(eta):
    def acquisition(x):
        return tf.maximum(eta - model_mean(x), 0.0)

    return acquisition


def best_so_far(step: int):
    return tf.reduce_min(tf.constant(OBSERVED[: step + 1]))


def test_a_closure_over_a_changing_value_is_advised_an_argument_or_a_variable():
    expected, reasons = [], []
    for step in range(3):  # Trieste before its fix: a tf.function per step
        acquisition = explain_retracing(tf.function(expected_improvement(best_so_far(step))))
        expected.append(acquisition(CANDIDATES).numpy())
        reasons += acquisition.retrace_reasons
    assert len(reasons) == 2
    for reason in reasons:
        assert "It reads `eta` from outside its body, whose value differs" in reason.message
        assert "pass `eta` as an argument (a tensor, e.g. tf.constant(eta)" in reason.message
        assert "hold it in a tf.Variable made once (eta_var = tf.Variable(eta))" in (reason.message)

    frozen = tf.function(expected_improvement(best_so_far(0)))  # "made once as it is"
    assert not np.allclose(frozen(CANDIDATES), expected[2])  # keeps the first value

    @tf.function  # the advice, as written: made once, `eta` an argument, a tensor
    def as_argument(x, eta):
        return tf.maximum(eta - model_mean(x), 0.0)

    for step in range(3):
        eta = best_so_far(step)
        np.testing.assert_allclose(
            as_argument(CANDIDATES, tf.constant(eta)), expected[step], rtol=1e-5, atol=1e-6
        )
    assert as_argument.experimental_get_tracing_count() == 1

    eta_var = tf.Variable(best_so_far(0))  # the other advice: a tf.Variable, assigned
    from_variable = tf.function(expected_improvement(eta_var))
    for step in range(3):
        eta_var.assign(best_so_far(step))
        np.testing.assert_allclose(from_variable(CANDIDATES), expected[step], rtol=1e-5, atol=1e-6)
    assert from_variable.experimental_get_tracing_count() == 1


def test_a_closure_over_the_same_value_keeps_the_make_it_once_advice():
    eta = best_so_far(0)
    for _ in range(2):
        acquisition = explain_retracing(tf.function(expected_improvement(eta)))
        acquisition(CANDIDATES)
    (reason,) = acquisition.retrace_reasons
    assert "closes over" not in reason.message
    assert "Create the tf.function once" in reason.message


# --- The line a number's use is pointed at --------------------------------------------


def scaled(v, factor):
    return v * factor


def step_through_a_helper(x, s):
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(scaled(x, s))
    grad = tape.gradient(loss, x)
    return grad, tf.one_hot(0, s)


def test_a_number_used_in_a_helper_is_pointed_at_the_call_and_the_cast_there_holds():
    step = explain_retracing(tf.function(step_through_a_helper))
    x = tf.ones([3])
    for s in (2, 3):
        step(x, s)
    (reason,) = step.retrace_reasons
    assert "tf.cast(s, tf.float32) where it feeds Mul, line " in reason.message
    assert "(`loss = tf.reduce_sum(scaled(x, s))`)" in reason.message
    assert "tape.gradient" not in reason.message
    assert "pass it as int32" in reason.message

    def fixed_body(x, s):  # the advice, as written: int32 tensor, the cast at that line
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(scaled(x, tf.cast(s, tf.float32)))
        grad = tape.gradient(loss, x)
        return grad, tf.one_hot(0, s)

    fixed = tf.function(fixed_body)
    for s in (2, 3, 4):
        grad, hot = fixed(x, tf.constant(s, dtype=tf.int32))
        want_grad, want_hot = step_through_a_helper(x, s)
        np.testing.assert_allclose(grad, want_grad)
        np.testing.assert_allclose(hot, want_hot)
    assert fixed.experimental_get_tracing_count() == 1


def test_a_gradient_operation_is_named_by_the_operation_it_differentiates():
    @explain_retracing
    @tf.function
    def step(x, k):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(x * k)
        return tape.gradient(loss, x)

    graph = step.get_concrete_function(tf.ones([3]), 3).graph  # traced through the watch
    gradients = [op for op in graph.get_operations() if op.name.startswith("gradient_tape/")]
    multiply = next(op for op in gradients if op.type == "Mul")
    where = number_dtype._where(multiply)
    assert where.startswith("the gradient of Mul, line ")
    assert "(`loss = tf.reduce_sum(x * k)`)" in where
    assert "tape.gradient" not in where


# --- A keyword-only parameter and a tf.Variable argument of a new shape (audit s15) ----


def doubled(*, x):
    return x * 2


def test_a_keyword_only_parameter_is_advised_positional_before_a_signature():
    watched = explain_retracing(tf.function(doubled))
    for size in (2, 3):
        watched(x=tf.ones([size]))
    (advice,) = messages(watched)
    spec = "tf.TensorSpec(shape=[None], dtype=tf.float32)"
    assert f"make `x` a positional parameter and give `x` the spec {spec}" in advice
    with pytest.raises(TypeError, match="keyword-only parameter `x` must have a default"):
        tf.function(doubled, input_signature=[tf.TensorSpec([None])])(x=tf.ones([2]))

    def positional(x):  # the advice, applied: positional, then the spec
        return x * 2

    signed = tf.function(positional, input_signature=[tf.TensorSpec([None], tf.float32)])
    reduced = tf.function(doubled, reduce_retracing=True)  # its other option
    for size in (2, 3, 4, 5):
        assert signed(x=tf.ones([size])).numpy().tolist() == [2.0] * size
        assert reduced(x=tf.ones([size])).numpy().tolist() == [2.0] * size
    assert signed.experimental_get_tracing_count() == 1
    assert reduced.experimental_get_tracing_count() == 2


def mean_of(v):
    return tf.reduce_sum(v) / tf.cast(tf.shape(v)[0], tf.float32)


def test_a_variable_of_a_new_shape_is_advised_a_tensor_spec_not_reduce_retracing():
    watched = explain_retracing(tf.function(mean_of))
    for size in (2, 3):
        watched(tf.Variable(tf.ones([size])))
    (advice,) = messages(watched)
    spec = "tf.TensorSpec(shape=[None], dtype=tf.float32)"
    assert f"give `v` the spec {spec} in input_signature if the function only reads it" in advice
    assert "not reduce_retracing=True" in advice
    signed = tf.function(mean_of, input_signature=[tf.TensorSpec([None], tf.float32)])
    reduced = tf.function(mean_of, reduce_retracing=True)
    sizes = (1, 2, 3, 4)
    assert [float(signed(tf.Variable(tf.ones([n])))) for n in sizes] == [1.0] * 4
    assert signed.experimental_get_tracing_count() == 1
    # why not reduce_retracing: tf.shape(v) is the size of the variable that traced it
    assert [float(reduced(tf.Variable(tf.ones([n])))) for n in sizes] == [1.0, 1.0, 1.5, 2.0]


def test_the_variable_spec_advice_says_to_read_sizes_with_tf_shape():
    def mean_by_static_size(v):
        return tf.reduce_sum(v) / v.shape[0]

    watched = explain_retracing(tf.function(mean_by_static_size))
    for size in (2, 3):
        watched(tf.Variable(tf.ones([size])))
    (advice,) = messages(watched)
    assert "v.shape has None where the sizes vary: read them with tf.shape(v)" in advice
    signed = tf.function(mean_by_static_size, input_signature=[tf.TensorSpec([None])])
    with pytest.raises(ValueError):  # the spec alone: v.shape[0] is None while tracing
        signed(tf.Variable(tf.ones([2])))
    # the advice as a whole: the spec, and the size read with tf.shape(v) (mean_of)
    fixed = tf.function(mean_of, input_signature=[tf.TensorSpec([None], tf.float32)])
    assert [float(fixed(tf.Variable(tf.ones([n]) * n))) for n in (2, 3, 4)] == [2.0, 3.0, 4.0]
    assert fixed.experimental_get_tracing_count() == 1


def test_an_int_then_a_float_is_advised_the_float_dtype_which_keeps_the_results():
    @explain_retracing
    @tf.function
    def double(x):
        return x * 2

    double(tf.constant([1, 2]))
    double(tf.constant([1.5, 2.5]))
    (advice,) = messages(double)
    assert "e.g. tf.cast(x, tf.float32)" in advice and "tf.int32)" not in advice

    @tf.function
    def fixed(x):
        return x * 2

    results = [fixed(tf.cast(x, tf.float32)).numpy().tolist() for x in ([1, 2], [1.5, 2.5])]
    assert results == [[2.0, 4.0], [3.0, 5.0]]  # as written; a cast to int32 gives [2, 4]
    assert fixed.experimental_get_tracing_count() == 1


def test_two_exact_batch_sizes_of_iterators_are_advised_one_batch_size():
    def draw(iterator):
        return next(iterator)

    watched = explain_retracing(tf.function(draw))
    for batch in (4, 5):
        watched(iter(tf.data.Dataset.range(20).batch(batch, drop_remainder=True)))
    (advice,) = messages(watched)
    assert "batched with different sizes" in advice and "drop_remainder" not in advice
    fixed = tf.function(draw)  # one batch size for both, as the advice says
    for _ in range(2):
        fixed(iter(tf.data.Dataset.range(20).batch(4, drop_remainder=True)))
    assert fixed.experimental_get_tracing_count() == 1


GLOBAL_LOOP = """\
import tensorflow as tf

results = []
for rate in (1.0, 0.5, 0.25):
    step = tf.function(lambda x: x * rate)
    results.append(float(step(tf.constant(1.0))))
print(results)
"""


def test_a_function_made_per_step_reading_a_global_is_advised_an_argument(
    tmp_path, preloaded_python
):
    """A lambda made in a script's loop reads the loop's variable as a module global: made
    once as the plain advice says, it returns the first value every time (audit s15)."""
    script = tmp_path / "rates.py"
    script.write_text(GLOBAL_LOOP, encoding="utf-8")
    done = preloaded_python.run(["-m", "tf_retracing.explain", str(script)], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "[1.0, 0.5, 0.25]" in done.stdout
    assert "It reads `rate` from outside its body" in done.stderr
    once = GLOBAL_LOOP.replace(
        "for rate in (1.0, 0.5, 0.25):\n    step = tf.function(lambda x: x * rate)\n",
        "step = tf.function(lambda x, rate: x * rate)\nfor rate in (1.0, 0.5, 0.25):\n",
    ).replace("step(tf.constant(1.0))", "step(tf.constant(1.0), tf.constant(rate))")
    script.write_text(once, encoding="utf-8")  # the advice, applied: one function, an argument
    done = preloaded_python.run([str(script)], tmp_path)
    assert "[1.0, 0.5, 0.25]" in done.stdout
