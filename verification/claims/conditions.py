"""A condition on results figures, as a claim marker writes it, read and evaluated.

``[[proof: holds FILE [PREFIX] "CONDITION"]]`` states that CONDITION holds for the
figures of the results file FILE. A figure is written in braces, as its key path (list
positions and keys joined by ``/``), after PREFIX when one is given::

    holds benchmarks/results/cpu.json scenarios/many_tenants/extra/tenants
        "{14/traces_per_1000} == 1000 and {16/p50_ms/value} < {12/p50_ms/value}"

A sentence that says one way is faster, that a count is zero or that a figure stays within
a margin is then checked against the figures each time the site is built: a new run that
turns the comparison around fails the build instead of leaving the sentence wrong.

A key with ``*`` in place of a list position, ``{*/xla_speedup_median}``, stands for that
figure of every item of the list, written out one by one: it is read only as the
arguments of ``min`` or ``max`` ("every row at least 1.0": ``min({*/x}) >= 1``).

Only comparisons, ``and``/``or``/``not``, arithmetic (``+ - * /``), ``abs``, ``min``,
``max``, numbers and figures are read; anything else is refused with the marker's place.
The condition is evaluated here, node by node, never by ``eval``.
"""

from __future__ import annotations

import ast
import operator
import re

FIGURE = re.compile(r"\{(?P<key>[^{}]+)\}")

_COMPARE = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_FUNCTIONS = {"abs": abs, "min": min, "max": max}


class ConditionError(ValueError):
    """A condition that cannot be read or evaluated; the caller adds the marker's place."""


EVERY = "*"


def reads_every(condition: str) -> bool:
    """Whether ``condition`` holds a ``{a/*/b}`` figure."""
    return any(EVERY in match["key"].strip().split("/") for match in FIGURE.finditer(condition))


def expand_every(condition: str, prefix: str, length_of) -> str:
    """``condition`` with each ``{a/*/b}`` written as ``{a/0/b}, {a/1/b}, ...``, one per
    item of the list at ``a`` (``length_of`` gives its length from its full key)."""

    def expanded(match: re.Match) -> str:
        parts = match["key"].strip().strip("/").split("/")
        if EVERY not in parts:
            return match.group()
        at = parts.index(EVERY)
        if EVERY in parts[at + 1 :]:
            raise ConditionError(f'"{condition}": one * per figure')
        head, tail = "/".join(parts[:at]), "/".join(parts[at + 1 :])
        items = length_of(full_key(head, prefix) if head else prefix.strip("/"))
        if not items:
            raise ConditionError(f'"{condition}": {{{match["key"]}}} names no item')
        keys = ("/".join(part for part in (head, str(i), tail) if part) for i in range(items))
        return ", ".join(f"{{{key}}}" for key in keys)

    return FIGURE.sub(expanded, condition)


def figure_keys(condition: str, prefix: str = "") -> list[str]:
    """The full key path of every figure the condition reads, in order, once each."""
    keys = [full_key(match["key"], prefix) for match in FIGURE.finditer(condition)]
    if not keys:
        raise ConditionError(f'"{condition}" reads no figure: write each one as {{key/path}}')
    return list(dict.fromkeys(keys))


def evaluate(condition: str, prefix: str, figures: dict[str, object]) -> bool:
    """Whether ``condition`` holds for ``figures`` (full key path -> value)."""
    names: dict[str, object] = {}

    def named(match: re.Match) -> str:
        name = f"figure_{len(names)}"
        names[name] = figures[full_key(match["key"], prefix)]
        return name

    try:
        tree = ast.parse(FIGURE.sub(named, condition), mode="eval")
    except SyntaxError as error:
        raise ConditionError(f'"{condition}" is not a condition: {error.msg}') from error
    result = _value(tree.body, names, condition)
    if not isinstance(result, bool):
        raise ConditionError(f'"{condition}" is not a comparison (it gives {result!r})')
    return result


def full_key(key: str, prefix: str) -> str:
    """A figure's key path as written in braces, after the marker's prefix."""
    key = key.strip().strip("/")
    return f"{prefix.strip('/')}/{key}" if prefix.strip("/") else key


def _value(node: ast.AST, names: dict[str, object], condition: str) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Compare):
        return _compare(node, names, condition)
    if isinstance(node, ast.BoolOp):
        values = [_value(v, names, condition) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        operand = _value(node.operand, names, condition)
        return (not operand) if isinstance(node.op, ast.Not) else -_number(operand, condition)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left = _number(_value(node.left, names, condition), condition)
        right = _number(_value(node.right, names, condition), condition)
        return _ARITHMETIC[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        arguments = [_number(_value(a, names, condition), condition) for a in node.args]
        return _FUNCTIONS[node.func.id](*arguments)
    raise ConditionError(f'"{condition}": {ast.unparse(node)!r} is not allowed in a condition')


def _compare(node: ast.Compare, names: dict[str, object], condition: str) -> bool:
    left = _value(node.left, names, condition)
    for op, right_node in zip(node.ops, node.comparators, strict=True):
        if type(op) not in _COMPARE:
            raise ConditionError(f'"{condition}": only < <= > >= == != compare figures')
        right = _value(right_node, names, condition)
        if not _COMPARE[type(op)](left, right):
            return False
        left = right
    return True


def _number(value: object, condition: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConditionError(f'"{condition}": {value!r} is not a number')
    return value
