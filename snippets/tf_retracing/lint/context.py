"""Where a node runs: its scope (module, class, function or lambda, with what it binds)
and the loops and guards around it in that scope."""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field

from tf_retracing.lint.syntax import FUNCTION


@dataclass(eq=False)
class Scope:
    """A module, class, function or lambda body, and what it binds."""

    node: ast.AST
    parent: Scope | None
    class_: ast.ClassDef | None = None  # for a method: the class it belongs to
    bindings: dict[str, list[ast.AST]] = field(default_factory=lambda: defaultdict(list))
    calls: list[ast.Call] = field(default_factory=list)
    returns: list[ast.AST] = field(default_factory=list)
    escaping: set[str] = field(default_factory=set)  # declared global or nonlocal

    @property
    def function(self) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
        return self.node if isinstance(self.node, (*FUNCTION, ast.Lambda)) else None

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<lambda>")


@dataclass(frozen=True, eq=False)
class Context:
    """Where a node runs: its scope, the loops around it in that scope, under a guard."""

    scope: Scope
    loops: tuple[ast.AST, ...] = ()
    conditional: bool = False

    @property
    def function(self):
        return self.scope.function

    @property
    def class_(self) -> ast.ClassDef | None:
        return self.scope.class_

    def looped(self, loop: ast.AST) -> Context:
        return Context(self.scope, (*self.loops, loop), self.conditional)

    def guarded(self) -> Context:
        return self if self.conditional else Context(self.scope, self.loops, True)
