"""The one dtype to pass a number as (issue 41), checked against the graph's operations."""

from __future__ import annotations

import ast
import functools
import heapq
import io
import linecache
import textwrap
import tokenize
from collections.abc import Iterator
from typing import Any

import numpy as np
import tensorflow as tf

# --- The one dtype to pass a number as (issue 41) ---------------------------------------
# A number the graph made into several dtypes (x * n made it float32, tf.range(n) int32)
# needs one dtype as a tensor. Which dtype lets the body run is checked here against the
# traced graph, not by tracing the function again with a TensorSpec per candidate: that
# would run the user's Python once more per dtype, after the call that traced and outside
# its context (its prints, its appends to lists, its own counters of traces, a layer that
# builds), and cost a trace of a possibly large model at every trace of it. Reading the
# graph costs none of that. Each Const holding the value becomes, in thought, a tensor of
# the candidate dtype, and the new dtype is followed through the operations it feeds by
# their definitions, as TensorFlow binds an operation's type attributes from its inputs:
# an operation fails it where the input has a fixed dtype (tf.one_hot's depth is int32),
# where the attribute's allowed dtypes exclude it, or where another input of the same
# attribute is a tensor of the old dtype (x * n with x float32). A constant there is a
# Python number the call converts (n * 2; tf.range's start and delta, which it casts), so
# it takes the new dtype if it holds its value exactly. A call of a traced function
# (tf.cond, tf.while_loop, a nested tf.function), an operation on a variable, an unknown
# operation, and a result of the function that would change dtype all fail it: the fixed
# program must run and return what the traced one returns. Where no dtype fits every use,
# the advice passes the one that fits most and casts it back, at each use it does not
# fit, to the dtype that use was traced with, which rebuilds the traced graph's dtypes:
# then the fixed program runs by construction. The check sees only the uses the graph
# shows: not a number used in Python (range(n), n / 2, a shape list [n, 2]).
_DEFAULT_DTYPES = {"int": "int32", "float": "float32"}  # what tf.constant makes of each


def dtype_to_pass(value, uses: list, graph) -> tuple[str, tuple, tuple]:
    """``(dtype, cast_at, fails_as)`` for a number whose constants in ``graph`` (or in
    the graphs of the functions it calls) are the Const operations ``uses`` (see the
    comment above and ``td.PythonValue``)."""
    graphs = _Graphs(graph)
    candidates = sorted({use.outputs[0].dtype for use in uses}, key=lambda dtype: dtype.name)
    misfits = {}  # dtype -> {use it does not fit: why}
    for dtype in candidates:
        changed = [use for use in uses if use.outputs[0].dtype != dtype]
        found = {use: graphs.misfit([use], dtype) for use in changed}
        misfits[dtype] = {use: why for use, why in found.items() if why}
        rest = [use for use in changed if use not in misfits[dtype]]
        together = graphs.misfit(rest, dtype) if len(rest) > 1 else None
        if together:  # each fits alone but not all at once: cast every one
            misfits[dtype] = {use: misfits[dtype].get(use, together) for use in changed}
    default = _DEFAULT_DTYPES.get(type(value).__name__)

    def cost(dtype) -> tuple:
        exact = all(_casts_exactly(value, dtype, use.outputs[0].dtype) for use in misfits[dtype])
        kept = sum(use.outputs[0].dtype == dtype for use in uses)
        return (len(misfits[dtype]), not exact, dtype.name != default, -kept)

    chosen = min(candidates, key=cost)
    cast_at = tuple((use.outputs[0].dtype.name, _where(use)) for use in misfits[chosen])
    fails_as = tuple(
        (dtype.name, next(iter(misfits[dtype].values())))
        for dtype in candidates
        if misfits[dtype] and dtype != chosen
    )
    return chosen.name, cast_at, fails_as


class _Graphs:
    """The traced graph and those of the functions it calls, each read once: its
    operations in the order they were made, each one's place among them, its results."""

    def __init__(self, outer):
        self.outer, self.read = outer, {}

    def _of(self, graph) -> tuple:
        if id(graph) not in self.read:
            operations = graph.get_operations()
            order = {op.name: index for index, op in enumerate(operations)}
            self.read[id(graph)] = operations, order, {t.name for t in graph.outputs}
        return self.read[id(graph)]

    def misfit(self, constants: list, dtype) -> str | None:
        """Why the operations do not take a tensor of ``dtype`` in place of the Const
        operations ``constants`` (``fails at Mul, line 5 (...)``), or None if they do and
        the results keep their dtypes. A tensor passed in place of a number used inside
        a tf.cond branch or a loop body is captured there: the check runs in that graph,
        whose results are what the branch or body returns."""
        for graph in {id(c.graph): c.graph for c in constants}.values():
            inside = [c for c in constants if c.graph is graph]
            why = self._misfit_in(graph, inside, dtype)
            if why:
                return why
        return None

    def _misfit_in(self, graph, constants: list, dtype) -> str | None:
        from tensorflow.python.framework import op_def_registry  # operation definitions

        operations, order, outputs = self._of(graph)
        changed = {constant.outputs[0].name: dtype for constant in constants}
        waiting = [order[op.name] for c in constants for op in c.outputs[0].consumers()]
        heapq.heapify(waiting)
        done = set()
        while waiting:  # in the order they were made: an operation after all its inputs
            index = heapq.heappop(waiting)
            if index in done:
                continue
            done.add(index)
            op = operations[index]
            definition = op_def_registry.get(op.type)
            if definition is None:
                return f"reaches {_where(op)}, an operation the check does not know"
            bound = _bind_changed_types(op, definition, changed)
            if bound is None:
                calls = any(arg.type_list_attr for arg in definition.input_arg)
                return f"{'is not checked through' if calls else 'fails at'} {_where(op)}"
            for tensor, new in _changed_outputs(op, definition, bound):
                changed[tensor.name] = new
                if tensor.name in outputs:
                    return self._result_changed(graph, op, changed)
                for consumer in tensor.consumers():
                    heapq.heappush(waiting, order[consumer.name])
        return None

    def _result_changed(self, graph, op, changed: dict) -> str:
        # TensorFlow adds the Identity of each result after the body returned: the
        # operation that made the value is the one to name.
        if op.type == "Identity":
            op = next(t.op for t in op.inputs if t.name in changed)
        what = "a result" if graph is self.outer else "what a tf.cond branch or loop body returns"
        return f"changes the dtype of {what}, at {_where(op)}"


def _arguments(op, tensors, args) -> Iterator[tuple[Any, Any]]:
    """Each of ``tensors`` (the inputs or outputs of ``op``) with the definition of its
    argument among ``args``."""
    tensors = iter(tensors)
    for arg in args:
        if arg.number_attr:
            count = op.get_attr(arg.number_attr)
        elif arg.type_list_attr:
            count = len(op.get_attr(arg.type_list_attr))
        else:
            count = 1
        for _ in range(count):
            yield next(tensors), arg


def _bind_changed_types(op, definition, changed: dict) -> dict | None:
    """The type attributes of ``op`` that its changed inputs set, or None where the
    operation cannot take them (see the comment above ``dtype_to_pass``)."""
    bound: dict = {}
    inputs = list(_arguments(op, op.inputs, definition.input_arg))
    for tensor, arg in inputs:
        if tensor.name not in changed:
            continue
        new = changed[tensor.name]
        if not arg.type_attr or bound.get(arg.type_attr, new) != new:
            return None  # a fixed dtype, a list of dtypes (a call), or two new dtypes
        bound[arg.type_attr] = new
    allowed = {attr.name: attr.allowed_values.list.type for attr in definition.attr}
    for name, new in bound.items():
        if allowed.get(name) and new.as_datatype_enum not in allowed[name]:
            return None
    for tensor, arg in inputs:
        if tensor.dtype in (tf.resource, tf.variant) and bound:
            return None  # a variable or a dataset keeps its dtype
        if tensor.name in changed or arg.type_attr not in bound:
            continue
        if not _converts_exactly(tensor, bound[arg.type_attr]):
            return None  # another tensor of the old dtype, as x in x * n
    return bound


def _changed_outputs(op, definition, bound: dict) -> Iterator[tuple[Any, Any]]:
    """The outputs of ``op`` whose dtype follows a type attribute the inputs changed,
    each with its new dtype."""
    for tensor, arg in _arguments(op, op.outputs, definition.output_arg):
        if arg.type_attr in bound and tensor.dtype != bound[arg.type_attr]:
            yield tensor, bound[arg.type_attr]


def _converts_exactly(tensor, dtype) -> bool:
    """Whether ``tensor`` is a constant (a Python number the call converted) that holds
    its value exactly in ``dtype``."""
    if tensor.op.type != "Const" or not (dtype.is_integer or dtype.is_floating):
        return False
    held = tf.make_ndarray(tensor.op.get_attr("value"))
    with np.errstate(all="ignore"):
        return bool(np.all(held.astype(dtype.as_numpy_dtype) == held))


def _casts_exactly(value, dtype, target) -> bool:
    """Whether ``tf.cast(tf.constant(value, dtype), target)`` is what the traced graph had
    (value converted to ``target`` directly): 16777217 passed as float32 is not."""
    with np.errstate(all="ignore"):
        through = np.asarray(value).astype(dtype.as_numpy_dtype).astype(target.as_numpy_dtype)
        return bool(through == np.asarray(value).astype(target.as_numpy_dtype))


# TensorFlow names what tape.gradient adds after the operation it differentiates
# ("gradient_tape/mul/Mul" for "mul"), all made on the tape.gradient line.
_GRADIENT_SCOPE = "gradient_tape/"


def _where(op) -> str:
    """An operation and the line of the watched function's own body where the value
    enters it: ``Mul, line 5 (`y = x * n`)``; for an operation made inside a helper the
    function calls, the line of that call, where the argument is passed; for one that
    tape.gradient made, the operation it differentiates and that one's line; for a
    Const, the operations it feeds."""
    if op.type == "Const":
        feeds = sorted({_forward(c).type for c in op.outputs[0].consumers()})
        name = " and ".join(feeds) or "nothing"
    else:
        forward = _forward(op)
        name = op.type if forward is op else f"the gradient of {forward.type}"
        op = forward
    frames = _body_frames(op)
    if not frames:
        return name
    frame = _in_own_body(frames)
    line = _without_comment(linecache.getline(frame.filename, frame.lineno)).strip()
    if len(line) > 60:
        line = line[:57] + "..."
    return f"{name}, line {frame.lineno}" + (f" (`{line}`)" if line else "")


def _in_own_body(frames: list):
    """The innermost of ``frames`` inside the watched function's own source (the function
    around the first of them): a line in a tf.cond branch or loop body of it, but for an
    operation made in a helper it calls, the line that calls the helper, where the
    argument is passed (the helper may name it otherwise)."""
    first = frames[0]
    span = _function_span(first.filename, first.lineno)
    if span is None:
        return first
    inside = [
        frame
        for frame in frames
        if frame.filename == first.filename and span[0] <= frame.lineno <= span[1]
    ]
    return inside[-1]


@functools.lru_cache(maxsize=64)
def _function_spans(filename: str) -> tuple:
    """Every function's (first line, last line) in a source file; () if it cannot be read."""
    source = "".join(linecache.getlines(filename))
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    return tuple(
        (node.lineno, node.end_lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    )


def _function_span(filename: str, lineno: int) -> tuple[int, int] | None:
    """The innermost function of the file around line ``lineno``."""
    around = [span for span in _function_spans(filename) if span[0] <= lineno <= span[1]]
    return min(around, key=lambda span: span[1] - span[0], default=None)


def _forward(op):
    """The operation a gradient operation differentiates (``op`` if it is none, or that
    one cannot be found in its graph)."""
    if not op.name.startswith(_GRADIENT_SCOPE):
        return op
    forward_name = op.name[len(_GRADIENT_SCOPE) :].rsplit("/", 1)[0]
    try:
        return op.graph.get_operation_by_name(forward_name)
    except (KeyError, ValueError):
        return op


def _made_from(constant, name: str) -> bool:
    """Whether the function made the Const ``constant`` from the argument ``name``: a line
    of the function (or of what it calls) that made it names the argument. A constant
    that only has the same value, tf.range(y)'s delta 1 beside an argument 1, is not a
    use of it. Where no line can be read (no source), every constant counts. Asked only
    where the constants have several dtypes, and where none is made from it by this
    test (it reached the line through another name, lr = params["lr"]), all count."""
    statements = [_statement(frame.filename, frame.lineno) for frame in _body_frames(constant)]
    statements = [text for text in statements if text.strip()]
    return not statements or any(name in _names_in(text) for text in statements)


def _without_comment(line: str) -> str:
    try:
        for token in tokenize.generate_tokens(io.StringIO(line.strip()).readline):
            if token.type == tokenize.COMMENT:
                return line.strip()[: token.start[1]]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a line of a longer statement: kept whole
    return line


def _names_in(source: str) -> set[str]:
    """The names ``source`` reads, not an attribute's (``self.n``), a string's or a
    comment's words."""
    names, after_dot = set(), False
    try:
        for token in tokenize.generate_tokens(io.StringIO(textwrap.dedent(source)).readline):
            if token.type == tokenize.NAME and not after_dot:
                names.add(token.string)
            after_dot = token.type == tokenize.OP and token.string == "."
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a statement cut short: the names read so far
    return names


def _body_frames(op) -> list:
    """The frames of the function's source (and of what it calls) that made ``op``: not
    a library's, and not those above the explainer's hook, which are the caller's (its
    line may name the argument too; TensorFlow makes a result's Identity there)."""
    frames = list(getattr(op, "traceback", None) or [])
    hooks = [i for i, frame in enumerate(frames) if _in_package(frame.filename, "tf_retracing")]
    inside = frames[hooks[-1] + 1 :] if hooks else frames
    return [frame for frame in inside if not _inside_libraries(frame.filename)]


def _statement(filename: str, lineno: int) -> str:
    """The source from line ``lineno`` until its brackets close (a call over several
    lines), at most 20 lines."""
    text, depth = "", 0
    for number in range(lineno, lineno + 20):
        line = linecache.getline(filename, number)
        text += line
        depth += sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
        if depth <= 0 or not line:
            break
    return text


def _in_package(filename: str, package: str) -> bool:
    return package in filename.replace("\\", "/").split("/")


def _inside_libraries(filename: str) -> bool:
    return any(_in_package(filename, name) for name in ("tensorflow", "keras", "tf_retracing"))


def _same_number(value: int | float, constant: np.ndarray) -> bool:
    """Whether ``constant`` is ``value`` converted to its dtype (0.7 as float32 is not the
    Python float 0.7, but it is what the function made of it)."""
    if constant.dtype.kind in "iu" and not float(value).is_integer():
        return False
    try:
        converted = np.asarray(value).astype(constant.dtype)
    except (OverflowError, ValueError):
        return False
    if converted.item() != value and constant.dtype.kind in "iu":  # wrapped around
        return False
    return bool(converted == constant)
