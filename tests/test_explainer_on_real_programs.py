"""The explainer on the shapes of program users report: watching must not change the
program (a tf.Module saves and loads as unwatched), and every kind of advice it prints is
applied here literally, as a reader would paste it, to check that the retrace is gone and
that the fixed program still runs."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest
import tensorflow as tf
from tf_retracing import explain_retracing, guard_retracing, report, watch_every_tf_function

CONSTANT = re.compile(r"tf\.constant\([^()]*\)")
TENSOR_SPEC = re.compile(r"tf\.TensorSpec\(shape=\[[^\]]*\], dtype=tf\.\w+\)")


def advice(pattern: re.Pattern, message: str) -> str:
    found = pattern.findall(message)
    assert found, f"no {pattern.pattern} in: {message}"
    return found[0]


# --- watching does not change the program ---------------------------------------------


class Scaler(tf.Module):
    def __init__(self):
        self.factor = tf.Variable(3.0)

    @tf.function
    def scale(self, x):
        return x * self.factor


def run_and_save(module: Scaler, folder) -> list:
    outputs = [module.scale(tf.ones([2])).numpy().tolist()]
    outputs.append(module.scale(tf.ones([3])).numpy().tolist())
    tf.saved_model.save(module, str(folder))
    loaded = tf.saved_model.load(str(folder))
    outputs.append(loaded.scale(tf.ones([2])).numpy().tolist())
    outputs.append(loaded.scale(tf.ones([3])).numpy().tolist())
    return outputs


def test_a_watched_module_method_saves_loads_and_counts_as_the_unwatched_one(tmp_path):
    plain, watched_module = Scaler(), Scaler()
    watched = explain_retracing(watched_module.scale)
    assert watched is watched_module.scale  # the module's own function, not a copy
    assert run_and_save(watched_module, tmp_path / "w") == run_and_save(plain, tmp_path / "p")
    count = watched_module.scale.experimental_get_tracing_count()
    assert count == plain.scale.experimental_get_tracing_count()
    assert watched.retrace_reasons[0].kind == "shape"
    spec = tf.TensorSpec([2])
    assert watched_module.scale.get_concrete_function(spec).structured_outputs.shape == [2]
    assert watched_module.scale.experimental_get_tracing_count() == count  # reused, as plain
    assert watched_module.scale.__wrapped__.__name__ == plain.scale.__wrapped__.__name__
    checkpoint = tf.train.Checkpoint(module=watched_module)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    watched_module.factor.assign(0.0)
    checkpoint.restore(path)
    assert watched_module.scale(tf.ones([2])).numpy().tolist() == [3.0, 3.0]


def test_a_function_that_traced_already_is_copied_and_the_copy_is_said(tmp_path):
    module = Scaler()
    module.scale(tf.ones([2]))
    with pytest.warns(UserWarning, match="cannot be watched in place; the function returned"):
        copy = explain_retracing(module.scale)
    assert copy is not module.scale


def negate(x):
    return -x


def pickled(function) -> str:
    import pickle

    try:
        again = pickle.loads(pickle.dumps(function))
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return str(again(tf.constant([1.0])).numpy().tolist())


def test_a_watched_function_pickles_where_tensorflow_allows_and_fails_where_it_does_not():
    plain, watched = tf.function(negate), explain_retracing(tf.function(negate))
    assert pickled(watched) == pickled(plain) == "[-1.0]"  # before a trace: it pickles
    plain(tf.constant([1.0]))
    watched(tf.constant([1.0]))
    assert pickled(watched) == pickled(plain) == "TypeError: cannot pickle 'FuncGraph' object"


# --- save-time traces -----------------------------------------------------------------


def test_save_time_traces_are_reported_as_such_and_never_trip_a_guard(tmp_path):
    module = Scaler()
    watched = explain_retracing(module.scale)
    module.scale(tf.ones([2]))
    module.scale(tf.ones([3]))
    with guard_retracing(watched, action="raise"):  # saving must not raise
        tf.saved_model.save(module, str(tmp_path / "m"))
    # (A test before this one may have watched Scaler.scale: a new-tf-function reason.)
    assert [r.kind for r in watched.retrace_reasons if r.trace == 2] == ["shape"]
    saving = [r for r in watched.retrace_reasons if r.subkind == "saving"]
    assert [r.trace for r in saving] == [3, 4]  # one per concrete function
    for reason in saving:
        assert (reason.kind, reason.subkind) == ("context", "saving")
        assert "traced by tf.saved_model.save for one of its concrete functions" in reason.message
    assert "(3,)" in saving[1].message  # the second concrete function, not a "shape change"


class Tripler(tf.Module):
    @tf.function
    def triple(self, x):
        return x * 3


def test_the_saving_text_says_what_saving_twice_traces(tmp_path):
    """TFR012's message and table row, checked against tf.saved_model.save itself: every
    concrete function traces once more, exported as a signature or not; a second save with
    the same options traces none again, only a concrete function not saved before."""
    from tf_retracing import CAUSES

    module = Tripler()
    watched = explain_retracing(module.triple)
    for x in (tf.ones([1]), tf.ones([2]), tf.ones([3], tf.int32)):
        module.triple(x)
    signature = module.triple.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert module.triple.experimental_get_tracing_count() == 4
    tf.saved_model.save(module, str(tmp_path / "a"), signatures={"serving_default": signature})
    assert list(tf.saved_model.load(str(tmp_path / "a")).signatures) == ["serving_default"]
    saving = [r for r in watched.retrace_reasons if r.subkind == "saving"]
    # Four concrete functions, one exported as a signature: four save-time traces.
    assert module.triple.experimental_get_tracing_count() == 8
    assert [r.cause for r in saving] == ["TFR012"] * 4
    tf.saved_model.save(module, str(tmp_path / "b"), signatures={"serving_default": signature})
    assert module.triple.experimental_get_tracing_count() == 8  # the second save: none
    module.triple(tf.ones([1]))  # "later calls keep using their own traces"
    assert module.triple.experimental_get_tracing_count() == 8
    module.triple(tf.ones([2, 2]))  # a new concrete function, then a third save: one more
    tf.saved_model.save(module, str(tmp_path / "c"))
    assert module.triple.experimental_get_tracing_count() == 10
    message = saving[0].message
    assert "exported as a signature or not" in message
    assert "a later save with the same options traces only the concrete" in message
    assert "each time the model is saved" not in message
    (row,) = [cause for cause in CAUSES if cause.code == "TFR012"]
    assert row.fix == (
        "expected: one per concrete function, exported or not, at its first save "
        "under each variable policy"
    )


def test_the_device_text_says_a_device_function_retraces_and_a_device_string_does_not():
    """TFR013 outside a strategy: a tf.device scope does not retrace, in eager code or in a
    TF1-style graph; a device function given to tf.Graph.device does, and the advice (a
    device string instead) applied literally ends it."""

    def watched_double():
        @explain_retracing
        def double(x):
            return x * 2

        return double

    eager = watched_double()
    eager(tf.ones([2]))
    with tf.device("/cpu:0"):
        eager(tf.ones([2]))
    assert eager.experimental_get_tracing_count() == 1

    def in_a_graph(*scopes):
        double = watched_double()
        graph = tf.Graph()
        with graph.as_default():
            x = tf.constant([1.0, 2.0])
            double(x)
            for scope in scopes:
                with graph.device(scope):
                    double(x)
        return double

    with_function = in_a_graph(lambda op: "/cpu:0")
    assert with_function.experimental_get_tracing_count() == 2
    (reason,) = [r for r in with_function.retrace_reasons if r.subkind == "device"]
    assert reason.cause == "TFR013"
    assert "A tf.device scope outside a strategy never retraces" in reason.message
    assert "give tf.Graph.device a device string instead of a function" in reason.message
    assert "call it under one tf.device" not in reason.message
    fixed = in_a_graph("/cpu:0", "/cpu:1")  # the advice, applied: device strings
    assert fixed.experimental_get_tracing_count() == 1


# --- every kind of advice, applied literally --------------------------------------------


def test_the_summary_step_advice_names_int64_and_the_fixed_loop_runs(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))

    def body(x, step):
        with writer.as_default():
            tf.summary.write("loss", tf.reduce_sum(x), step=step)
        return x * 2

    broken = explain_retracing(tf.function(body))
    for step in range(3):
        broken(tf.ones([2]), step)
    fix = advice(CONSTANT, broken.retrace_reasons[0].message)
    assert fix == "tf.constant(1, dtype=tf.int64)"
    fixed = tf.function(body)
    for step in range(5):  # the advice, pasted with the loop's value in place of 1
        fixed(tf.ones([2]), eval(fix.replace("(1,", "(step,"), {"tf": tf, "step": step}))
    assert fixed.experimental_get_tracing_count() == 1


def test_a_number_multiplied_into_a_float_tensor_gets_float32():
    def body(x, factor):
        return x * factor

    broken = explain_retracing(tf.function(body))
    for factor in (1, 2):
        broken(tf.ones([2]), factor)
    fix = advice(CONSTANT, broken.retrace_reasons[0].message)
    assert fix == "tf.constant(2, dtype=tf.float32)"  # tf.constant(2) alone would not run
    fixed = tf.function(body)
    for factor in (1, 2, 3):
        fixed(tf.ones([2]), eval(fix.replace("(2,", "(factor,"), {"tf": tf, "factor": factor}))
    assert fixed.experimental_get_tracing_count() == 1


def test_a_number_the_graph_does_not_show_gets_the_default_and_says_which():
    def body(n):
        return tf.range(n) if n > 0 else tf.range(1)  # a Python branch on n

    broken = explain_retracing(tf.function(body, autograph=False))
    for n in (2, 3):
        broken(n)
    message = broken.retrace_reasons[0].message
    fix = advice(CONSTANT, message)
    assert fix.startswith("tf.constant(3")


def test_the_shape_spec_advice_given_as_input_signature_ends_the_retraces():
    def body(x):
        return tf.reduce_sum(x)

    broken = explain_retracing(tf.function(body))
    for size in (2, 3):
        broken(tf.ones([size, 4]))
    spec = eval(advice(TENSOR_SPEC, broken.retrace_reasons[0].message), {"tf": tf})
    fixed = tf.function(body, input_signature=[spec])
    for size in (2, 3, 7):
        fixed(tf.ones([size, 4]))
    assert fixed.experimental_get_tracing_count() == 1


class Projector(tf.Module):
    def __init__(self, signature=None):
        self.w = tf.Variable(tf.ones([3, 2]))
        self.project = tf.function(self._project, input_signature=signature)

    def _project(self, x):
        return x @ self.w


def export(module: Projector, folder, spec) -> str:
    """Save ``module`` with ``spec`` as its serving signature, as a user's export does."""
    tf.saved_model.save(module, str(folder), signatures=module.project.get_concrete_function(spec))
    return str(folder)


def test_a_loaded_function_is_told_to_fix_it_at_export_and_both_fixes_end_the_retraces(
    tmp_path,
):
    batch_free = tf.TensorSpec([None, 3], tf.float32)
    with watch_every_tf_function():
        loaded = tf.saved_model.load(export(Projector(), tmp_path / "plain", batch_free))
        for batch in (1, 2):
            loaded.project(tf.ones([batch, 3]))
    (reason,) = loaded.project.retrace_reasons
    assert (reason.argument, reason.kind) == ("x", "shape")
    # The saved graph already accepts any batch: the fix is the export's input_signature.
    assert "saved graph already accepts that shape" in reason.message
    assert "in its input_signature before tf.saved_model.save" in reason.message
    # At export, literally: the spec the advice names as the tf.function's input_signature.
    spec = eval(advice(TENSOR_SPEC, reason.message), {"tf": tf})
    fixed = tf.saved_model.load(export(Projector([spec]), tmp_path / "fixed", batch_free))
    for batch in (1, 2, 5):
        assert fixed.project(tf.ones([batch, 3])).shape == (batch, 2)
    assert fixed.project.experimental_get_tracing_count() == 1
    # At load time: the SavedModel's own signature, a concrete function that never traces.
    serving = tf.saved_model.load(str(tmp_path / "plain")).signatures["serving_default"]
    for batch in (1, 2, 5):
        (output,) = serving(x=tf.ones([batch, 3])).values()
        assert output.shape == (batch, 2)


def test_the_reduce_retracing_advice_ends_the_retraces_after_one_more():
    def body(x):
        return tf.reduce_sum(x)

    broken = explain_retracing(tf.function(body))
    broken(tf.ones([2]))
    broken(tf.ones([3]))
    assert "reduce_retracing=True" in broken.retrace_reasons[0].message
    fixed = tf.function(body, reduce_retracing=True)
    for size in range(2, 10):
        fixed(tf.ones([size]))
    assert fixed.experimental_get_tracing_count() == 2


def test_the_summary_gives_one_spec_for_every_dimension_that_varied():
    def body(x):
        return tf.reduce_sum(x)

    with watch_every_tf_function() as watches:
        broken = tf.function(body)
        for shape in ([1, 4], [2, 4], [2, 5], [3, 6]):
            broken(tf.ones(shape))
        broken(tf.ones([2, 4], tf.float64))  # a dtype change has a line of its own
    text = report(watches)
    (shape_line,) = [
        line for line in text.splitlines() if "for argument `x`: a tensor's shape" in line
    ]
    assert (
        shape_line.startswith("  3 retraces for argument `x`: a tensor's shape changed. ")
        and "(traces 2-4)" in shape_line
    )
    assert "dimensions 0 and 1 varied" in shape_line
    # Each retrace's own message relaxes one dimension; the summary's spec covers all.
    spec = eval(advice(TENSOR_SPEC, shape_line), {"tf": tf})
    assert spec.shape.as_list() == [None, None]
    fixed = tf.function(body, input_signature=[spec])
    for shape in ([1, 4], [2, 4], [2, 5], [3, 6], [7, 1]):
        fixed(tf.ones(shape))
    assert fixed.experimental_get_tracing_count() == 1
    assert any(
        " retrace for argument `x`: a tensor's dtype changed. " in line
        for line in text.splitlines()
    )


class Config:
    def __init__(self, factor: float):
        self.factor = factor


def test_the_object_advice_reuse_one_or_pass_its_values_as_tensors():
    def body(x, config):
        return x * config.factor

    broken = explain_retracing(tf.function(body))
    broken(tf.ones([2]), Config(2.0))
    broken(tf.ones([2]), Config(2.0))  # the first one is collected: maybe at its address
    message = broken.retrace_reasons[0].message
    assert "Reuse one object, or pass the values it carries as tensors" in message
    reused, config = tf.function(body), Config(2.0)
    for _ in range(3):
        reused(tf.ones([2]), config)
    assert reused.experimental_get_tracing_count() == 1

    def body_of_values(x, factor):
        return x * factor

    as_tensors = tf.function(body_of_values)
    for factor in (2.0, 3.0, 4.0):
        as_tensors(tf.ones([2]), tf.constant(Config(factor).factor))
    assert as_tensors.experimental_get_tracing_count() == 1


def test_an_object_collected_and_replaced_at_its_address_is_said_to_be_new():
    broken = explain_retracing(tf.function(lambda x, config: x * config.factor))
    broken(tf.ones([2]), Config(2.0))
    broken(tf.ones([2]), Config(2.0))
    reason = broken.retrace_reasons[0]
    assert reason.before != reason.after  # never "a different object (X, not X)"


def test_the_structure_advice_stack_and_a_none_dimension_ends_the_retraces():
    def body(xs):
        return tf.reduce_sum(xs, axis=0)

    broken = explain_retracing(tf.function(body))
    broken([tf.ones([2])] * 2)
    broken([tf.ones([2])] * 3)
    message = broken.retrace_reasons[0].message
    assert broken.retrace_reasons[0].kind == "structure"
    assert "stack the items (tf.stack) and give that dimension None" in message
    spec = tf.TensorSpec(shape=[None, 2], dtype=tf.float32)
    fixed = tf.function(body, input_signature=[spec])
    for length in (2, 3, 5):
        fixed(tf.stack([tf.ones([2])] * length))
    assert fixed.experimental_get_tracing_count() == 1


def test_the_kind_of_value_advice_always_a_tensor_ends_the_retraces():
    def body(x):
        return x * 2

    variable = tf.Variable(tf.ones([2]))
    broken = explain_retracing(tf.function(body))
    broken(variable)
    broken(tf.ones([2]))
    message = broken.retrace_reasons[0].message
    assert "always a tensor (tf.convert_to_tensor of it)" in message
    fixed = tf.function(body)
    fixed(tf.convert_to_tensor(variable))
    fixed(tf.ones([2]))
    assert fixed.experimental_get_tracing_count() == 1


def test_the_new_argument_advice_pass_the_same_arguments_ends_the_retraces():
    def body(x, *more):
        return x + sum(more)

    broken = explain_retracing(tf.function(body))
    broken(tf.ones([2]))
    broken(tf.ones([2]), tf.ones([2]))
    reason = broken.retrace_reasons[0]
    assert (reason.kind, reason.argument) == ("new-argument", "more[0]")
    assert "Pass the same arguments on every call" in reason.message
    fixed = tf.function(body)
    fixed(tf.ones([2]), tf.zeros([2]))  # a fixed value where nothing was passed
    fixed(tf.ones([2]), tf.ones([2]))
    assert fixed.experimental_get_tracing_count() == 1


def test_a_shape_inside_an_iterator_is_a_shape_change_at_its_path():
    @explain_retracing
    def first(iterator):
        return iterator.get_next()

    first(iter(tf.data.Dataset.from_tensor_slices(tf.zeros([8, 3])).batch(4)))
    first(iter(tf.data.Dataset.from_tensor_slices(tf.zeros([8, 5])).batch(4)))
    (reason,) = first.retrace_reasons
    assert (reason.argument, reason.kind) == ("iterator.element_spec", "shape")
    assert "tf.TensorSpec" not in reason.message  # no spec can be given to part of it


DISTRIBUTED = textwrap.dedent(
    """
    import sys
    import tensorflow as tf
    (cpu,) = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    from tf_retracing import explain_retracing
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        weight = tf.Variable(1.0)

    def run(drop_remainder):
        @explain_retracing
        def step(dist_inputs):
            return strategy.run(lambda x: tf.reduce_sum(x) * weight, args=(dist_inputs,))
        data = tf.data.Dataset.from_tensor_slices(tf.zeros([10, 3]))
        for batch in strategy.experimental_distribute_dataset(
            data.batch(4, drop_remainder=drop_remainder)
        ):
            step(batch)
        return step

    broken = run(drop_remainder=False)
    (reason,) = broken.retrace_reasons
    print(reason.argument, reason.kind, "drop_remainder=True" in reason.message)
    fixed = run(drop_remainder=True)  # the advice, applied
    print(fixed.experimental_get_tracing_count())

    @explain_retracing
    def per_replica(x):  # called by each replica, under its own device
        return tf.reduce_sum(x) * 2

    @tf.function
    def replicated_step(batch):
        return strategy.run(lambda x: per_replica(x * weight), args=(batch,))

    data = tf.data.Dataset.from_tensor_slices(tf.zeros([4, 3])).batch(4)
    for batch in strategy.experimental_distribute_dataset(data):
        replicated_step(batch)
        replicated_step(batch)  # a second step: no trace (once per replica, not per step)
    (reason,) = per_replica.retrace_reasons
    print(reason.subkind, sorted([reason.before, reason.after]), "object at 0x" in reason.message)
    print("once per replica: expected, and nothing to fix" in reason.message)

    # TFR013's other statements: a tf.device scope outside a strategy does not retrace,
    # one inside the scope of a strategy that traces per device does.
    @explain_retracing
    def scoped(x):
        return x * 2

    for device in ("/cpu:0", "/cpu:1"):
        with tf.device(device):
            scoped(tf.ones([2]))
    outside = scoped.experimental_get_tracing_count()
    with strategy.scope():
        for device in ("/cpu:0", "/cpu:1"):
            with tf.device(device):
                scoped(tf.ones([2]))
    inside = [r.subkind for r in scoped.retrace_reasons]
    print("outside", outside, "inside", inside, per_replica.experimental_get_tracing_count())
    """
)


@pytest.mark.slow
def test_distributed_partial_batch_and_its_fix_and_a_trace_per_replica(tmp_path):
    script = tmp_path / "distributed.py"
    script.write_text(DISTRIBUTED)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-5:] == [
        "dist_inputs[0] shape True",
        "1",
        "device ['CPU:0', 'CPU:1'] False",  # devices by name, not MergeDevice reprs
        "True",
        # Entering the scope changes the cross-replica context too ("other"); then a
        # device scope alone: TFR013.
        "outside 1 inside ['other', 'device'] 2",
    ]


def test_a_method_watched_on_each_new_instance_is_a_new_self_not_a_new_function():
    class Block(tf.Module):
        @tf.function
        def normalize(self):
            return tf.constant(1.0)

    blocks = []
    for _ in range(2):  # layers made in a loop, each kept by the model
        blocks.append(Block())
        watched = explain_retracing(blocks[-1].normalize)
        watched()
    (reason,) = watched.retrace_reasons
    assert (reason.argument, reason.kind, reason.cause) == ("self", "object", "TFR005")
    assert "one trace per instance is expected" in reason.message


def test_whole_program_mode_names_what_tensorflow_warned_about_but_it_did_not_watch():
    made_before = tf.function  # bound before the block: what it makes is not watched

    def double(x):
        return x * 2

    with watch_every_tf_function() as watches:
        watched = tf.function(lambda x: x + 1)
        for size in range(1, 7):
            made_before(double)(tf.ones([1]))  # a new tf.function per call
            watched(tf.ones([size]))  # watched: explained, never listed as unwatched
    (unwatched,) = watches.unwatched.values()
    assert unwatched.function.endswith("double") and unwatched.warnings >= 1
    assert unwatched.called_from.startswith("test_explainer_on_real_programs.py:")
    text = report(watches)
    assert "TensorFlow warned about functions the explainer did not watch:" in text
    assert "calls to <function" in text and "triggered tf.function retracing." in text
    assert text.count("did not watch it") == 1  # the watched lambda is explained instead
