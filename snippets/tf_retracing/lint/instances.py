"""What the rules know about the file's own classes: which class an instance is of (``self``,
a name bound to calls of a class, a parameter every call fills with one, what a function
of the file returns), and which of the file's functions or methods a call runs.

A mixin of ``ModuleFacts`` (tf_retracing.lint.facts): it reads the pass's records.
"""

from __future__ import annotations

import ast

from tf_retracing.lint.context import Context, Scope
from tf_retracing.lint.syntax import FUNCTION


def _is_self_attribute(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _is_own_class_attribute(node: ast.AST, ctx) -> bool:
    """``Predictor.model = ...`` in a method of ``Predictor``: an attribute every instance
    reads through ``self`` (or the class's name), as it would one set on ``self``."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and ctx.class_ is not None
        and node.value.id == ctx.class_.name
    )


class InstanceFacts:
    """The class and call part of ``ModuleFacts``."""

    def base_names(self, cls: ast.ClassDef) -> list[str]:
        return [self.qualified_name(b) or getattr(b, "id", "") for b in cls.bases]

    def instance_class(self, receiver: ast.AST, ctx: Context) -> ast.ClassDef | None:
        """The file's class whose instance ``receiver`` is: ``self`` in a method, a name
        bound only to calls of that class, or a call of it (``Job().run(x)``)."""
        if isinstance(receiver, ast.Name) and receiver.id in {"self", "cls"}:
            return ctx.class_
        if isinstance(receiver, ast.Call):
            return self.class_of_values([receiver])
        if _is_self_attribute(receiver) and ctx.class_ is not None:
            # self.actor, which the class's methods set only to instances of one class
            values = self.self_attribute_values(ctx.class_, receiver.attr)
            return self.class_of_values(values) if values else None
        if not isinstance(receiver, ast.Name):
            return None
        found = self.about_name("instance of", receiver.id, ctx, self.class_of_values)
        if found is None:
            passed = self._parameter_classes(receiver.id, ctx)
            found = passed[0] if len(passed) == 1 else None
        return found

    def _parameter_classes(self, name: str, ctx: Context) -> list[ast.ClassDef]:
        """``def play(agent, env): ... agent.act(s)``: the file's classes whose instances
        every call of the function in the file passes to the parameter (else none)."""
        if self.__dict__.get("_indexing") or name in {"self", "cls"}:
            return []
        scope = self.binding_scope(name, ctx)
        passed = self.passed_arguments(name, scope) if scope is not None else []
        found: dict[int, ast.ClassDef] = {}
        for argument, argument_ctx in passed:
            if isinstance(argument, ast.Name) and argument.id not in {"self", "cls"}:
                classes = self.about_name(
                    "instances of",
                    argument.id,
                    argument_ctx,
                    lambda v, n=argument.id: self._classes_of_values(v, n),
                )
            else:
                classes = self._classes_of_values([argument])
            if not classes:
                return []
            found.update((id(cls), cls) for cls in classes)
        return list(found.values())

    def self_attribute_values(self, cls: ast.ClassDef, attribute: str) -> list[ast.AST]:
        """The values the class's methods assign to ``self.<attribute>``."""
        return self.self_attributes(cls).get(attribute, [])

    def self_attributes(self, cls: ast.ClassDef) -> dict[str, list[ast.AST]]:
        """Attribute -> the values the class's methods assign to ``self.<attribute>``."""
        if "_self_attributes" not in self.__dict__:
            index: dict[int, dict[str, list[ast.AST]]] = {}
            for node, node_ctx in self.assignments:
                if node_ctx.class_ is None:
                    continue
                for target in node.targets:
                    if _is_self_attribute(target) or _is_own_class_attribute(target, node_ctx):
                        attributes = index.setdefault(id(node_ctx.class_), {})
                        attributes.setdefault(target.attr, []).append(node.value)
            self._self_attributes = index
        return self._self_attributes.get(id(cls), {})

    def class_of_values(self, values: list[ast.AST]) -> ast.ClassDef | None:
        """The file's class when every value is a call of it, else None."""
        classes = {
            id(cls): cls
            for value in values
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            for cls in [self.unique_class(value.func.id)]
            if cls is not None
        }
        if len(classes) == 1 and len(values) == sum(1 for v in values if isinstance(v, ast.Call)):
            return next(iter(classes.values()))
        return None

    def method(self, cls: ast.ClassDef, name: str) -> ast.AST | None:
        for node in cls.body:
            if isinstance(node, FUNCTION) and node.name == name:
                return node
        for base in cls.bases:  # a base class of the same file
            local = self.unique_class(base.id) if isinstance(base, ast.Name) else None
            if local is not None and local is not cls:
                found = self.method(local, name)
                if found is not None:
                    return found
        return None

    # --- what a call reaches ---------------------------------------------------------------

    def called_function(self, call: ast.Call, ctx: Context) -> ast.AST | None:
        """The function of this file a call runs: a function by name, a method through
        ``self`` or an instance of the file's class, or a class's ``__init__``."""
        func = call.func
        if isinstance(func, ast.Name):
            definition = self.unique_definition(func.id) or self._redefined_before(call, ctx)
            if definition is not None:
                return definition
            cls = self.unique_class(func.id)
            return self.method(cls, "__init__") if cls is not None else None
        if isinstance(func, ast.Attribute):
            cls = self.instance_class(func.value, ctx)
            if cls is not None:
                return self.method(cls, func.attr)
            return self._shared_method(func.value, func.attr, ctx)
        return None

    def _redefined_before(self, call: ast.Call, ctx: Context) -> ast.AST | None:
        """A notebook that defines ``model_test`` in one cell, calls it, then defines it
        again in a later cell and calls that: a call at module level runs the definition
        last made before it, when the name is bound only by module-level ``def``s."""
        name = call.func.id
        definitions = self.definitions.get(name, [])
        module_level = all(self.context(d).scope is self.module_scope for d in definitions)
        if ctx.scope is not self.module_scope or not module_level:
            return None
        if len(definitions) < 2 or self.binding_counts[name] != len(definitions):
            return None
        at = (call.lineno, call.col_offset)
        before = [d for d in definitions if (d.lineno, d.col_offset) < at]
        return max(before, key=lambda d: d.lineno, default=None)

    def called_functions(self, call: ast.Call, ctx: Context) -> list[ast.AST]:
        """Every function of this file the call may run: ``called_function``'s, or for a
        name bound to instances of several of the file's classes, each class's method."""
        found = self.called_function(call, ctx)
        if found is not None:
            return [found]
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return []
        if func.value.id in {"self", "cls"}:
            return []
        classes = self.about_name(
            "instances of", func.value.id, ctx, lambda v: self._classes_of_values(v, func.value.id)
        )
        classes = classes or self._parameter_classes(func.value.id, ctx)
        methods = {id(m): m for cls in classes for m in [self.method(cls, func.attr)] if m}
        return list(methods.values())

    def _shared_method(self, receiver: ast.AST, name: str, ctx: Context) -> ast.AST | None:
        """``agent = DDQNAgent(...)`` on one branch, ``agent = DQNAgent(...)`` on the other:
        a name bound only to instances of several of the file's classes, whose method of
        that name is the same one for all (a base class's, inherited)."""
        if not isinstance(receiver, ast.Name) or receiver.id in {"self", "cls"}:
            return None
        classes = self.about_name(
            "instances of", receiver.id, ctx, lambda v: self._classes_of_values(v, receiver.id)
        )
        classes = classes or self._parameter_classes(receiver.id, ctx)
        methods = {id(m): m for cls in classes for m in [self.method(cls, name)]}
        if not classes or len(methods) != 1:
            return None
        return next(iter(methods.values()))

    def _classes_of_values(
        self, values: list[ast.AST], name: str | None = None, made: bool = True
    ) -> list[ast.ClassDef]:
        """The file's classes, when every value is a call of one of them (else none); with
        ``made``, also what a function of the file that makes them returns
        (``agent, train = setup_agent(env)``)."""
        found: dict[int, ast.ClassDef] = {}
        pending = list(values)
        while pending:
            value = pending.pop()
            if isinstance(value, ast.IfExp):  # ``A() if greedy else B()``
                pending += [value.body, value.orelse]
                continue
            classes = self._made_classes(value, name) if made else []
            if classes:
                found.update((id(cls), cls) for cls in classes)
                continue
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
                return []
            cls = self.unique_class(value.func.id)
            if cls is None:
                return []
            found[id(cls)] = cls
        return list(found.values())

    def _made_classes(self, value: ast.AST, name: str | None) -> list[ast.ClassDef]:
        """``setup_agent(env)`` (or ``agent, train = setup_agent(env)``, the part at the
        name's position): a function of the file whose every return gives an instance of
        the file's classes there, bound in its body."""
        position = None
        assign = self.parent(value)
        if isinstance(value, ast.Tuple) and isinstance(assign, ast.Assign):
            names = [getattr(e, "id", None) for e in value.elts]
            if name is None or None in names or names.count(name) != 1:
                return []
            value, position = assign.value, names.index(name)
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return []
        function = self.unique_definition(value.func.id)
        if function is None or id(function) not in self.scopes:
            return []
        scope = self.scope_of(function)
        return self._returned_classes(scope, scope.returns, position)

    def _returned_classes(self, scope: Scope, returns: list, index: int | None):
        found: dict[int, ast.ClassDef] = {}
        for returned in returns:
            if index is not None:
                if not (isinstance(returned, ast.Tuple) and index < len(returned.elts)):
                    return []
                returned = returned.elts[index]
            if isinstance(returned, ast.Name):
                bound = scope.bindings.get(returned.id, [])
            else:
                bound = [returned]
            classes = self._classes_of_values(bound, made=False)
            if not classes:
                return []
            found.update((id(cls), cls) for cls in classes)
        return list(found.values())
