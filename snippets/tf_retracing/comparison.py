"""Compare a call with earlier traces and say what changed and what to try.

Works only on the TensorFlow-free descriptions of ``tf_retracing.trace_description``;
``tf_retracing._internals`` builds them from TensorFlow's trace types. This module must
never import TensorFlow: its tests build descriptions by hand.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

# Relative imports: its tests load it without the package (whose __init__ imports TF).
from .explainer_types import REPORT_URL, RetraceReason
from .trace_description import (
    DENSE,
    DEVICE_FIELD,
    NO_VARIABLE_CREATION,
    RAGGED,
    SPARSE,
    VARIABLE,
    VARIABLE_CREATION,
    CallContext,
    Node,
    ObjectRef,
    OtherLeaf,
    PythonValue,
    Structure,
    TensorLeaf,
    TraceDescription,
)


@dataclasses.dataclass(frozen=True)
class Change:
    """One difference between a call and an earlier trace."""

    argument: str | None
    kind: str  # one of explainer_types.KINDS
    before: str
    after: str
    advice: str  # what changed and what to try, without the function's name
    subkind: str  # what exactly changed within the kind ("value", "rank"...), for grouping


NO_VISIBLE_CHANGE = (
    "no argument or call context differs from an earlier trace in what the explainer can "
    f"see, so the cause is unknown. Please report it at {REPORT_URL}."
)

SCOPE_TEXTS = {
    VARIABLE_CREATION: "its first call (creating variables)",
    NO_VARIABLE_CREATION: "a later call (no new variables)",
}


def explain(
    function: str,
    number: int,
    history: Sequence[TraceDescription],
    new: TraceDescription,
    compare: Callable[[TraceDescription, TraceDescription], list[Change]] | None = None,
    seen_before: bool | None = None,
) -> RetraceReason:
    """Why trace ``number`` of ``function`` happened: ``new`` against the closest earlier
    trace in ``history`` (the one with fewest differences; ties go to the most recent).
    ``seen_before``: whether ``history`` holds a trace equal to ``new``, if the caller
    keeps an index that tells (else it is looked up in ``history``)."""
    compare = compare or changes
    if new.context.saving:  # every trace tf.saved_model.save makes is one of its own
        return _save_time_reason(function, number, new)
    # An earlier trace equal in all but what is not compared (spec names) may lie further
    # back than one that differs in one place: look for it first, by equality (cheap).
    if seen_before is None:
        seen_before = _seen_before(new, history)
    closest: list[Change] | None = [] if seen_before else None
    for earlier in reversed(history if closest is None else ()):
        found = compare(earlier, new)
        if closest is None or len(found) < len(closest):
            closest = found
        if len(closest) <= 1:  # a retrace differs somewhere: none can be closer
            break
    if not closest:  # nothing differs but names, or nothing the explainer sees
        closest = _spec_name_changes(history, new) or [
            Change(None, "unknown", "", "", NO_VISIBLE_CHANGE, "no-visible-change")
        ]
    first, *others = closest
    message = f"`{function}` traced again (trace {number}): {first.advice}"
    if others:
        message += f" Also different from that trace: {'; '.join(map(short, others))}."
    return RetraceReason(
        function=function,
        trace=number,
        argument=first.argument,
        kind=first.kind,
        before=first.before,
        after=first.after,
        message=message,
        others=tuple(map(short, others)),
        subkind=first.subkind,
    )


def _seen_before(new: TraceDescription, history: Sequence[TraceDescription]) -> bool:
    """Whether an earlier trace equals ``new`` in everything the comparison looks at."""
    try:
        return new in history
    except (TypeError, ValueError):  # a value without a plain ==: compare one by one
        return False


def _save_time_reason(function: str, number: int, new: TraceDescription) -> RetraceReason:
    signature = ", ".join(f"{name}: {describe(node)}" for name, node in new.call.items())
    message = (
        f"`{function}` traced again (trace {number}): traced by tf.saved_model.save for one "
        f"of its concrete functions ({signature or 'no arguments'}). Saving traces every "
        "concrete function of a tf.function once more under its save options, exported as a "
        "signature or not; a later save with the same options traces only the concrete "
        "functions not saved before. Nothing to fix, and later calls keep using their own "
        "traces."
    )
    return RetraceReason(
        function=function,
        trace=number,
        argument=None,
        kind="context",
        before="in a normal call",
        after="while saving (tf.saved_model.save)",
        message=message,
        subkind="saving",
    )


def short(change: Change) -> str:
    return f"`{change.argument or '(context)'}` {change.kind} {change.before} -> {change.after}"


def changes(earlier: TraceDescription, new: TraceDescription) -> list[Change]:
    """Every difference between ``new`` (the call) and ``earlier`` (what it traced)."""
    found = []
    for name, call in new.call.items():
        if name not in earlier.traced:
            found.append(_new_argument(name, None, describe(call)))
        else:
            general = new.traced.get(name, call)
            found.extend(_diff(name, earlier.traced[name], call, general))
    for name, old in earlier.traced.items():
        if name not in new.call:
            found.append(_new_argument(name, describe(old), None))
    if earlier.context != new.context:
        found.append(_context_change(earlier.context, new.context))
    return found


def _spec_name_changes(history: Sequence[TraceDescription], new: TraceDescription) -> list:
    """Differences in spec names alone, against the most recent trace that has some.

    Names are left out of the comparison (``tf.saved_model.save`` names its specs after
    the arguments, and that is never the cause); but two specs given different names by
    the caller, e.g. to get_concrete_function, are traced apart.
    """
    for earlier in reversed(history):
        found = []
        for name, call in new.call.items():
            if name in earlier.traced:
                found.extend(_name_diff(name, earlier.traced[name], call))
        if found:
            return found
    return []


def _name_diff(path: str, old: Node, new: Node) -> list[Change]:
    if isinstance(old, TensorLeaf) and isinstance(new, TensorLeaf):
        if new.name is None or old.name == new.name or not accepts(old, new):
            return []
        before, after = repr(old.name), repr(new.name)
        advice = (
            f"argument `{path}` is a spec named {after}; the closest earlier trace was made "
            f"for one named {before}, and TensorFlow keeps a trace per spec name. Give the "
            "specs one name, or none."
        )
        return [Change(path, "structure", before, after, advice, "spec-name")]
    if isinstance(old, Structure) and isinstance(new, Structure) and _same_layout(old, new):
        new_children = dict(new.children)
        return [
            change
            for suffix, child in old.children
            for change in _name_diff(path + suffix, child, new_children[suffix])
        ]
    return []


# Does an earlier trace accept this value? --------------------------------------------


def accepts(old: Node, new: Node) -> bool:
    """Whether a trace made for ``old`` serves a call with ``new`` (names left out)."""
    if isinstance(old, TensorLeaf) and isinstance(new, TensorLeaf):
        return (old.kind, old.dtype, old.ragged_rank, old.details) == (
            new.kind,
            new.dtype,
            new.ragged_rank,
            new.details,
        ) and _shape_accepts(old.shape, new.shape)
    if isinstance(old, PythonValue) and isinstance(new, PythonValue):
        return _same_value(old.value, new.value)
    if isinstance(old, ObjectRef) and isinstance(new, ObjectRef):
        return _same_object(old, new)
    if isinstance(old, OtherLeaf) and isinstance(new, OtherLeaf):
        return _equal(old.key, new.key)
    if isinstance(old, Structure) and isinstance(new, Structure):
        if not _same_layout(old, new):
            return False
        new_children = dict(new.children)
        return all(accepts(child, new_children[suffix]) for suffix, child in old.children)
    return False


def _shape_accepts(old, new) -> bool:
    if old is None:  # a trace for any rank
        return True
    if new is None or len(old) != len(new):
        return False
    return all(a is None or a == b for a, b in zip(old, new, strict=True))


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # an __eq__ that raises or returns an array: not the same
        return False


def _same_value(a, b) -> bool:
    both_nan = _equal(a, a) is False and _equal(b, b) is False  # TensorFlow matches NaNs
    return both_nan or _equal(a, b)


def _same_object(old: ObjectRef, new: ObjectRef) -> bool:
    a, b = old.ref(), new.ref()
    return a is not None and b is not None and (a is b or _equal(a, b))


def _same_layout(old: Structure, new: Structure) -> bool:
    if (old.container, old.type_name) != (new.container, new.type_name):
        return False
    old_paths = [suffix for suffix, _ in old.children]
    new_paths = [suffix for suffix, _ in new.children]
    if old.container == "dict":  # keys in another order are the same dict to TensorFlow
        return sorted(old_paths) == sorted(new_paths)
    return old_paths == new_paths


# What a difference is --------------------------------------------------------------


def _diff(
    path: str, old: Node, new: Node, general: Node, inside: str | None = None
) -> list[Change]:
    """The changes from ``old`` to ``new`` at ``path``; ``inside`` names the composite
    value (a distributed value, an iterator) the path is in, whose shapes the data sets."""
    if accepts(old, new):
        return []
    if isinstance(old, Structure) or isinstance(new, Structure):
        if not (isinstance(old, Structure) and isinstance(new, Structure)):
            return [_structure_change(path, describe(old), describe(new))]
        if not _same_layout(old, new):
            return [_structure_change(path, describe(old), describe(new))]
        new_children = dict(new.children)
        general_children = dict(general.children) if isinstance(general, Structure) else {}
        if old.container == "composite":
            inside = inside or old.type_name
        found = []
        for suffix, old_child in old.children:
            new_child = new_children[suffix]
            general_child = general_children.get(suffix, new_child)
            found.extend(_diff(path + suffix, old_child, new_child, general_child, inside))
        return found
    return [_leaf_change(path, old, new, general, inside)]


def _leaf_change(
    path: str, old: Node, new: Node, general: Node, inside: str | None = None
) -> Change:
    before, after = describe(old), describe(new)
    if isinstance(old, PythonValue) or isinstance(new, PythonValue):
        return _python_value_change(path, old, new, before, after)
    if isinstance(old, TensorLeaf) and isinstance(new, TensorLeaf) and old.kind == new.kind:
        if old.dtype != new.dtype:
            return _dtype_change(path, old, new)
        if not _shape_accepts(old.shape, new.shape):
            return _shape_change(path, old, new, general, inside)
        return _kind_of_value_change(path, _spec_text(old), _spec_text(new))
    if isinstance(old, ObjectRef) and isinstance(new, ObjectRef):
        return _object_change(path, before, after)
    return _kind_of_value_change(path, before, after)


# Descriptions for the reader ---------------------------------------------------------

_KIND_NAMES = {
    DENSE: "tensor",
    VARIABLE: "Variable",
    RAGGED: "RaggedTensor",
    SPARSE: "SparseTensor",
}


# A report stays readable and bounded whatever the program passes: a value's text is cut
# (saying how long it was), and a list of values seen stops after a few.
MAX_VALUE_CHARS = 120
MAX_VALUES_SEEN = 10


def short_repr(value: object) -> str:
    """``repr(value)``, cut to about MAX_VALUE_CHARS characters with its full length."""
    text = repr(value)
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return f"{text[: MAX_VALUE_CHARS - 20]}... ({len(text):,} characters)"


def describe(node: Node) -> str:
    """A short phrase for a value: "a float32 tensor of shape (2, 3)", "0.5", "a list of 2"."""
    if isinstance(node, PythonValue):
        return short_repr(node.value)
    if isinstance(node, ObjectRef):
        return node.description
    if isinstance(node, OtherLeaf):
        return node.text
    if isinstance(node, Structure):
        return _structure_label(node)
    kind = _KIND_NAMES.get(node.kind, node.kind)
    return f"{article(node.dtype)} {node.dtype} {kind} of shape {shape_text(node.shape)}"


def _structure_label(node: Structure) -> str:
    suffixes = [suffix for suffix, _ in node.children]
    if node.container in ("list", "tuple"):
        return f"a {node.container} of {len(suffixes)}"
    if node.container == "dict":
        keys = ", ".join(suffix[1:-1] for suffix in suffixes)  # "['ids']" -> "'ids'"
        return f"a dict with keys {keys}" if suffixes else "an empty dict"
    if node.container == "composite":  # what it holds is in the children's paths
        return f"{article(node.type_name)} {node.type_name} value"
    fields = ", ".join(suffix.removeprefix(".") for suffix in suffixes)
    return f"{article(node.type_name)} {node.type_name}({fields})"


def _spec_text(node: TensorLeaf) -> str:
    """A tensor-like value with the fields that may differ besides shape and dtype."""
    extra = list(node.details)
    if node.ragged_rank is not None:
        extra.insert(0, ("ragged_rank", str(node.ragged_rank)))
    fields = ", ".join(f"{name}={value}" for name, value in extra)
    return f"{describe(node)}{f' ({fields})' if fields else ''}"


def shape_text(shape) -> str:
    return "(unknown rank)" if shape is None else str(tuple(shape))


def _rank(shape) -> str:
    return "unknown" if shape is None else str(len(shape))


def article(word: str) -> str:
    """'a' or 'an' before a dtype or type name ("an int32", "a uint8", "a float32")."""
    return "an" if word[:1].lower() in "aeio" else "a"


# The advice for each kind of change -----------------------------------------------


def _shape_change(
    path: str, old: TensorLeaf, new: TensorLeaf, general: Node, inside: str | None = None
) -> Change:
    before, after = shape_text(old.shape), shape_text(new.shape)
    if old.shape is None or new.shape is None or len(old.shape) != len(new.shape):
        subkind = "rank"
        what = f"rank changed from {_rank(old.shape)} to {_rank(new.shape)}"
        fix = (
            f"If the rank varies by design, give `{path}` the spec {spec(new, None)} in "
            "input_signature (any rank, one trace) or use reduce_retracing=True; otherwise "
            "keep the rank fixed (reshape or add the missing axis before the call)."
        )
    else:
        subkind = "dimension"
        pairs = list(zip(old.shape, new.shape, strict=True))
        changed = [i for i, (a, b) in enumerate(pairs) if a != b]
        what = ", ".join(f"dimension {i}: {pairs[i][0]} -> {pairs[i][1]}" for i in changed)
        relaxed = [None if i in changed else size for i, size in enumerate(new.shape)]
        fix = (
            f"If that size varies by design, declare it None: give `{path}` the spec "
            f"{spec(new, relaxed)} in input_signature, "
            "or use reduce_retracing=True; otherwise pad or bucket inputs to a few sizes."
        )
    if inside is not None:  # no spec can be given to a part of it: the data sets its shapes
        fix = _composite_shape_fix(path, inside, subkind == "dimension" and changed == [0])
    if isinstance(general, TensorLeaf) and general.shape != new.shape:
        fix = (
            f"reduce_retracing made this trace general ({shape_text(general.shape)}), so "
            "later calls that differ only there reuse it."
        )
    advice = f"argument `{path}` changed shape from {before} to {after} ({what}). {fix}"
    return Change(path, "shape", before, after, advice, subkind)


def _composite_shape_fix(path: str, inside: str, batch_only: bool) -> str:
    where = (
        f"`{path}` is part of {article(inside)} {inside} value (what a distributed dataset "
        "or a dataset iterator passes), so its shape comes from the data."
    )
    batch = (
        " A smaller last batch is the usual cause: batch the dataset with "
        "drop_remainder=True (or repeat it) so that every batch has the same size."
        if batch_only
        else ""
    )
    return (
        f"{where}{batch} If the size varies by design, let the dataset leave that dimension "
        "None (its element_spec shows it), or use reduce_retracing=True, which traces once "
        "more with the dimension None; otherwise pad or bucket the data to a few sizes."
    )


def spec(node: TensorLeaf, shape) -> str:
    """The spec that accepts this kind of value with ``shape``, as code to paste."""
    dtype = f"tf.{node.dtype}"
    if node.kind == RAGGED:
        return f"tf.RaggedTensorSpec(shape={shape}, dtype={dtype}, ragged_rank={node.ragged_rank})"
    if node.kind == SPARSE:
        return f"tf.SparseTensorSpec(shape={shape}, dtype={dtype})"
    if node.kind == DENSE:
        return f"tf.TensorSpec(shape={shape}, dtype={dtype})"
    spec_name = _KIND_NAMES.get(node.kind, node.kind) + "Spec"
    return f"{article(spec_name)} {spec_name} with shape {shape} and dtype {dtype}"


def _dtype_change(path: str, old: TensorLeaf, new: TensorLeaf) -> Change:
    before, after = old.dtype, new.dtype
    advice = (
        f"argument `{path}` changed dtype from {before} to {after}. Each dtype needs its own "
        f"graph: cast before the call, e.g. tf.cast({path.split('[')[0]}, tf.{before}), or "
        f"make the producer emit {before}."
    )
    return Change(path, "dtype", before, after, advice, "dtype")


def _python_value_change(path: str, old: Node, new: Node, before: str, after: str) -> Change:
    if isinstance(old, PythonValue) and isinstance(new, PythonValue):
        subkind = "value"
        what = (
            f"is a Python {type(new.value).__name__} whose value changed from {before} to {after}"
        )
        fix = _value_fix(path, new)
    elif isinstance(new, PythonValue):
        subkind = "became-python"
        what = f"was {before} and is now the Python value {after}"
        fix = f"Pass a tensor every time ({_as_tensor(new)}), not a Python value."
        fix += _dtype_note(path, new)
    else:
        subkind = "was-python"
        what = f"was the Python value {before} and is now {after}"
        fix = "Pass the same kind of value every time; a tensor if the value changes."
    return Change(path, "python-value", before, after, f"argument `{path}` {what}. {fix}", subkind)


# How the function's source uses an argument (tf_retracing.argument_use's names).
CHOOSES, BRANCHES, STEP, FEEDS = "chooses", "branches", "step", "feeds"


def _value_fix(path: str, new: PythonValue) -> str:
    """What to do about a Python value that changed, by how the function uses it."""
    used_for = set(new.used_for)
    if CHOOSES in used_for:
        return (
            "The function uses it to choose a Python object (a dict key, a list index or "
            "an attribute name), which a tensor cannot do, so keep it a Python value: a "
            "few fixed values cost one trace each, which is expected. Only where the "
            "choice must be made inside the graph, pick with tensors instead: "
            "tf.switch_case over one branch per value, or a tf.lookup.StaticHashTable "
            "from keys to numbers."
        )
    if isinstance(new.value, bool):
        return _flag_advice(new)
    if used_for == {BRANCHES}:
        return (
            "The function uses it only to decide an `if` (or `while`): a few fixed values "
            "cost one trace each, which is expected. Pass it as a tensor "
            f"({_as_tensor(new)}) only if both branches are tensor operations, which "
            "AutoGraph then turns into one tf.cond."
        ) + _dtype_note(path, new)
    if STEP in used_for and isinstance(new.value, int) and len(used_for - {STEP}) == 0:
        return (
            "Every new Python value is a new trace: it is a tf.summary step, so pass it "
            f"as tf.constant({new.value!r}, dtype=tf.int64), the dtype a step has."
        )
    return (
        "Every new Python value is a new trace: if it varies, pass it as a tensor "
        f"({_as_tensor(new)}); if it takes a few fixed values, expect one trace each."
    ) + _dtype_note(path, new)


def _flag_advice(new: PythonValue) -> str:
    """A bool has two values: a trace each is often the point of a flag, and a tensor in
    its place works only where AutoGraph can turn its use into graph operations."""
    return (
        "A bool has two values, so it costs at most one more trace, and a graph specialised "
        "for each value is often what a flag is for: usually keep it. Pass it as a tensor "
        f"({_as_tensor(new)}) only if the function uses it in tensor operations or in an "
        "`if` that AutoGraph turns into tf.cond; not if it chooses a Python object, a "
        "layer or the structure of what the function returns."
    )


# The dtype tf.constant gives a Python number of each type when none is named.
_DEFAULT_DTYPES = {"int": "int32", "float": "float32"}


def _as_tensor(node: PythonValue) -> str:
    """The tensor to pass instead of a Python value, with the dtype the function needs:
    the one the traced graph made of the value, where it shows one."""
    value = short_repr(node.value)
    default = _DEFAULT_DTYPES.get(type(node.value).__name__)
    if default is None:  # not a number: tf.constant keeps its kind (str, bool)
        return f"tf.constant({value})"
    if len(node.used_as) == 1:
        return (
            f"tf.constant({value}, dtype=tf.{node.used_as[0]}), the dtype the function uses it as"
        )
    if node.pass_as is not None:  # several dtypes: _dtype_note says why this one
        return f"tf.constant({value}, dtype=tf.{node.pass_as})"
    if node.used_as:  # several, and the check could not choose (see _internals)
        used = ", ".join(node.used_as)
        return (
            f"tf.constant({value}, dtype=...) with the dtype of the operation it feeds; the "
            f"traced graph has it as {used}"
        )
    return (
        f"tf.constant({value}), which is {default}: name another dtype if the function "
        f"needs one, e.g. tf.constant({value}, dtype=tf.int64) for a tf.summary step"
        if default == "int32"
        else f"tf.constant({value}), which is {default}: name another dtype if the function "
        "needs one, e.g. dtype=tf.float64 beside float64 tensors"
    )


def _dtype_note(path: str, node: PythonValue) -> str:
    """For a number the traced graph has in several dtypes: why the one dtype advised
    (every operation it feeds takes it), or where it needs a tf.cast (none does), and
    where a tensor of another dtype fails; checked by _internals.dtype_to_pass."""
    if node.pass_as is None:
        return ""
    dtypes = ", ".join(node.used_as[:-1]) + f" and {node.used_as[-1]}"
    if node.cast_at:
        casts = "; ".join(
            f"tf.cast({path}, tf.{dtype}) where it feeds {where}" for dtype, where in node.cast_at
        )
        note = (
            f" The traced graph has `{path}` as {dtypes}, and no one dtype fits every "
            f"operation it feeds: pass it as {node.pass_as} and write, in its place, {casts}."
        )
    else:
        note = (
            f" The traced graph has `{path}` as {dtypes}; {node.pass_as} is the dtype every "
            "operation it feeds takes."
        )
    others = "".join(
        f" {article(dtype).capitalize()} {dtype} tensor {why}." for dtype, why in node.fails_as
    )
    return note + others


# What to do about a method traced again for a new instance.
NEW_INSTANCE_ADVICE = (
    "each instance keeps its own traces, so every new instance traces again. Create the "
    "object once and reuse it; where the program needs several instances (the layers of a "
    "model), one trace per instance is expected."
)


def new_instance_reason(function: str, number: int, instance: str) -> RetraceReason:
    """A method's tf.function traced for a new instance (each has its own tf.function)."""
    message = (
        f"`{function}` traced again (trace {number}): this is a method and `self` is a new "
        f"object ({instance}): {NEW_INSTANCE_ADVICE}"
    )
    return RetraceReason(
        function=function,
        trace=number,
        argument="self",
        kind="object",
        before="another instance",
        after=instance,
        message=message,
        subkind="self",
    )


def gone_instance_reason(function: str, number: int) -> RetraceReason:
    """A method traced for an instance already gone when it traced: a temporary
    (``Model().f(x)``), for which TensorFlow passes ``self`` as None; each is new."""
    message = (
        f"`{function}` traced again (trace {number}): this is a method called on an object "
        "that was gone by the time it traced (a temporary, as in `Model().f(x)`: TensorFlow "
        "then traces with `self` None), and each instance keeps its own traces, so a new "
        "object per call traces on every call. Keep the object in a variable, create it "
        "once and call its method"
    )
    return RetraceReason(
        function=function,
        trace=number,
        argument="self",
        kind="object",
        before="another instance",
        after="a temporary instance",
        message=message,
        subkind="self",
    )


def _object_change(path: str, before: str, after: str) -> Change:
    if path == "self":
        advice = (
            f"this is a method and `self` is a new object ({after}, not {before}): "
            f"{NEW_INSTANCE_ADVICE}"
        )
        return Change(path, "object", before, after, advice, "self")
    advice = (
        f"argument `{path}` is a different object ({after}, not {before}). Objects "
        "are matched by identity (or by __eq__ and __hash__ if the class defines them), "
        "and a collected object never matches again. Reuse one object, or pass the "
        "values it carries as tensors."
    )
    return Change(path, "object", before, after, advice, "object")


def _structure_change(path: str, before: str, after: str) -> Change:
    advice = (
        f"argument `{path}` changed structure from {before} to {after}. Each container "
        "type, length and set of keys is a new trace: keep the structure fixed, or pass "
        "one tensor instead of a container whose length varies: stack the items "
        "(tf.stack) and give that dimension None (input_signature or "
        "reduce_retracing=True), or a tf.RaggedTensor if the items differ in size."
    )
    return Change(path, "structure", before, after, advice, "container")


def _kind_of_value_change(path: str, before: str, after: str) -> Change:
    advice = (
        f"argument `{path}` was {before} and is now {after}. Pass the same kind of "
        "value on every call"
    )
    if "Variable" in before + after and " tensor " in before + after:
        advice += (
            ": always the tf.Variable, or always a tensor (tf.convert_to_tensor of it); "
            "a Variable's trace reads its current value on every call anyway"
        )
    advice += "."
    return Change(path, "structure", before, after, advice, "kind-of-value")


def _new_argument(path: str, before: str | None, after: str | None) -> Change:
    if before is None:
        advice = (
            f"argument `{path}` was not passed to the closest earlier trace and is now "
            f"{after}. Pass the same arguments on every call (a fixed value, or rely on a "
            "default)."
        )
        return Change(path, "new-argument", "not passed", after, advice, "passed")
    advice = (
        f"argument `{path}` was passed to the closest earlier trace ({before}) and is "
        "not passed now. Pass the same arguments on every call."
    )
    return Change(path, "new-argument", before, "not passed", advice, "not-passed")


# The calling context ---------------------------------------------------------------


def _context_change(old: CallContext, new: CallContext) -> Change:
    if old.scope != new.scope:
        before, after = SCOPE_TEXTS.get(old.scope, old.scope), SCOPE_TEXTS.get(new.scope, new.scope)
        advice = (
            "the same arguments, but the first trace created tf.Variables, so TensorFlow "
            "traced once more with variable creation turned off. This happens once per "
            "function that creates variables; create them outside the function to avoid it."
        )
        return Change(None, "context", before, after, advice, "variable-creation")
    if old.graph is not new.graph:
        before, after = _graph_texts(old.graph, new.graph)
        advice = (
            f"the same arguments, but called {after} instead of {before}. Each calling "
            "context has its own traces; call the function from one context."
        )
        return Change(None, "context", before, after, advice, "graph")
    if old.saving != new.saving:
        return _saving_change(old.saving)
    if _changed_fields(old, new) == [DEVICE_FIELD]:
        return _device_change(dict(old.fields)[DEVICE_FIELD], dict(new.fields)[DEVICE_FIELD])
    before, after = _field_texts(old, new)
    advice = (
        f"the same arguments, but called {after} instead of {before}. Each calling context "
        "has its own traces; call the function from one context."
    )
    return Change(None, "context", before, after, advice, "other")


def _device_change(old_devices: tuple, new_devices: tuple) -> Change:
    before = ", ".join(old_devices) or "no device scope"
    after = ", ".join(new_devices) or "no device scope"
    advice = (
        f"the same arguments, but called on device {after} instead of {before}. TensorFlow "
        "keys a trace on the device only under a tf.distribute strategy that traces for "
        "each device, such as MirroredStrategy over several devices (a function traces once "
        "per replica: expected, and nothing to fix; in the strategy's scope, each tf.device "
        "scope traces too), or in a TF1-style graph under a device function (a callable "
        "given to tf.Graph.device). A tf.device scope outside a strategy never retraces. "
        "In a TF1-style graph, give tf.Graph.device a device string instead of a function."
    )
    return Change(None, "context", before, after, advice, "device")


def _graph_texts(old, new) -> tuple[str, str]:
    # Inside a tf.function TensorFlow lifts the context to the eager one: same traces.
    eager = "eagerly (or from a tf.function)"
    if old is not None and new is not None:
        return "in one tf.Graph (graph mode)", "in another tf.Graph (graph mode)"
    graph = "in a tf.Graph (graph mode)"
    return (eager, graph) if old is None else (graph, eager)


def _saving_change(saved_before: bool) -> Change:
    saving, calling = "while saving (tf.saved_model.save)", "in a normal call"
    if saved_before:
        advice = (
            "the same arguments, but the closest earlier trace was made by "
            "tf.saved_model.save, which traces under its own save options; a normal call "
            "needs its own trace, once."
        )
        return Change(None, "context", saving, calling, advice, "saving")
    advice = (
        "the same arguments, but called by tf.saved_model.save, which traces every "
        "concrete function once more under its save options; a later save with the same "
        "options does not trace it again, and later calls keep using their own traces."
    )
    return Change(None, "context", calling, saving, advice, "saving")


def _changed_fields(old: CallContext, new: CallContext) -> list[str]:
    old_fields, new_fields = dict(old.fields), dict(new.fields)
    return [
        n for n in {**old_fields, **new_fields} if not _equal(old_fields.get(n), new_fields.get(n))
    ]


def _field_texts(old: CallContext, new: CallContext) -> tuple[str, str]:
    old_fields, new_fields = dict(old.fields), dict(new.fields)
    names = _changed_fields(old, new)
    return (
        ", ".join(f"{name}={old_fields.get(name)!r}" for name in names),
        ", ".join(f"{name}={new_fields.get(name)!r}" for name in names),
    )


# Several retraces of one cause, summed up ---------------------------------------------


def group_message(
    reasons: Sequence[RetraceReason], seen: Sequence[tuple[Node, Node] | None]
) -> str:
    """What a report quotes for ``reasons``, retraces with one cause on one argument:
    advice that covers all of them, not only the latest. ``seen[i]`` is the argument as
    called and as traced in trace i + 1 of the function (None where it had none)."""
    latest = reasons[-1]
    numbers = sorted(reason.trace for reason in reasons)
    one_function = len(set(numbers)) == len(numbers) and numbers[-1] <= len(seen)
    counted = f" (traces {_number_list(numbers)})" if one_function else ""
    if latest.kind == "shape" and latest.subkind == "dimension" and one_function:
        covering = _covering_shape_advice(latest.argument, seen, seen[latest.trace - 1])
        if covering is not None:
            return (
                f"`{latest.function}` traced again {len(reasons)} times for this "
                f"argument{counted}: {covering} [{latest.cause}] {latest.url}"
            )
    if latest.kind == "python-value" and latest.subkind == "value":
        calls = [pair[0] for pair in seen if pair is not None]
        values = _distinct(describe(c) for c in calls if isinstance(c, PythonValue))
        if len(values) > 2:
            shown = values[:MAX_VALUES_SEEN]
            more = len(values) - len(shown)
            listed = ", ".join(shown) + (f" and {more} more" if more else "")
            return f"values seen: {listed}{counted}. {latest.message}"
    return latest.message


def _covering_shape_advice(
    path: str, seen: Sequence[tuple[Node, Node] | None], latest: tuple[Node, Node] | None
) -> str | None:
    """The shape advice with every dimension that varied across the traces None, or None
    when one spec cannot be given (a composite value, whose shapes the data sets, or
    reduce_retracing, which already generalised them). Only values of the latest one's
    kind, dtype and rank count: a dtype change of the same argument has its own line."""
    if latest is None or not isinstance(latest[0], TensorLeaf) or latest[0].shape is None:
        return None
    like = (latest[0].kind, latest[0].dtype, len(latest[0].shape))
    pairs = [
        pair
        for pair in seen
        if pair is not None
        and isinstance(pair[0], TensorLeaf)
        and pair[0].shape is not None
        and (pair[0].kind, pair[0].dtype, len(pair[0].shape)) == like
    ]
    if any(call != traced for call, traced in pairs):
        return None  # reduce_retracing traced a general shape: its own advice stands
    tensors = [call for call, _ in pairs]
    columns = list(zip(*(t.shape for t in tensors), strict=True))
    varying = [i for i, sizes in enumerate(columns) if len(set(sizes)) > 1]
    shapes = _distinct(shape_text(t.shape) for t in tensors)
    if len(shapes) < 3 or not varying:
        return None  # one change: the latest message says it all
    relaxed = [None if i in varying else sizes[0] for i, sizes in enumerate(columns)]
    dimensions = "dimension" + ("s " if len(varying) > 1 else " ")
    return (
        f"argument `{path}` took {len(shapes)} shapes ({', '.join(shapes)}): "
        f"{dimensions}{_number_list(varying, 'and')} varied. If those sizes vary by design, "
        f"declare them None: give `{path}` the spec {spec(latest[0], relaxed)} in "
        "input_signature, or use reduce_retracing=True; otherwise pad or bucket inputs "
        "to a few sizes."
    )


def node_at(description: TraceDescription, path: str) -> tuple[Node, Node] | None:
    """The value at ``path`` (``x``, ``batch['ids']``, ``xs[2]``) as called and as traced,
    or None where this trace has nothing there or it lies inside a composite value."""
    for name in description.call:
        if path == name or (path.startswith(name) and path[len(name)] in "[."):
            call = _child_at(description.call[name], path[len(name) :])
            traced = _child_at(description.traced.get(name), path[len(name) :])
            return None if call is None else (call, traced if traced is not None else call)
    return None


def _child_at(node: Node | None, rest: str) -> Node | None:
    """The node ``rest`` (``['ids'][0]``) leads to below ``node``; not into composites."""
    while rest and isinstance(node, Structure) and node.container != "composite":
        # The longest suffix that fits: `.ab` is not field `.a` followed by `b`.
        suffix, node = max(
            ((suffix, child) for suffix, child in node.children if rest.startswith(suffix)),
            key=lambda pair: len(pair[0]),
            default=("", None),
        )
        rest = rest[len(suffix) :]
    return None if rest else node


def _distinct(texts) -> list[str]:
    return list(dict.fromkeys(texts))


def _number_list(numbers: Sequence[int], last: str = "") -> str:
    """2, 3, 4 -> "2-4"; 2, 5 -> "2, 5" (or "2 and 5" with ``last="and"``)."""
    if last:
        words = [str(n) for n in numbers]
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"
    if len(numbers) > 2 and list(numbers) == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))
