"""What the body of a ``tf.function`` holds while it is traced: which names are graph
tensors, and what its callers pass it. Shared by the rules that look inside bodies."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator

from tf_retracing.lint.context import Context
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.syntax import parameters, walk
from tf_retracing.lint.tf_functions import TracedFunction

# Calls on a tensor that give a Python value even while tracing.
_PYTHON_VALUED_CALLS = frozenset({"isinstance", "len", "hasattr", "callable", "type", "id"})
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "name", "device", "graph"})
_PYTHON_VALUED_TF = frozenset(
    {"tensorflow.is_tensor", "tensorflow.executing_eagerly", "tensorflow.inside_function"}
)
# TensorFlow constructors whose result is float32 unless given a dtype.
_FLOAT32_BY_DEFAULT = frozenset(
    f"tensorflow.{name}"
    for name in ("zeros", "ones", "random.normal", "random.uniform", "random.truncated_normal")
)


class TracedBodies:
    """The file's tf.functions with a known body, and what calls pass to them."""

    def __init__(self, facts: ModuleFacts):
        self.facts = facts
        self.functions = facts.traced_bodies()
        self._tensor_positions: dict[int, set[int]] = defaultdict(set)
        self._float32_arguments: dict[int, set[int | str]] = defaultdict(set)
        self._graph_locals: dict[int, set[str]] = {}
        self._names_float32: dict[int, bool] = {}
        self._collect_arguments()

    def _collect_arguments(self) -> None:
        for call, traced, _ in self.facts.traced_calls():
            if traced.definition is None or traced.shifted:
                continue
            key = id(traced.definition)
            for position, argument in enumerate(call.args):
                if self.returns_tensor(argument):
                    self._tensor_positions[key].add(position)
                if self.is_float32(argument):
                    self._float32_arguments[key].add(self.argument_key(traced, position))
            for keyword in call.keywords:
                if keyword.arg is not None and self.is_float32(keyword.value):
                    self._float32_arguments[key].add(keyword.arg)

    def nodes(self, traced: TracedFunction) -> list[tuple[ast.AST, Context]]:
        return self.facts.body_nodes(traced.definition)

    def returns_tensor(self, node: ast.AST) -> bool:
        """A call of TensorFlow that returns a tensor."""
        return (
            self.facts.calls_tensorflow(node)
            and self.facts.qualified_name(node.func) not in _PYTHON_VALUED_TF
        )

    def parameters(self, traced: TracedFunction) -> list[str]:
        return [n for n in parameters(traced.definition) if n not in {"self", "cls"}]

    # --- tensors in the body ---------------------------------------------------------------

    def _locals_from_graph(self, traced: TracedFunction) -> set[str]:
        key = id(traced.definition)
        if key not in self._graph_locals:
            params = set(self.parameters(traced))
            values: dict[str, list[ast.AST]] = {}
            for node, _ in self.nodes(traced):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        # ``reads, labels = inputs`` unpacks a parameter: each part is one too
                        for name in _target_names(target):
                            values.setdefault(name, []).append(node.value)
            # Followed to a fixed point: a local computed from such a local is one too
            # (q = layer(tf.expand_dims(features[a], 0)) after features = net(x)).
            graph = set(params)
            changed = True
            while changed:
                found = {
                    name
                    for name, assigned in values.items()
                    if all(_reads(v) & graph or self.returns_tensor(v) for v in assigned)
                }
                changed = not found <= graph
                graph |= found
            self._graph_locals[key] = graph - params
        return self._graph_locals[key]

    def is_graph_value(self, traced: TracedFunction, expr: ast.AST) -> bool:
        """A parameter, a local computed from one, or a TensorFlow call: symbolic here."""
        if isinstance(expr, ast.Call):
            return self.returns_tensor(expr)
        while isinstance(expr, ast.Subscript):
            expr = expr.value
        names = set(self.parameters(traced)) | self._locals_from_graph(traced)
        return isinstance(expr, ast.Name) and expr.id in names

    def tensor_parameters(self, traced: TracedFunction) -> set[str]:
        params = self.parameters(traced)
        if traced.has_signature:
            return set(params)
        positions = self._tensor_positions.get(id(traced.definition), set())
        return {params[i] for i in positions if i < len(params)}

    def is_tensor_expression(self, traced: TracedFunction, expr: ast.AST) -> bool:
        """A tensor while tracing: a TensorFlow operation, or a tensor parameter used as a
        value (not through ``.shape``, ``isinstance`` or ``is None``)."""
        tensors = self.tensor_parameters(traced)
        for node in _value_nodes(expr):
            if isinstance(node, ast.Name) and node.id in tensors:
                return True
            if isinstance(node, ast.Call) and self.returns_tensor(node):
                return True
        return False

    # --- float32 ------------------------------------------------------------------------

    def argument_key(self, traced: TracedFunction, where: int | str) -> int | str:
        """A call's position as the name of the parameter it fills, so that one argument
        passed by position in one call and by name in another is one argument."""
        if isinstance(where, str):
            return where
        args = traced.definition.args
        named = [a.arg for a in (*args.posonlyargs, *args.args) if a.arg not in {"self", "cls"}]
        return named[where] if where < len(named) else where

    def takes_float32(self, traced: TracedFunction, where: int | str) -> bool:
        """Some call passes float32 there, or the body names float32: a float32 pipeline."""
        where = self.argument_key(traced, where)
        if where in self._float32_arguments.get(id(traced.definition), set()):
            return True
        key = id(traced.definition)
        if key not in self._names_float32:
            self._names_float32[key] = any(
                (isinstance(node, ast.Attribute) and node.attr == "float32")
                or (isinstance(node, ast.Constant) and node.value == "float32")
                for node, _ in self.nodes(traced)
            )
        return self._names_float32[key]

    def is_float32(self, node: ast.AST) -> bool:
        """A Python float, or a tensor or array made float32 (by default or by its dtype)."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, float)
        if not isinstance(node, ast.Call):
            return False
        name = self.facts.qualified_name(node.func) or ""
        dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
        if name == "tensorflow.cast" and len(node.args) == 2:
            dtype = node.args[1]
        if dtype is not None:
            return (isinstance(dtype, ast.Attribute) and dtype.attr == "float32") or (
                isinstance(dtype, ast.Constant) and dtype.value == "float32"
            )
        if name == "tensorflow.constant" and len(node.args) == 1:
            return any(
                isinstance(n, ast.Constant) and isinstance(n.value, float)
                for n in walk(node.args[0])
            )
        return name in _FLOAT32_BY_DEFAULT and len(node.args) <= 1


def bodies(facts: ModuleFacts) -> TracedBodies:
    """One TracedBodies per module, shared by the rules."""
    return facts.derived(TracedBodies)


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _value_nodes(expr: ast.AST) -> Iterator[ast.AST]:
    """Nodes of ``expr`` whose value takes part, skipping static attributes and Python tests."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Attribute) and node.attr in _STATIC_ATTRIBUTES:
            continue
        if isinstance(node, ast.Call) and (
            isinstance(node.func, ast.Name) and node.func.id in _PYTHON_VALUED_CALLS
        ):
            continue
        if isinstance(node, ast.Compare) and all(
            isinstance(op, ast.Is | ast.IsNot) for op in node.ops
        ):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _target_names(target: ast.AST) -> list[str]:
    """The names an assignment's target binds: ``x``, or each of ``a, (b, *c)``."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _target_names(element)]
    return []
