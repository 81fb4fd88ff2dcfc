"""The ``tf.function``s a module defines, and which calls call them: decorated functions
and methods, ``f = tf.function(g)`` at any level (class attributes, ``self.f = ...``),
``functools.partial`` of one, and ``tf.function(f)(x)``. Part of ``ModuleFacts``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from tf_retracing.lint.context import Context
from tf_retracing.lint.syntax import FUNCTION

_TF_FUNCTION = frozenset(
    {
        "tensorflow.function",
        "tensorflow.compat.v2.function",
        "tensorflow.python.eager.def_function.function",
        "tensorflow.python.eager.polymorphic_function.polymorphic_function.function",
    }
)


@dataclass
class TracedFunction:
    """A ``tf.function`` the module defines, and the Python function it traces if known."""

    name: str
    definition: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None
    has_signature: bool
    autograph: bool
    reduce_retracing: bool = False  # generalises shapes after the first retrace
    shifted: bool = False  # called through functools.partial: positions are not its own


class TfFunctionFacts:
    """The tf.function part of ``ModuleFacts`` (it reads the pass's records)."""

    def is_tf_function(self, node: ast.AST) -> bool:
        return self.qualified_name(node) in _TF_FUNCTION

    def tf_function_options(self, node: ast.AST) -> tuple[bool, bool, bool] | None:
        """(has an input_signature, autograph on, reduce_retracing on) if ``node`` is
        ``tf.function`` or a call of it used as a decorator or a wrapper; None otherwise."""
        if self.is_tf_function(node):
            return False, True, False
        if isinstance(node, ast.Call) and self.is_tf_function(node.func):
            options = {k.arg: k.value for k in node.keywords}
            signature = options.get("input_signature")
            if signature is None and len(node.args) > 1:
                signature = node.args[1]
            has_signature = signature is not None and not (
                isinstance(signature, ast.Constant) and signature.value is None
            )
            autograph = options.get("autograph")
            autograph_off = isinstance(autograph, ast.Constant) and autograph.value is False
            relaxed = [options.get(k) for k in ("reduce_retracing", "experimental_relax_shapes")]
            reduce_retracing = any(
                isinstance(value, ast.Constant) and value.value is True for value in relaxed
            )
            return has_signature, not autograph_off, reduce_retracing
        return None

    def decorator_options(self, definition: ast.AST) -> tuple[bool, bool, bool] | None:
        for decorator in getattr(definition, "decorator_list", ()):
            options = self.tf_function_options(decorator)
            if options is not None:
                return options
        return None

    def wrapper_call(self, node: ast.AST) -> tuple[bool, bool, bool] | None:
        """The options of ``tf.function(target, ...)``, the call that wraps a target."""
        if (
            isinstance(node, ast.Call)
            and self.is_tf_function(node.func)
            and (node.args or any(k.arg == "func" for k in node.keywords))
        ):
            return self.tf_function_options(node)
        return None

    def wrapped_target(self, call: ast.Call, ctx: Context) -> ast.AST | None:
        """What ``tf.function(target)`` traces, when the file defines it."""
        target = call.args[0] if call.args else next(k.value for k in call.keywords)
        if isinstance(target, ast.Lambda):
            return target
        if isinstance(target, ast.Name):
            return self.unique_definition(target.id)
        if isinstance(target, ast.Attribute):
            cls = self.instance_class(target.value, ctx)
            return self.method(cls, target.attr) if cls is not None else None
        return None

    def _find_traced_functions(self) -> None:
        for definitions in self.definitions.values():
            for definition in definitions:
                options = self.decorator_options(definition)
                if options is not None:
                    self._register(definition.name, definition, options, self.context(definition))
        for node, ctx in self.assignments:
            if len(node.targets) != 1:
                continue
            target = node.targets[0]
            name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
            options = self.wrapper_call(node.value)
            if name is not None and options is not None:
                definition = self.wrapped_target(node.value, ctx)
                self._register(name, definition, options, ctx, target)
            elif name is not None and isinstance(node.value, ast.Call):
                made = self.returned_tf_function(node.value, ctx)  # step = make_step()
                if made is not None:
                    options = (made.has_signature, made.autograph, made.reduce_retracing)
                    self._register(name, made.definition, options, ctx, target)

    def _register(self, name, definition, options, ctx: Context, target=None) -> None:
        traced = TracedFunction(name, definition, *options)
        if isinstance(ctx.scope.node, ast.ClassDef):  # a method, or a class attribute
            self.traced_by_attribute[(ctx.scope.node.name, name)] = traced
        elif isinstance(target, ast.Attribute):
            cls = self.instance_class(target.value, ctx)
            if cls is not None:
                self.traced_by_attribute[(cls.name, name)] = traced
        elif self._only_traced_binding(name, ctx):
            self.traced_by_name[(id(ctx.scope), name)] = traced

    def _only_traced_binding(self, name: str, ctx: Context) -> bool:
        """The scope binds ``name`` to this tf.function and otherwise only to the plain
        function it wraps (``def step(...)`` then ``step = tf.function(step)``)."""
        values = ctx.scope.bindings.get(name, [])
        traced = [
            value
            for value in values
            if self.decorator_options(value) is not None
            or self.wrapper_call(value) is not None
            or isinstance(value, ast.Call)
        ]
        others = [value for value in values if not any(value is t for t in traced)]
        return len(traced) == 1 and all(isinstance(value, FUNCTION) for value in others)

    def traced_by_name_at(self, name: str, ctx: Context) -> TracedFunction | None:
        """The tf.function ``name`` holds where ``ctx`` reads it."""
        scope = self.binding_scope(name, ctx)
        return None if scope is None else self.traced_by_name.get((id(scope), name))

    def traced_function_of(self, call: ast.Call, ctx: Context) -> TracedFunction | None:
        """The tf.function a call calls, if this file defines it."""
        func = call.func
        if isinstance(func, ast.Name):
            traced = self.traced_by_name_at(func.id, ctx)
            if traced is not None:
                return traced
            cls = self.instance_class(func, ctx)  # an instance whose __call__ is traced
            if cls is not None:
                return self._traced_attribute(cls, "__call__")
            return self._through_partial(func.id, ctx)
        if isinstance(func, ast.Attribute):
            cls = self.instance_class(func.value, ctx)
            if cls is not None:
                return self._traced_attribute(cls, func.attr)
            return None
        options = self.wrapper_call(func)  # tf.function(f, ...)(args)
        if options is not None:
            definition = self.wrapped_target(func, ctx)
            return TracedFunction(
                getattr(definition, "name", "the tf.function"), definition, *options
            )
        return None

    def _traced_attribute(self, cls: ast.ClassDef, name: str) -> TracedFunction | None:
        found = self.traced_by_attribute.get((cls.name, name))
        if found is not None:
            return found
        for base in cls.bases:
            local = self.unique_class(base.id) if isinstance(base, ast.Name) else None
            if local is not None and local is not cls:
                return self._traced_attribute(local, name)
        return None

    def _through_partial(self, name: str, ctx: Context) -> TracedFunction | None:
        """``step = functools.partial(train_step, model)``: calls of ``step`` are calls of
        ``train_step`` with its first parameters already given."""
        values = self.values_of(name, ctx)
        if len(values) != 1 or not isinstance(values[0], ast.Call):
            return None
        value = values[0]
        if self.qualified_name(value.func) != "functools.partial" or not value.args:
            return None
        inner = value.args[0]
        base = self.traced_by_name_at(inner.id, ctx) if isinstance(inner, ast.Name) else None
        if base is not None:
            return TracedFunction(
                base.name,
                base.definition,
                base.has_signature,
                base.autograph,
                base.reduce_retracing,
                shifted=True,
            )
        return None

    def traced_calls(self) -> Iterator[tuple[ast.Call, TracedFunction, Context]]:
        for call, ctx in self.calls:
            traced = self.traced_function_of(call, ctx)
            if traced is not None:
                yield call, traced, ctx

    def traced_bodies(self) -> list[TracedFunction]:
        """Each tf.function of the file whose Python function the file defines, once."""
        seen: dict[int, TracedFunction] = {}
        for traced in [*self.traced_by_name.values(), *self.traced_by_attribute.values()]:
            if traced.definition is not None and not isinstance(traced.definition, ast.Lambda):
                seen.setdefault(id(traced.definition), traced)
        # A decorated function whose name is bound more than once (a notebook or a script
        # that defines f again, cell after cell): calls of the name cannot be told apart,
        # but each body is still traced when called, so the body rules read every one.
        for definitions in self.definitions.values():
            for definition in definitions:
                options = self.decorator_options(definition)
                if options is not None and id(definition) not in seen:
                    seen[id(definition)] = TracedFunction(definition.name, definition, *options)
        for call, ctx in self.calls:  # tf.function(f) not bound to a name: tf.function(f)(x)
            options = self.wrapper_call(call)
            if options is not None:
                target = self.wrapped_target(call, ctx)
                if isinstance(target, FUNCTION) and id(target) not in seen:
                    seen[id(target)] = TracedFunction(target.name, target, *options)
        return list(seen.values())

    def creates_tf_function(self, node: ast.AST, ctx: Context) -> bool:
        """A call of a function of the file that returns a new tf.function each call."""
        return self.returned_tf_function(node, ctx) is not None

    def returned_tf_function(self, node: ast.AST, ctx: Context) -> TracedFunction | None:
        """The tf.function a call of the file's (not memoized) function returns, new on
        each call: ``return tf.function(f)``, or a decorated inner def returned."""
        if not isinstance(node, ast.Call):
            return None
        target = self.called_function(node, ctx)
        if not isinstance(target, FUNCTION) or self.is_memoized(target):
            return None
        scope = self.scopes[id(target)]
        inner = Context(scope)
        for value in scope.returns:
            candidates = [value]
            if isinstance(value, ast.Name):
                candidates = scope.bindings.get(value.id, [])
            for candidate in candidates:
                options = self.wrapper_call(candidate)
                if options is not None:
                    return TracedFunction(
                        getattr(target, "name", "the tf.function"),
                        self.wrapped_target(candidate, inner),
                        *options,
                    )
                if isinstance(candidate, FUNCTION):
                    options = self.decorator_options(candidate)
                    if options is not None:
                        return TracedFunction(candidate.name, candidate, *options)
        return None
