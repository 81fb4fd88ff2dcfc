"""Whether a slice whose bounds both move with a loop keeps one width: ``x[i : i + 4]``
does, ``x[i : 2 * i]`` does not. Each bound is read as a sum of the loop's names times
numbers or other names (``i * k + k``); a bound read otherwise is left undecided."""

from __future__ import annotations

import ast
from collections import Counter

from tf_retracing.lint.syntax import walk

# A bound as {varying name: {factor: count}}: the factor is the product of the other names
# it is multiplied by ("" for none), the count its number. What reads no varying name is a
# constant and drops out of a width.
Linear = dict[str, Counter]


def width_varies(lower: ast.AST, upper: ast.AST, varying) -> str | None:
    """The varying name the width ``upper - lower`` follows, or None when the width is the
    same on every iteration or cannot be told."""
    low, high = _linear(lower, varying), _linear(upper, varying)
    if low is None or high is None or set(low) != set(high):
        return None  # unread, or two names (``x[start:end]``) whose relation is not read
    for name in sorted(high):
        difference = Counter(high[name])
        difference.subtract(low[name])
        if any(count != 0 for count in difference.values()):
            return name
    return None


def _linear(node: ast.AST, varying) -> Linear | None:
    if not any(isinstance(n, ast.Name) and n.id in varying for n in walk(node)):
        return {}  # a constant, whatever it is
    if isinstance(node, ast.Name):
        return {node.id: Counter({"": 1})}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _linear(node.operand, varying)
        sign = -1 if isinstance(node.op, ast.USub) else 1
        return None if inner is None else _scaled(inner, sign, "")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        left, right = _linear(node.left, varying), _linear(node.right, varying)
        if left is None or right is None:
            return None
        return _sum(left, _scaled(right, -1, "") if isinstance(node.op, ast.Sub) else right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _product(node.left, node.right, varying) or _product(node.right, node.left, varying)
    return None


def _product(term: ast.AST, factor: ast.AST, varying) -> Linear | None:
    """``term * factor`` where ``factor`` reads no varying name: a number or a name."""
    if _linear(factor, varying) != {}:
        return None
    inner = _linear(term, varying)
    if inner is None:
        return None
    if isinstance(factor, ast.Constant) and isinstance(factor.value, int | float):
        return _scaled(inner, factor.value, "")
    return _scaled(inner, 1, ast.unparse(factor))


def _scaled(form: Linear, number: float, name: str) -> Linear:
    return {
        varying: Counter(
            {"*".join(sorted(filter(None, [*key.split("*"), name]))): count * number
             for key, count in factors.items()}
        )
        for varying, factors in form.items()
    }  # fmt: skip


def _sum(left: Linear, right: Linear) -> Linear:
    total = {name: Counter(factors) for name, factors in left.items()}
    for name, factors in right.items():
        total.setdefault(name, Counter()).update(factors)
    return total
