"""Small facts about Python syntax that every part of the linter uses."""

from __future__ import annotations

import ast
from collections.abc import Iterator

FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
LOOP_STATEMENTS = (ast.For, ast.AsyncFor, ast.While)
GUARDS = (ast.If, ast.IfExp, ast.Try, ast.Match) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)


def parameters(function: ast.AST | None) -> list[str]:
    if function is None or not isinstance(function, (*FUNCTION, ast.Lambda)):
        return []
    args = function.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return names + [a.arg for a in (args.vararg, args.kwarg) if a is not None]


def children(node: ast.AST) -> Iterator[ast.AST]:
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    yield item


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node``, without recursion."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def is_constant(node: ast.AST, kinds: tuple[type, ...] = (int, float)) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    if not isinstance(node, ast.Constant):
        return False
    if isinstance(node.value, bool):
        return bool in kinds
    return isinstance(node.value, kinds)
