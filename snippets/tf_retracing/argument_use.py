"""How a traced function uses one of its arguments, read from its source without running it.

The advice for a Python value that changed depends on it: a number that feeds tensor
operations can become a tensor, but a value that picks a Python object (a dict key, a list
index, an attribute name) cannot: ``{"a": 1}[tf.constant("a")]`` fails ("Tensor is
unhashable"), and so does a list indexed by a tensor. This module must never import
TensorFlow; ``uses`` returns an empty set whenever the source cannot be read, and the
explainer then gives its general advice.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap

# What a use of the argument tells.
CHOOSES = "chooses"  # picks a Python object: d[arg], items[arg], getattr(obj, arg)
BRANCHES = "branches"  # decides an `if`, `while` or conditional expression
STEP = "step"  # feeds only the step of a tf.summary call: TensorFlow wants an int64 there
FEEDS = "feeds"  # any other use (arithmetic, a call argument): a tensor may do

_SUMMARY_WRITERS = {"scalar", "histogram", "image", "audio", "text", "write"}


def uses(
    python_function, argument: str, tensor_arguments: frozenset[str] = frozenset()
) -> frozenset:
    """The kinds of use of ``argument`` (a parameter name) in ``python_function``'s body.
    A subscript of another argument that is a tensor (named in ``tensor_arguments``) is
    tensor indexing, which a tensor index can do: it counts as FEEDS."""
    target = getattr(python_function, "__func__", python_function)
    code = getattr(target, "__code__", None)
    return frozenset() if code is None else _uses_in(code, argument, tensor_arguments)


@functools.lru_cache(maxsize=1024)
def _uses_in(code, argument: str, tensor_arguments: frozenset[str]) -> frozenset:
    """``uses`` for a code object, read once: a function retracing 10,000 times is read
    once, not at every trace."""
    tree = _parsed(code)
    if tree is None:
        return frozenset()
    return _kinds(tree, argument, tensor_arguments, ())


def _kinds(tree: ast.AST, name: str, tensor_arguments, seen: tuple) -> frozenset:
    """The kinds of use of the local ``name`` in ``tree``; ``seen``: the names followed
    through assignments so far, the argument first (see ``_feeds_only_steps``)."""
    return frozenset(
        _kind_of_use(node, parents, tensor_arguments, (*seen, name))
        for node, parents in _walk(tree)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    )


@functools.lru_cache(maxsize=256)
def _parsed(code) -> ast.AST | None:
    """The function or lambda whose code object is ``code``, parsed once per code."""
    try:
        lines, first = inspect.getsourcelines(code)
    except (OSError, TypeError):
        return None
    try:
        module = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:  # a lambda cut out of a longer expression
        return None
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # A decorated function's code starts at its first decorator.
            decorators = getattr(node, "decorator_list", [])
            start = min([decorator.lineno for decorator in decorators] + [node.lineno])
            if start + first - 1 == code.co_firstlineno:
                return node
    return None


def _walk(tree: ast.AST, parents: tuple = ()):
    """Every node under ``tree`` with its ancestors, innermost last; nested functions and
    classes are their own scope and are not entered."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield child, (*parents, tree)
        yield from _walk(child, (*parents, tree))


def _kind_of_use(
    name: ast.Name, parents: tuple, tensor_arguments: frozenset[str], seen: tuple
) -> str:
    parent = parents[-1]
    if isinstance(parent, ast.Subscript) and parent.slice is name:
        indexed = parent.value
        if isinstance(indexed, ast.Name) and indexed.id in tensor_arguments:
            return FEEDS
        return CHOOSES
    if isinstance(parent, ast.Call) and name in parent.args:
        callee = parent.func
        if isinstance(callee, ast.Name) and callee.id in ("getattr", "hasattr", "setattr"):
            return CHOOSES if parent.args.index(name) == 1 else FEEDS
    for ancestor, inner in zip(reversed(parents), reversed((*parents[1:], name)), strict=True):
        if isinstance(ancestor, (ast.If, ast.While, ast.IfExp)) and ancestor.test is inner:
            return BRANCHES
        if _is_summary_step(ancestor, parents):  # step=epoch, or step=epoch * 10 + i
            return STEP
        if isinstance(ancestor, ast.stmt):
            if _feeds_only_steps(ancestor, inner, parents[0], tensor_arguments, seen):
                return STEP
            break
    return FEEDS


def _is_summary_step(node: ast.AST, parents: tuple) -> bool:
    if not (isinstance(node, ast.keyword) and node.arg == "step"):
        return False
    call = parents[parents.index(node) - 1]  # the call the keyword is given to
    return isinstance(call, ast.Call) and _is_summary_call(call)


def _feeds_only_steps(
    statement: ast.stmt, inner: ast.AST, tree: ast.AST, tensor_arguments, seen: tuple
) -> bool:
    """Whether the use (inside ``inner``, a part of ``statement``) is assigned to names,
    ``step = epoch * 10 + i`` or ``for step in range(epoch * 10, ...)``, that the
    function uses only as tf.summary steps: an epoch that reaches a step that way."""
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        if inner is not statement.value:
            return False
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    elif isinstance(statement, (ast.For, ast.AsyncFor)) and inner is statement.iter:
        targets = [statement.target]
    else:
        return False
    if not all(isinstance(target, ast.Name) for target in targets):
        return False
    names = {target.id for target in targets}
    if seen[0] in names:  # the argument itself reassigned (x = x + 1): not followed
        return False
    return all(  # a name assigned from itself (step = step + 1) is followed once
        _kinds(tree, other, tensor_arguments, seen) == {STEP} for other in names - set(seen)
    )


def _is_summary_call(call: ast.Call) -> bool:
    """``tf.summary.scalar(...)`` and the like, by the name written at the call."""
    callee = call.func
    return (
        isinstance(callee, ast.Attribute)
        and callee.attr in _SUMMARY_WRITERS
        and isinstance(callee.value, ast.Attribute)
        and callee.value.attr == "summary"
    )
