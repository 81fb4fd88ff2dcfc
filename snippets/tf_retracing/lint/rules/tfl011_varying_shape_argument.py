"""TFL011: an array whose shape changes every iteration, passed to a tf.function or to a
Keras model's predict or train_on_batch: one trace per shape for a tf.function; for a
Keras step (traced with reduce_retracing=True) one more trace, with the dimension None."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.context import Context
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.keras_receivers import keeps_shape, predicts_like_a_keras_model
from tf_retracing.lint.rule import Rule
from tf_retracing.lint.slice_width import width_varies
from tf_retracing.lint.syntax import walk
from tf_retracing.lint.varying import varying_values

# Constructors whose result's shape comes from some arguments: name -> (positions of
# those arguments, or None for all; keywords that give the shape).
_SHAPE_ARGUMENTS: dict[str, tuple[tuple[int, ...] | None, frozenset[str]]] = {
    **{f"numpy.{n}": ((0,), frozenset({"shape"})) for n in ("ones", "zeros", "empty", "full")},
    "numpy.arange": (None, frozenset({"start", "stop", "step"})),
    "numpy.random.rand": (None, frozenset()),
    "numpy.random.randn": (None, frozenset()),
    "numpy.random.random": ((0,), frozenset({"size"})),
    "numpy.random.normal": ((2,), frozenset({"size"})),
    "numpy.random.uniform": ((2,), frozenset({"size"})),
    "numpy.random.randint": ((2,), frozenset({"size"})),
    **{f"tensorflow.{n}": ((0,), frozenset({"shape", "dims"})) for n in ("ones", "zeros", "fill")},
    "tensorflow.range": (None, frozenset({"start", "limit", "delta"})),
    "tensorflow.random.normal": ((0,), frozenset({"shape"})),
    "tensorflow.random.uniform": ((0,), frozenset({"shape"})),
    "tensorflow.sparse.SparseTensor": ((2,), frozenset({"dense_shape"})),
    "tensorflow.SparseTensor": ((2,), frozenset({"dense_shape"})),
}
# Keras (3 and tf-keras) traces its steps with reduce_retracing=True.
_KERAS_COST = (
    "Keras traces its step with reduce_retracing=True, so the second shape traces it "
    "once more with that dimension None, and later shapes of the same rank reuse that trace"
)
# How many names bound in the loop an argument is followed through (``x = x[None]``).
_FOLLOWED = 3
_KERAS_STEPS = frozenset({"predict", "predict_on_batch", "train_on_batch", "test_on_batch"})


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    for call, ctx in facts.calls:
        if not ctx.loops:
            continue
        target = _target(facts, call, ctx)
        if target is None:
            continue
        varying = varying_values(facts).names(ctx)
        if not varying:
            continue
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            name = _varying_dimension(facts, argument, ctx, varying)
            if name is not None:
                yield (
                    argument,
                    f"an array whose shape follows `{name}` is passed to {target}: "
                    + (_KERAS_COST if target.startswith("model.") else "one trace per shape"),
                )


def _target(facts: ModuleFacts, call: ast.Call, ctx: Context) -> str | None:
    traced = facts.traced_function_of(call, ctx)
    if traced is not None:
        if traced.has_signature or traced.reduce_retracing:
            return None  # generalises: a None dimension after the first new shape
        return f"{traced.name}()"
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in _KERAS_STEPS
        and predicts_like_a_keras_model(facts, call, ctx)
    ):
        return f"model.{func.attr}"
    return None


def _varying_dimension(
    facts, argument: ast.AST, ctx: Context, varying, depth: int = _FOLLOWED
) -> str | None:
    """The varying name a shape is built from: ``np.ones([1, i])``, ``x[:i]``, or a name
    the loop binds to one of those, seen through conversions and added axes
    (``window = seq[:, :i]``, then ``np.array(window)[None]``)."""
    value = _unwrapped(facts, argument)
    if isinstance(value, ast.Name):
        if depth == 0:
            return None
        for bound in facts.bound_in_the_same_loop(value.id, ctx):
            found = _varying_dimension(facts, bound, ctx, varying, depth - 1)
            if found is not None:
                return found
        return None
    shape_arguments = (
        _SHAPE_ARGUMENTS.get(facts.qualified_name(value.func) or "")
        if isinstance(value, ast.Call)
        else None
    )
    if shape_arguments is not None:
        positions, keywords = shape_arguments
        dimensions = [
            a for i, a in enumerate(value.args) if positions is None or i in positions
        ] + [k.value for k in value.keywords if k.arg in keywords]
        return _reads_varying(dimensions, varying)
    if isinstance(value, ast.Subscript):
        regrown = _rebound_in_the_loop(facts, value.value, ctx)
        return _varying_slice_width(value.slice, varying, regrown)
    return None


def _unwrapped(facts: ModuleFacts, value: ast.AST) -> ast.AST:
    """``np.ones([1, n]).astype("float32")``, ``tf.constant(...)`` and ``x[None]`` have
    the varying dimension of what they convert."""
    for _ in range(8):
        if isinstance(value, ast.Subscript) and _adds_axes(facts, value.slice):
            value = value.value
        elif not isinstance(value, ast.Call):
            return value
        elif isinstance(value.func, ast.Attribute) and value.func.attr == "astype":
            value = value.func.value
        elif keeps_shape(facts, value) and value.args:
            value = value.args[0]
        else:
            return value
    return value


def _adds_axes(facts: ModuleFacts, index: ast.AST) -> bool:
    """``[None]``, ``[np.newaxis, ...]``, ``[None, :]``: new axes, every other one whole."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(_new_axis(facts, part) for part in parts) and all(
        _new_axis(facts, part)
        or (isinstance(part, ast.Constant) and part.value is Ellipsis)
        or (isinstance(part, ast.Slice) and part.lower is part.upper is part.step is None)
        for part in parts
    )


def _new_axis(facts: ModuleFacts, part: ast.AST) -> bool:
    return (isinstance(part, ast.Constant) and part.value is None) or (
        facts.qualified_name(part) in ("numpy.newaxis", "tensorflow.newaxis")
    )


def _rebound_in_the_loop(facts: ModuleFacts, array: ast.AST, ctx: Context) -> bool:
    """``X = np.concatenate([X, y])`` in the loop: the array's own length changes there."""
    return isinstance(array, ast.Name) and bool(facts.bound_in_the_same_loop(array.id, ctx))


def _varying_slice_width(index: ast.AST, varying, regrown: bool = False) -> str | None:
    """``x[:n]`` or ``x[n:]``: the width follows ``n``. With both bounds varying, the width
    is worked out where it can be (slice_width): ``x[i : 2 * i]`` widens, while
    ``x[i * k : (i + 1) * k]`` keeps one width and is left alone, as is a width that cannot
    be told. So is ``x[n:]`` on an array the loop rebinds (``regrown``): a forecast that
    appends one step per iteration and reads ``X[:, step:]`` keeps a window of one width."""
    slices = index.elts if isinstance(index, ast.Tuple) else [index]
    for part in slices:
        if not isinstance(part, ast.Slice):
            continue
        lower = _reads_varying([part.lower], varying) if part.lower is not None else None
        upper = _reads_varying([part.upper], varying) if part.upper is not None else None
        if regrown and part.upper is None and not _negative(part.lower):
            continue  # to the end of an array that grows: the width may well be constant
        if (lower is None) != (upper is None):
            return lower or upper
        if lower is not None and upper is not None:
            widening = width_varies(part.lower, part.upper, varying)
            if widening is not None:
                return widening
    return None


def _negative(bound: ast.AST | None) -> bool:
    """``x[-n:]``: the last ``n`` items, whatever the array's length."""
    return isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub)


def _reads_varying(nodes: list[ast.AST], varying) -> str | None:
    for node in nodes:
        for inner in walk(node):
            if isinstance(inner, ast.Name) and inner.id in varying:
                return inner.id
    return None


RULE = Rule(
    code="TFL011",
    name="varying-shape-argument",
    summary="An array whose shape is built from a loop counter passed to a tf.function or "
    "to a Keras model's predict or train_on_batch in that loop.",
    fix="Give the tf.function reduce_retracing=True or an input_signature with None "
    "dimensions, or pad to a few fixed shapes.",
    page="dynamic-shapes/#letting-tensorflow-generalise-reduce_retracingtrue",
    check=check,
    found=(
        """
model = keras.Sequential([keras.layers.Dense(1)])
for i in range(1, 300):
    model.train_on_batch(np.ones([1, i]), np.ones([1, 1]))
""",
        """
@tf.function
def total(x):
    return tf.reduce_sum(x)
data = tf.ones([100])
for n in range(1, 10):
    total(data[:n])
""",
    ),
    clean=(
        # a window of constant width that moves with the counter
        """
@tf.function
def total(x):
    return tf.reduce_sum(x)
data = tf.ones([100])
for i in range(4):
    total(data[i * 25 : (i + 1) * 25])
""",
        # the function generalises: an input_signature with a None dimension
        """
@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def total(x):
    return tf.reduce_sum(x)
data = tf.ones([100])
for n in range(1, 10):
    total(data[:n])
""",
        # reduce_retracing: one more trace, with a None dimension, takes every length
        """
@tf.function(reduce_retracing=True)
def total(x):
    return tf.reduce_sum(x)
for n in range(1, 10):
    total(tf.ones([n]))
""",
        # the shape is the same on every iteration; only the values change
        """
@tf.function
def total(x):
    return tf.reduce_sum(x)
for n in range(1, 10):
    total(tf.fill([4], float(n)))
""",
    ),
)
