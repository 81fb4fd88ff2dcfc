"""Names that only ever stand for models held elsewhere: ``net = self.net``, ``m = models[k]``,
``for net in nets``. A loop that reaches a Keras model through such a name predicts with
that model as surely as one that names it."""

from __future__ import annotations

import ast
from collections.abc import Callable

from tf_retracing.lint.context import Context
from tf_retracing.lint.facts import ModuleFacts

# How many aliases deep a name is followed (``m = net``, ``net = self.net``).
_DEPTH = 3

IsModel = Callable[[ModuleFacts, ast.AST, Context], bool]


def alias_sources(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> list[ast.AST] | None:
    """What ``receiver`` stands for, when every value its name is bound to is another
    name, an attribute, an item of a container, a choice between such (``a if c else b``)
    or the target of a loop over a container: those expressions. None otherwise."""
    if not isinstance(receiver, ast.Name):
        return None
    sources = []
    for value in facts.values_of(receiver.id, ctx):
        if isinstance(value, ast.Tuple) and isinstance(facts.parent(value), ast.For):
            value = facts.parent(value)  # ``for key, net in models.items()``
        parts = _parts(value, receiver.id)
        if parts is None:
            return None
        sources += parts
    return sources or None


def _parts(value: ast.AST, name: str) -> list[ast.AST] | None:
    if isinstance(value, ast.IfExp):
        body, orelse = _parts(value.body, name), _parts(value.orelse, name)
        return None if body is None or orelse is None else body + orelse
    if isinstance(value, ast.For):
        return [value] if _loop_item(value, name) else None
    if isinstance(value, ast.Name | ast.Attribute | ast.Subscript):
        return [value]
    return None


def _loop_item(loop: ast.For, name: str) -> bool:
    """``for net in nets``, ``for net in models.values()``, ``for key, net in
    models.items()``: the loop binds ``name`` to the container's items."""
    target = loop.target
    if isinstance(target, ast.Name):
        return target.id == name
    return (
        _method(loop.iter) == "items"
        and isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(target.elts[1], ast.Name)
        and target.elts[1].id == name
    )


def _method(node: ast.AST) -> str | None:
    func = node.func if isinstance(node, ast.Call) and not node.args else None
    return func.attr if isinstance(func, ast.Attribute) else None


def _container(iterable: ast.AST) -> ast.AST:
    """``models.values()`` and ``models.items()`` go over ``models``."""
    return iterable.func.value if _method(iterable) in ("values", "items") else iterable


def aliases_models(facts: ModuleFacts, receiver: ast.AST, ctx: Context, is_model: IsModel) -> bool:
    """Every expression ``receiver`` stands for is a Keras model (``is_model``): a name or
    attribute that is one, or an item of a list, tuple or dict whose every item the file
    builds as one (``[load_model(p) for p in paths]``)."""
    guard: set = facts.__dict__.setdefault("_following_aliases", set())
    if not isinstance(receiver, ast.Name) or len(guard) >= _DEPTH:
        return False
    key = (id(facts.binding_scope(receiver.id, ctx)), receiver.id)
    if key in guard:
        return False
    guard.add(key)
    try:
        sources = alias_sources(facts, receiver, ctx)
        return bool(sources) and all(_is_model(facts, s, ctx, is_model) for s in sources)
    finally:
        guard.discard(key)


def _is_model(facts: ModuleFacts, source: ast.AST, ctx: Context, is_model: IsModel) -> bool:
    """``source`` is a model, and the same one on every iteration of a loop around ``ctx``:
    a loop over the models themselves (``for net in nets: net.predict(x)``) or an item
    picked by the loop (``models[name]``) predicts once with each model, no repeat."""
    source_ctx = facts.contexts.get(id(source), ctx)
    if isinstance(source, ast.For):
        repeated = any(loop is not source for loop in ctx.loops)
        return repeated and _holds_models(facts, _container(source.iter), source_ctx)
    if isinstance(source, ast.Subscript):
        picked = any(
            isinstance(n, ast.Name) and _bound_per_iteration(facts, n.id, ctx)
            for n in ast.walk(source.slice)
        )
        return not picked and _holds_models(facts, source.value, source_ctx)
    return is_model(facts, source, source_ctx)


def _bound_per_iteration(facts: ModuleFacts, name: str, ctx: Context) -> bool:
    """A loop around ``ctx`` binds ``name``: in its body, or as its target."""
    targets = (getattr(loop, "target", None) for loop in ctx.loops)
    return bool(facts.bound_in_the_same_loop(name, ctx)) or any(
        isinstance(n, ast.Name) and n.id == name for t in targets if t for n in ast.walk(t)
    )


def _holds_models(facts: ModuleFacts, container: ast.AST, ctx: Context) -> bool:
    """A list, tuple or dict (written out, or a comprehension), or a name only ever bound to
    one, whose every item is a model the file builds."""
    if isinstance(container, ast.Name):
        values = [v for v in facts.values_of(container.id, ctx) if not isinstance(v, ast.Name)]
        return bool(values) and all(
            _holds_models(facts, v, facts.contexts.get(id(v), ctx)) for v in values
        )
    items = _items(container)
    return bool(items) and all(
        facts.builds_model(item, facts.contexts.get(id(item), ctx)) for item in items
    )


def _items(container: ast.AST) -> list[ast.AST]:
    if isinstance(container, ast.List | ast.Tuple | ast.Set):
        return list(container.elts)
    if isinstance(container, ast.Dict):
        return list(container.values)
    if isinstance(container, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        return [container.elt]
    if isinstance(container, ast.DictComp):
        return [container.value]
    return []
