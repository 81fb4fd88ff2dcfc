"""What changed and what to try, for each kind of change: shapes, dtypes, Python values
(by how the function uses them), objects and instances, structures, arguments."""

from __future__ import annotations

import dataclasses
import re

# Relative imports: its tests load it without the package (whose __init__ imports TF).
from ..explainer_types import RetraceReason
from ..trace_description import (
    DENSE,
    RAGGED,
    SPARSE,
    VARIABLE,
    Node,
    PythonValue,
    TensorLeaf,
)
from .describing import _KIND_NAMES, _rank, article, describe, shape_text, short_repr


@dataclasses.dataclass(frozen=True)
class Change:
    """One difference between a call and an earlier trace."""

    argument: str | None
    kind: str  # one of explainer_types.KINDS
    before: str
    after: str
    advice: str  # what changed and what to try, without the function's name
    subkind: str  # what exactly changed within the kind ("value", "rank"...), for grouping
    # How far apart the two traces are here: the items of a container that no longer
    # match (a list of two layers against a list of three new ones is three apart, not
    # one), so that the closest earlier trace is the one with the fewest such items.
    weight: int = dataclasses.field(default=1, compare=False)


@dataclasses.dataclass(frozen=True)
class Fixes:
    """What the function's parameters allow: on one that takes ``*args`` or ``**kwargs``
    (``variadic``, as written) reduce_retracing=True makes TensorFlow raise IndexError when
    a call passes more arguments through them than an earlier trace had, and an
    input_signature takes only the positional arguments it lists: none through ``**kwargs``
    (``passes``: the arguments some call passed through them), and no keyword-only
    parameter (``keyword_only``: TensorFlow refuses a signature for one without a default,
    and gives none to one with a default)."""

    variadic: tuple[str, ...] = ()
    passes: tuple[str, ...] = ()
    keyword_only: tuple[str, ...] = ()

    @classmethod
    def of(cls, *descriptions) -> Fixes:
        variadic = next((d.variadic for d in descriptions if d.variadic), ())
        passes = tuple(dict.fromkeys(n for d in descriptions for n in d.through_variadic))
        keyword_only = next((d.keyword_only for d in descriptions if d.keyword_only), ())
        return cls(variadic, passes, keyword_only)

    def declare_none(self, path: str, node: TensorLeaf, shape, any_rank: bool = False) -> str:
        """How to accept the varying sizes (``shape``, None where they vary) in one trace:
        the spec in input_signature, or reduce_retracing=True, where each works; '' where
        neither does."""
        parameter = re.match(r"\w*", path).group()  # x of x[0] or x['a']
        if node.kind == VARIABLE:
            return self._variable_sizes(path, parameter, node, shape)
        note = " (any rank, one trace)" if any_rank else ""
        signature = f"give `{path}` the spec {spec(node, shape)} in input_signature{note}"
        if parameter in self.keyword_only:
            signature = f"make `{parameter}` a positional parameter and {signature}"
        if not self.variadic:
            joiner = " or" if any_rank else ", or"
            return f"{signature}{joiner} use reduce_retracing=True"
        return "" if self.passes else signature

    def _variable_sizes(self, path: str, parameter: str, node: TensorLeaf, shape) -> str:
        """For a tf.Variable argument: an input_signature cannot hold a variable's spec,
        and in the general trace reduce_retracing=True makes, v.shape and tf.shape(v) are
        the shape of the variable that traced it (wrong sizes, no error); a TensorSpec
        reads the variable as a tensor, which works where it is only read."""
        if self.passes or parameter in self.keyword_only:
            return ""
        tensor = f"tf.TensorSpec(shape={shape}, dtype=tf.{node.dtype})"
        return (
            f"give `{path}` the spec {tensor} in input_signature if the function only reads "
            "it (the variable is then read as a tensor, which cannot be assigned to, and "
            f"{path}.shape has None where the sizes vary: read them with tf.shape({path})); "
            f"not reduce_retracing=True, whose general trace gives {path}.shape and "
            f"tf.shape({path}) the shape of the variable that traced it"
        )

    def variadic_note(self) -> str:
        """Why reduce_retracing (and, once a call passed keyword arguments through
        ``**kwargs``, an input_signature) is not advised for this function; '' for a
        plain one."""
        if not self.variadic:
            return ""
        written = " and ".join(self.variadic)
        keywords = next((each for each in self.variadic if each.startswith("**")), None)
        raises = (
            "reduce_retracing=True makes TensorFlow raise IndexError when a call passes "
            f"more arguments through {written} than an earlier trace had"
        )
        if self.passes:
            passed = ", ".join(f"`{name}`" for name in self.passes[:5])
            return (
                f" Neither input_signature nor reduce_retracing=True fits here: the function "
                f"takes {written} and calls pass keyword arguments through {keywords} "
                f"({passed}), which an input_signature refuses, and {raises}."
            )
        signature = (
            f"an input_signature likewise refuses any keyword argument passed through {keywords}"
            if keywords
            else "an input_signature takes only the positional arguments it lists"
        )
        return (
            f" Not reduce_retracing=True: the function takes {written}, and {raises}; {signature}."
        )


PLAIN = Fixes()


def _shape_change(
    path: str,
    old: TensorLeaf,
    new: TensorLeaf,
    general: Node,
    inside: str | None = None,
    fixes: Fixes = PLAIN,
) -> Change:
    before, after = shape_text(old.shape), shape_text(new.shape)
    if old.shape is None or new.shape is None or len(old.shape) != len(new.shape):
        subkind = "rank"
        what = f"rank changed from {_rank(old.shape)} to {_rank(new.shape)}"
        declare = fixes.declare_none(path, new, None, any_rank=True)
        keep = "keep the rank fixed (reshape or add the missing axis before the call)."
        fix = f"If the rank varies by design, {declare}; otherwise {keep}" if declare else keep
        fix = fix[:1].upper() + fix[1:]
    else:
        subkind = "dimension"
        pairs = list(zip(old.shape, new.shape, strict=True))
        changed = [i for i, (a, b) in enumerate(pairs) if a != b]
        what = ", ".join(f"dimension {i}: {pairs[i][0]} -> {pairs[i][1]}" for i in changed)
        relaxed = [None if i in changed else size for i, size in enumerate(new.shape)]
        declare = fixes.declare_none(path, new, relaxed)
        fix = (
            f"If that size varies by design, declare it None: {declare}; otherwise pad or "
            "bucket inputs to a few sizes."
            if declare
            else "Pad or bucket inputs to a few sizes: one trace each."
        )
    fix += fixes.variadic_note()
    if inside is not None:  # no spec can be given to a part of it: the data sets its shapes
        batch_only = subkind == "dimension" and changed == [0]
        # A dataset's element_spec shows a short last batch as None: two exact sizes there
        # are two batch sizes, which drop_remainder=True does not make one.
        two_batch_sizes = batch_only and ".element_spec" in path and None not in pairs[0]
        fix = _composite_shape_fix(path, inside, batch_only, fixes, two_batch_sizes)
    if isinstance(general, TensorLeaf) and general.shape != new.shape:
        fix = (
            f"reduce_retracing made this trace general ({shape_text(general.shape)}), so "
            "later calls that differ only there reuse it."
        )
    advice = f"argument `{path}` changed shape from {before} to {after} ({what}). {fix}"
    return Change(path, "shape", before, after, advice, subkind)


def _composite_shape_fix(
    path: str, inside: str, batch_only: bool, fixes: Fixes = PLAIN, two_batch_sizes: bool = False
) -> str:
    where = (
        f"`{path}` is part of {article(inside)} {inside} value (what a distributed dataset "
        "or a dataset iterator passes), so its shape comes from the data."
    )
    if two_batch_sizes:
        batch = (
            " Both sizes are exact, so the datasets were batched with different sizes (a "
            "smaller last batch shows in an element_spec as None): batch them with one size."
        )
    elif batch_only:
        batch = (
            " A smaller last batch is the usual cause: batch the dataset with "
            "drop_remainder=True (or repeat it without a count before batching) so that "
            "every batch has the same size."
        )
    else:
        batch = ""
    reduce = (
        ", or use reduce_retracing=True, which traces once more with the dimension None"
        if not fixes.variadic
        else ""
    )
    return (
        f"{where}{batch} If the size varies by design, let the dataset leave that dimension "
        f"None (its element_spec shows it){reduce}; otherwise pad or bucket the data to a "
        "few sizes." + fixes.variadic_note()
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
    target = _holding_both(before, after)
    why = (
        f" ({target} holds the values of both; a cast to {before} would change the {after} values)"
        if target != before
        else ""
    )
    advice = (
        f"argument `{path}` changed dtype from {before} to {after}. Each dtype needs its own "
        f"graph: cast before the call, e.g. tf.cast({path.split('[')[0]}, tf.{target}){why}, "
        f"or make the producer emit {target}."
    )
    return Change(path, "dtype", before, after, advice, "dtype")


def _dtype_kind(dtype: str) -> int:
    """Kinds in the order a value can be cast up without losing what it holds: 0 bool,
    1 integer, 2 floating, 3 complex; -1 for any other (string, resource)."""
    if dtype.startswith("complex"):
        return 3
    if dtype.startswith(("float", "bfloat")):
        return 2
    if dtype.startswith(("int", "uint")):
        return 1
    return 0 if dtype == "bool" else -1


def _holding_both(before: str, after: str) -> str:
    """The dtype to cast to: the first trace's, unless the other is of a kind that holds
    more (a float after an int: a cast to the int would truncate the floats)."""
    if _dtype_kind(after) > _dtype_kind(before) >= 0:
        return after
    return before


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
            f"({_as_tensor(new)}) only if the branches (or the loop's body) are tensor "
            "operations, which AutoGraph then turns into one tf.cond (or tf.while_loop)."
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
    "model, one model per configuration or test case), one trace per instance is expected."
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


def _root(path: str) -> str:
    """The argument a path is in: ``layers`` for ``layers[0]``, ``cfg`` for ``cfg.units``."""
    return re.split(r"[\[.]", path, maxsplit=1)[0]


def _object_change(path: str, before: str, after: str) -> Change:
    if path == "self":
        advice = (
            f"this is a method and `self` is a new object ({after}, not {before}): "
            f"{NEW_INSTANCE_ADVICE}"
        )
        return Change(path, "object", before, after, advice, "self")
    if _root(path) != path:  # an item of a container: a list of layers, say
        advice = (
            f"argument `{path}` is a different object ({after}, not {before}). "
            + objects_advice(path, (after,), re.match(r"\w+\[\d+\]", path) is not None)
        )
        return Change(path, "object", before, after, advice, "object")
    advice = (
        f"argument `{path}` is a different object ({after}, not {before}). Objects "
        "are matched by identity (or by __eq__ and __hash__ if the class defines them), "
        "and a collected object never matches again. Reuse one object, or pass the "
        "values it carries as tensors."
    )
    return Change(path, "object", before, after, advice, "object")


# TensorFlow's trace type of a mapping (default_types.Dict) compares keys, not its type.
_MAPPINGS = "a dict and an OrderedDict with the same keys count as one"


def _structure_change(
    path: str,
    before: str,
    after: str,
    weight: int = 1,
    objects: tuple[str, ...] = (),
    holds_variables: bool = False,
    fixes: Fixes = PLAIN,
) -> Change:
    """A container whose type, length or keys changed. ``objects``: the Python objects
    among its items (layers, models...), which no tensor can stand for; ``holds_variables``:
    it holds tf.Variables, which a tf.stack would turn into a copy of their values."""
    changed = f"argument `{path}` changed structure from {before} to {after}."
    if objects:
        sequence = after.startswith(("a list", "a tuple"))
        advice = f"{changed} {objects_advice(path, objects, sequence)}"
    elif holds_variables:
        advice = (
            f"{changed} Each container type, length and set of keys is a new trace "
            f"({_MAPPINGS}), and "
            "it holds tf.Variables: keep one container of them (made once, every call the "
            "same length and keys), or expect one trace per structure; tf.stack would pass "
            "a copy of their values, which the function could not assign to."
        )
    else:
        if not fixes.variadic:
            where = " and give that dimension None (input_signature or reduce_retracing=True)"
        elif not fixes.passes:
            where = " and give that dimension None in input_signature"
        else:
            where = ""
        advice = (
            f"{changed} Each container type, length and set of keys is a new trace "
            f"({_MAPPINGS}): keep "
            "the structure fixed, or pass one tensor instead of a container whose length "
            f"varies: stack the items (tf.stack){where}, or a tf.RaggedTensor if the items "
            "differ in size." + fixes.variadic_note()
        )
    return Change(path, "structure", before, after, advice, "container", weight)


def objects_advice(path: str, objects: tuple[str, ...], sequence: bool) -> str:
    """What to do about Python objects (layers, models) that an argument holds: each is
    matched by identity, so new objects trace again whatever the container's length."""
    shown = ", ".join(objects[:2]) + (f" and {len(objects) - 2} more" if len(objects) > 2 else "")
    root = _root(path)
    example = f" (e.g. [item.variables for item in {root}])" if sequence else ""
    return (
        f"`{root}` holds Python objects ({shown}), not tensors: TensorFlow matches each by "
        "identity (or by __eq__ and __hash__ if its class defines them), so other objects "
        "are a new trace whatever the length, and tf.stack cannot take them. One trace per "
        "set of objects is expected where each set lives long (one per model); to keep "
        "each set's trace with it, make the tf.function a method of the object that owns "
        "them (a tf.Module or Keras model), which traces once per instance. To share one "
        f"trace between models of one architecture, pass their variables instead{example} "
        "and compute with them in the function: variables are matched by dtype and shape, "
        "not by identity."
    )


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


def _new_argument(path: str, old: Node | None, new: Node | None, fixes: Fixes = PLAIN) -> Change:
    """An argument passed now and not to the closest earlier trace, or the reverse: one
    that came through ``*args`` or ``**kwargs`` (a named parameter takes its default)."""
    if old is None:
        after = describe(new)
        advice = (
            f"argument `{path}` was not passed to the closest earlier trace and is now "
            f"{after}. Pass the same arguments on every call (a fixed value, or rely on a "
            "default)."
        )
        if isinstance(new, PythonValue):
            advice = advice[: -len(".")] + _chosen_value_note(path, new)
        return Change(path, "new-argument", "not passed", after, advice, "passed")
    before = describe(old)
    advice = (
        f"argument `{path}` was passed to the closest earlier trace ({before}) and is "
        "not passed now. Pass the same arguments on every call."
    )
    return Change(path, "new-argument", before, "not passed", advice, "not-passed")


def _chosen_value_note(path: str, new: PythonValue) -> str:
    """For a Python value passed in some calls only (a keyword such as num_beams): passing
    it the same every time does not fit one the caller changes on purpose."""
    return (
        ", if it need not vary. If you change it on purpose, each distinct value is a "
        "trace of its own (and leaving it out another): accept one trace per value where "
        "the values are few, or bound them by passing it as a tensor on every call, "
        f"the calls that left it out included ({_as_tensor(new)}), so that its value no "
        "longer chooses a trace."
    )
