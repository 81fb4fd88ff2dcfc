"""The explainer's comparison on hand-built trace descriptions, without TensorFlow.

The comparison (``tf_retracing.comparison``) and the descriptions it reads
(``tf_retracing.trace_description``) must not need TensorFlow: only ``_internals`` knows
TensorFlow's trace types. The package's ``__init__`` imports TensorFlow, so this module
loads the two files (and ``explainer_types``) as a package of their own, and the last
test checks in a fresh interpreter that running this whole module imports no TensorFlow.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

NEUTRAL = "_tf_retracing_without_tensorflow"


def _load(module: str):
    """``tf_retracing.<module>`` loaded from the package's folder, its __init__ not run."""
    if NEUTRAL not in sys.modules:
        source = importlib.util.find_spec("tf_retracing").submodule_search_locations
        package = types.ModuleType(NEUTRAL)
        package.__path__ = list(source)
        sys.modules[NEUTRAL] = package
    return importlib.import_module(f"{NEUTRAL}.{module}")


td = _load("trace_description")
cmp = _load("comparison")
KINDS = _load("explainer_types").KINDS


def tensor(shape, dtype="float32", kind=td.DENSE, **fields):
    return td.TensorLeaf(kind=kind, dtype=dtype, shape=shape, **fields)


def trace(context=None, **arguments):
    """A trace whose call and traced types are the same (no reduce_retracing)."""
    return td.TraceDescription(dict(arguments), dict(arguments), context or EAGER)


EAGER = td.CallContext(td.NO_VARIABLE_CREATION)


def explain(*traces):
    """The reason for the last of ``traces``, compared with all the ones before it."""
    *history, new = traces
    reason = cmp.explain("f", len(traces), history, new)
    assert reason.kind in KINDS
    return reason


def summary(reason):
    return reason.argument, reason.kind, reason.subkind, reason.before, reason.after


def test_a_dimension_change_names_the_dimension_and_the_spec():
    reason = explain(trace(x=tensor((8, 4))), trace(x=tensor((5, 4))))
    assert summary(reason) == ("x", "shape", "dimension", "(8, 4)", "(5, 4)")
    assert reason.message.startswith("`f` traced again (trace 2): argument `x` changed shape")
    assert "dimension 0: 8 -> 5" in reason.message
    assert "tf.TensorSpec(shape=[None, 4], dtype=tf.float32)" in reason.message


def test_a_rank_change_offers_any_rank_and_reduce_retracing():
    reason = explain(trace(x=tensor((2, 2))), trace(x=tensor((2, 2, 2))))
    assert summary(reason)[:3] == ("x", "shape", "rank")
    assert "rank changed from 2 to 3" in reason.message
    assert "tf.TensorSpec(shape=None, dtype=tf.float32)" in reason.message
    assert "reduce_retracing=True" in reason.message


def test_a_trace_generalised_by_reduce_retracing_says_so():
    new = td.TraceDescription({"x": tensor((3,))}, {"x": tensor((None,))}, EAGER)
    reason = explain(trace(x=tensor((2,))), new)
    assert "reduce_retracing made this trace general ((None,))" in reason.message


def test_ragged_and_sparse_values_get_their_own_spec():
    ragged = explain(
        trace(x=tensor((2, None), kind=td.RAGGED, ragged_rank=1)),
        trace(x=tensor((3, None), kind=td.RAGGED, ragged_rank=1)),
    )
    assert "tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32, ragged_rank=1)" in (
        ragged.message
    )
    sparse = explain(
        trace(x=tensor((2, 4), kind=td.SPARSE)), trace(x=tensor((3, 4), kind=td.SPARSE))
    )
    assert "tf.SparseTensorSpec(shape=[None, 4], dtype=tf.float32)" in sparse.message
    assert sparse.before == "(2, 4)"


def test_a_trace_for_a_none_dimension_or_any_rank_accepts_the_call():
    assert cmp.accepts(tensor((None, 4)), tensor((7, 4)))
    assert cmp.accepts(tensor(None), tensor((1, 2, 3)))
    assert not cmp.accepts(tensor((None, 4)), tensor((7, 5)))
    assert not cmp.accepts(tensor((2,)), tensor(None))


def test_spec_names_are_not_part_of_the_comparison():
    # tf.saved_model.save traces with specs named after the arguments: same shape, same
    # trace, so the shape must not be reported as "(2, 5) to (2, 5)".
    saving = td.CallContext(td.NO_VARIABLE_CREATION, saving=True)
    reason = explain(trace(x=tensor((2, 5))), trace(saving, x=tensor((2, 5), name="x")))
    assert summary(reason) == (
        None,
        "context",
        "saving",
        "in a normal call",
        "while saving (tf.saved_model.save)",
    )
    assert "a later save with the same options traces only the concrete" in reason.message
    assert reason.others == ()


def test_specs_named_apart_by_the_caller_are_named_when_nothing_else_differs():
    reason = explain(trace(x=tensor((2,), name="a")), trace(x=tensor((2,), name="b")))
    assert summary(reason) == ("x", "structure", "spec-name", "'a'", "'b'")
    assert "TensorFlow keeps a trace per spec name" in reason.message


def test_dtype_change_and_its_cast():
    reason = explain(trace(image=tensor((2,))), trace(image=tensor((2,), "float64")))
    assert summary(reason) == ("image", "dtype", "dtype", "float32", "float64")
    assert "tf.cast(image, tf.float32)" in reason.message


def test_python_values_and_switches_to_and_from_tensors():
    value = explain(trace(lr=td.PythonValue(0.1)), trace(lr=td.PythonValue(0.05)))
    assert summary(value) == ("lr", "python-value", "value", "0.1", "0.05")
    assert "is a Python float whose value changed" in value.message
    became = explain(trace(n=tensor((), "int32")), trace(n=td.PythonValue(4)))
    assert summary(became) == (
        "n",
        "python-value",
        "became-python",
        "an int32 tensor of shape ()",
        "4",
    )
    was = explain(trace(n=td.PythonValue(4)), trace(n=tensor((), "int32")))
    assert summary(was)[:3] == ("n", "python-value", "was-python")
    assert " a int32" not in became.message + was.message


def test_python_values_match_as_tensorflow_matches_them():
    assert cmp.accepts(td.PythonValue(float("nan")), td.PythonValue(float("nan")))
    assert cmp.accepts(td.PythonValue(1), td.PythonValue(1.0))  # 1 == 1.0, as in Python
    assert not cmp.accepts(td.PythonValue("a"), td.PythonValue("b"))


class Config:
    pass


def object_ref(target):
    import weakref

    return td.ObjectRef(f"Config object at {id(target):#x}", weakref.ref(target))


def test_objects_are_matched_by_identity_and_a_collected_one_never_matches():
    first, second = Config(), Config()
    assert cmp.accepts(object_ref(first), object_ref(first))
    reason = explain(trace(config=object_ref(first)), trace(config=object_ref(second)))
    assert summary(reason)[:3] == ("config", "object", "object")
    assert reason.before == f"Config object at {id(first):#x}"
    gone = object_ref(Config())
    gc.collect()
    assert not cmp.accepts(gone, gone)


def test_self_is_a_new_instance():
    first, second = Config(), Config()
    reason = explain(trace(self=object_ref(first)), trace(self=object_ref(second)))
    assert summary(reason)[:3] == ("self", "object", "self")
    assert "every new instance traces again" in reason.message


def items(*children):
    return tuple((f"[{i}]", child) for i, child in enumerate(children))


def test_containers_length_type_keys_and_nested_paths():
    x = tensor((3,))
    length = explain(
        trace(xs=td.Structure("list", "list", items(x, x))),
        trace(xs=td.Structure("list", "list", items(x, x, x))),
    )
    assert summary(length) == ("xs", "structure", "container", "a list of 2", "a list of 3")
    nested = explain(
        trace(batch=td.Structure("dict", "dict", (("['ids']", tensor((4, 16))),))),
        trace(batch=td.Structure("dict", "dict", (("['ids']", tensor((4, 20))),))),
    )
    assert summary(nested)[:2] == ("batch['ids']", "shape")
    assert "tf.TensorSpec(shape=[4, None], dtype=tf.float32)" in nested.message
    keys = explain(
        trace(batch=td.Structure("dict", "dict", (("['ids']", x),))),
        trace(batch=td.Structure("dict", "dict", (("['ids']", x), ("['mask']", x)))),
    )
    assert (keys.before, keys.after) == ("a dict with keys 'ids'", "a dict with keys 'ids', 'mask'")


def test_dict_key_order_is_not_a_difference():
    x = tensor((3,))
    ab = td.Structure("dict", "dict", (("['a']", x), ("['b']", x)))
    ba = td.Structure("dict", "dict", (("['b']", x), ("['a']", x)))
    assert cmp.accepts(ab, ba)


def test_namedtuples_of_another_class_with_the_same_fields_differ():
    fields = ((".start", td.PythonValue(0)), (".stop", td.PythonValue(5)))
    reason = explain(
        trace(w=td.Structure("namedtuple", "Window", fields)),
        trace(w=td.Structure("namedtuple", "Span", fields)),
    )
    assert summary(reason) == (
        "w",
        "structure",
        "container",
        "a Window(start, stop)",
        "a Span(start, stop)",
    )


def test_a_tensor_that_became_a_variable_or_another_value():
    reason = explain(trace(x=tensor((1,))), trace(x=tensor((1,), kind=td.VARIABLE)))
    assert summary(reason) == (
        "x",
        "structure",
        "kind-of-value",
        "a float32 tensor of shape (1,)",
        "a float32 Variable of shape (1,)",
    )
    other = explain(
        trace(ds=td.OtherLeaf("DatasetSpec", "DatasetSpec(int64)", "int64")),
        trace(ds=td.OtherLeaf("DatasetSpec", "DatasetSpec(float32)", "float32")),
    )
    assert summary(other)[:4] == ("ds", "structure", "kind-of-value", "DatasetSpec(int64)")


def test_a_ragged_rank_change_is_not_called_a_shape_change():
    reason = explain(
        trace(x=tensor((2, None, None), kind=td.RAGGED, ragged_rank=1)),
        trace(x=tensor((2, None, None), kind=td.RAGGED, ragged_rank=2)),
    )
    assert reason.kind == "structure" and "ragged_rank=1" in reason.before
    assert "ragged_rank=2" in reason.after


def test_arguments_passed_or_left_out():
    passed = explain(trace(x=tensor((2,))), trace(x=tensor((2,)), training=td.PythonValue(True)))
    assert summary(passed) == ("training", "new-argument", "passed", "not passed", "True")
    dropped = explain(trace(x=tensor((2,)), verbose=td.PythonValue(True)), trace(x=tensor((2,))))
    assert summary(dropped) == ("verbose", "new-argument", "not-passed", "True", "not passed")


def test_calling_contexts():
    creating = td.CallContext(td.VARIABLE_CREATION)
    reason = explain(trace(creating), trace())
    assert summary(reason) == (
        None,
        "context",
        "variable-creation",
        "its first call (creating variables)",
        "a later call (no new variables)",
    )
    graph = explain(trace(), trace(td.CallContext(td.NO_VARIABLE_CREATION, graph=object())))
    assert (graph.subkind, graph.before, graph.after) == (
        "graph",
        "eagerly (or from a tf.function)",
        "in a tf.Graph (graph mode)",
    )
    xla = explain(
        trace(td.CallContext(td.NO_VARIABLE_CREATION, fields=(("xla_context_id", 0),))),
        trace(td.CallContext(td.NO_VARIABLE_CREATION, fields=(("xla_context_id", 3),))),
    )
    assert (xla.subkind, xla.before, xla.after) == ("other", "xla_context_id=0", "xla_context_id=3")


def test_the_closest_earlier_trace_is_compared_and_others_are_listed():
    one, three = td.PythonValue(1), td.PythonValue(3)
    reason = explain(
        trace(x=tensor((2,)), factor=one),
        trace(x=tensor((3,)), factor=td.PythonValue(2)),
        trace(x=tensor((2,)), factor=three),
    )
    assert summary(reason) == ("factor", "python-value", "value", "1", "3")
    assert reason.others == ()
    two_changes = explain(trace(x=tensor((2,)), factor=one), trace(x=tensor((3,)), factor=three))
    assert two_changes.others == ("`factor` python-value 1 -> 3",)
    assert "Also different from that trace: `factor`" in two_changes.message


@pytest.mark.parametrize("history", [[], [trace(x=tensor((2,)))]], ids=["no-history", "same"])
def test_no_visible_difference_is_an_unknown_cause_not_an_error(history):
    reason = cmp.explain("f", 2, history, trace(x=tensor((2,))))
    assert (reason.kind, reason.argument, reason.subkind) == ("unknown", None, "no-visible-change")
    assert "cause is unknown" in reason.message


def test_a_failing_equality_is_a_difference_not_a_crash():
    class Unequal:
        def __eq__(self, other):
            raise ValueError("no comparison")

    a = td.OtherLeaf("Custom", "Custom(a)", Unequal())
    b = td.OtherLeaf("Custom", "Custom(b)", Unequal())
    assert explain(trace(c=a), trace(c=b)).kind == "structure"


TENSORFLOW_FREE_RUN = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("neutral_tests", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
ran = 0
for name, test in vars(module).items():
    if name.startswith("test_") and name != "test_this_module_imports_no_tensorflow":
        marks = getattr(test, "pytestmark", [])
        cases = [m.args[1] for m in marks if m.name == "parametrize"] or [[None]]
        for case in cases[0]:
            test(case) if case is not None else test()
            ran += 1
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras"))
print(ran, loaded)
"""


@pytest.mark.slow
def test_this_module_imports_no_tensorflow():
    code = TENSORFLOW_FREE_RUN.format(path=str(Path(__file__).resolve()))
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    ran, loaded = result.stdout.split(" ", 1)
    assert int(ran) >= 20
    assert loaded.strip() == "[]", loaded


# --- Containers of objects and functions with *args or **kwargs (issue 52) -------------


class _Layer:
    """Stands for a Keras layer: kept alive so that its reference resolves."""


def _objects(layers):
    return td.Structure(
        "list",
        "list",
        tuple(
            (f"[{i}]", td.ObjectRef(f"Dense #{id(layer) % 97}", lambda layer=layer: layer))
            for i, layer in enumerate(layers)
        ),
    )


def test_new_objects_in_a_list_are_compared_with_the_trace_fewest_items_apart():
    two, three, other_three = (
        [_Layer(), _Layer()],
        [_Layer() for _ in range(3)],
        [_Layer() for _ in range(3)],
    )
    first, second = trace(layers=_objects(two)), trace(layers=_objects(three))
    grew = explain(first, second)
    assert (grew.kind, grew.argument) == ("structure", "layers")
    assert "holds Python objects" in grew.message and "tf.stack)" not in grew.message
    # a list of 3 other objects: 3 items apart from either, so the most recent is closest
    replaced = explain(first, second, trace(layers=_objects(other_three)))
    assert (replaced.kind, replaced.argument) == ("object", "layers[0]")


def test_a_list_of_tensors_that_grew_keeps_the_stack_advice():
    grew = explain(
        trace(xs=td.Structure("list", "list", (("[0]", tensor((2,))),))),
        trace(xs=td.Structure("list", "list", (("[0]", tensor((2,))), ("[1]", tensor((2,)))))),
    )
    assert "stack the items (tf.stack) and give that dimension None" in grew.message
    assert "(input_signature or reduce_retracing=True)" in grew.message


def _variadic(passed=(), **arguments):
    description = trace(**arguments)
    description.variadic, description.through_variadic = ("**kwargs",), tuple(passed)
    return description


def test_a_function_with_kwargs_is_never_advised_reduce_retracing():
    reason = explain(_variadic(x=tensor((8, 4))), _variadic(x=tensor((5, 4))))
    assert "use reduce_retracing=True" not in reason.message
    assert "give `x` the spec tf.TensorSpec(shape=[None, 4], dtype=tf.float32) in " in (
        reason.message
    )
    assert "Not reduce_retracing=True: the function takes **kwargs" in reason.message
    passed = explain(
        _variadic(("beams",), x=tensor((8, 4)), beams=td.PythonValue(2)),
        _variadic(("beams",), x=tensor((5, 4)), beams=td.PythonValue(2)),
    )
    assert "in input_signature" not in passed.message.split("Neither")[0]
    assert "Pad or bucket inputs to a few sizes: one trace each." in passed.message
