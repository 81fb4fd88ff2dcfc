"""What the rules know about one module, gathered in one pass over its tree.

``ModuleFacts`` walks the tree once, without recursion (a deeply nested expression cannot
exhaust the stack), and records for every node its context: the scope it runs in, the
loops around it in that scope, whether a condition guards it. From that pass it derives,
in linear time, what several rules share: imported names, the scopes' bindings, the
``tf.function``s the file defines, which of the file's functions a call reaches, and which
functions run once per iteration of a loop or once per request.

Everything here is local to one file: a name the file does not define is unknown, and
unknown means no finding.
"""

from __future__ import annotations

import ast
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
LOOP_STATEMENTS = (ast.For, ast.AsyncFor, ast.While)
GUARDS = (ast.If, ast.IfExp, ast.Try, ast.Match) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)

_CONTEXT_CHANGERS = (*SCOPES, *COMPREHENSIONS, *LOOP_STATEMENTS, *GUARDS)
_RECORDED = (
    ast.Call,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.NamedExpr,
    ast.Return,
    ast.Global,
    ast.Nonlocal,
    ast.Import,
    ast.ImportFrom,
)
# Operators and load/store markers: shared leaves that say nothing about context.
_LEAVES = frozenset(
    kind
    for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for kind in base.__subclasses__()
)

KERAS = ("keras", "tensorflow.keras", "tf_keras")
_TF_FUNCTION = frozenset(
    {
        "tensorflow.function",
        "tensorflow.compat.v2.function",
        "tensorflow.python.eager.def_function.function",
        "tensorflow.python.eager.polymorphic_function.polymorphic_function.function",
    }
)
_MODEL_FACTORIES = frozenset(
    f"{keras}.{name}"
    for keras in KERAS
    for name in (
        "Sequential",
        "Model",
        "models.Sequential",
        "models.Model",
        "models.load_model",
        "saving.load_model",
        "models.clone_model",
    )
)
# Keras objects whose every new instance is a new key for tf.function (no tracing protocol).
_KERAS_OBJECT_MODULES = ("optimizers.", "layers.", "models.", "losses.", "metrics.")
_PREDICT_METHODS = frozenset({"predict", "predict_on_batch"})
# Decorator names that make a function a web request handler: it runs once per request.
_HANDLER_DECORATORS = frozenset({"route", "get", "post", "put", "patch", "delete", "websocket"})
_MEMOIZERS = frozenset({"functools.lru_cache", "functools.cache"})


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


@dataclass
class TracedFunction:
    """A ``tf.function`` the module defines, and the Python function it traces if known."""

    name: str
    definition: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None
    has_signature: bool
    autograph: bool
    reduce_retracing: bool = False  # generalises shapes after the first retrace
    shifted: bool = False  # called through functools.partial: positions are not its own


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


class ModuleFacts:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.aliases: dict[str, str] = {}
        self.contexts: dict[int, Context] = {}
        self.parents: dict[int, ast.AST] = {}
        self.module_scope = Scope(tree, None)
        self.scopes: dict[int, Scope] = {id(tree): self.module_scope}
        self.calls: list[tuple[ast.Call, Context]] = []
        self.loops: list[tuple[ast.AST, Context]] = []
        self.definitions: dict[str, list[ast.AST]] = defaultdict(list)
        self.classes: dict[str, list[ast.ClassDef]] = defaultdict(list)
        self.assignments: list[tuple[ast.Assign, Context]] = []
        self.loop_stores: dict[int, set[str]] = defaultdict(set)  # loop -> names it binds
        # (outermost loop of a scope, name) -> the values bound to the name inside it
        self.loop_bindings: dict[tuple[int, str], list[ast.AST]] = defaultdict(list)
        self.binding_counts: Counter[str] = Counter()
        self._walk()
        self.relevant = any(self.imports(package) for package in ("tensorflow", *KERAS))
        if not self.relevant:
            return  # every rule needs a name from TensorFlow or Keras
        self.traced_by_name: dict[str, TracedFunction] = {}
        self.traced_by_attribute: dict[tuple[str, str], TracedFunction] = {}
        self._find_traced_functions()
        self.repeated = self._repeated_functions()

    # --- the one pass ---------------------------------------------------------------------

    def _walk(self) -> None:
        """One pass over the tree with an explicit stack. Loops, scopes and guards give
        their children new contexts; every other node passes its own to its children,
        which is the hot path, kept inline."""
        special = {kind: self._visit for kind in _CONTEXT_CHANGERS}
        recorded = {kind: self._record for kind in _RECORDED}
        contexts, parents = self.contexts, self.parents
        top = Context(self.module_scope)
        stack: list[tuple[ast.AST, Context]] = [(n, top) for n in reversed(self.tree.body)]
        pop, push = stack.pop, stack.append
        while stack:
            node, ctx = pop()
            contexts[id(node)] = ctx
            kind = type(node)
            if kind in special:
                for child, child_ctx in reversed(self._visit(node, ctx)):
                    parents[id(child)] = node
                    push((child, child_ctx))
                continue
            if kind in recorded:
                self._record(node, ctx)
            for name in node._fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast.AST) and type(item) not in _LEAVES:
                            parents[id(item)] = node
                            push((item, ctx))
                elif isinstance(value, ast.AST) and type(value) not in _LEAVES:
                    parents[id(value)] = node
                    push((value, ctx))

    def _visit(self, node: ast.AST, ctx: Context) -> list[tuple[ast.AST, Context]]:
        """The children of a loop, scope or guard with the contexts they run in."""
        if isinstance(node, (*FUNCTION, ast.Lambda)):
            return self._visit_function(node, ctx)
        if isinstance(node, ast.ClassDef):
            return self._visit_class(node, ctx)
        if isinstance(node, ast.For | ast.AsyncFor):
            self.loops.append((node, ctx))
            self._bind_target(node.target, node, ctx)
            inner = ctx.looped(node)
            return (
                [(node.target, ctx), (node.iter, ctx)]
                + [(n, inner) for n in node.body]
                + [(n, ctx) for n in node.orelse]
            )
        if isinstance(node, ast.While):
            self.loops.append((node, ctx))
            inner = ctx.looped(node)
            return [(n, inner) for n in [node.test, *node.body]] + [(n, ctx) for n in node.orelse]
        if isinstance(node, COMPREHENSIONS):
            self.loops.append((node, ctx))
            inner = ctx.looped(node)
            # the first iterable is evaluated once, before the loop; the rest per iteration
            pending = [(node.generators[0].iter, ctx)]
            for index, generator in enumerate(node.generators):
                self._bind_target(generator.target, node, inner)
                pending += [(generator.target, inner)] + [(n, inner) for n in generator.ifs]
                if index:
                    pending.append((generator.iter, inner))
            results = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return pending + [(n, inner) for n in results]
        inner = ctx.guarded()  # if, conditional expression, try, match
        return [(c, inner) for c in children(node) if type(c) not in _LEAVES]

    def _record(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.Call):
            self.calls.append((node, ctx))
            ctx.scope.calls.append(node)
        elif isinstance(node, ast.Assign):
            self.assignments.append((node, ctx))
            for target in node.targets:
                self._bind_target(target, node.value, ctx)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            value = node if isinstance(node, ast.AugAssign) else node.value
            if value is not None:
                self._bind_target(node.target, value, ctx)
        elif isinstance(node, ast.NamedExpr):
            self._bind_target(node.target, node.value, ctx)
        elif isinstance(node, ast.Return) and node.value is not None:
            ctx.scope.returns.append(node.value)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            ctx.scope.escaping.update(node.names)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self._record_import(node)

    def _bind(self, name: str, value: ast.AST, ctx: Context) -> None:
        ctx.scope.bindings[name].append(value)
        self.binding_counts[name] += 1
        for loop in ctx.loops:
            self.loop_stores[id(loop)].add(name)
        if ctx.loops:
            self.loop_bindings[(id(ctx.loops[0]), name)].append(value)

    def _bind_target(self, target: ast.AST, value: ast.AST, ctx: Context) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, value, ctx)
        elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
            # an unpacked value: the part each name gets is not known
            for node in walk(target):
                if isinstance(node, ast.Name):
                    self._bind(node.id, target, ctx)

    def _visit_function(self, node: ast.AST, ctx: Context) -> list[tuple[ast.AST, Context]]:
        in_class = isinstance(ctx.scope.node, ast.ClassDef)
        scope = Scope(node, ctx.scope, ctx.scope.node if in_class else None)
        self.scopes[id(node)] = scope
        for name in parameters(node):
            scope.bindings[name].append(node.args)
            self.binding_counts[name] += 1
        defaults = [d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None]
        inner = Context(scope)
        if isinstance(node, ast.Lambda):
            return [(d, ctx) for d in defaults] + [(node.body, inner)]
        self.definitions[node.name].append(node)
        self._bind(node.name, node, ctx)
        return [(d, ctx) for d in (*node.decorator_list, *defaults)] + [
            (n, inner) for n in node.body
        ]

    def _visit_class(self, node: ast.ClassDef, ctx: Context) -> list[tuple[ast.AST, Context]]:
        scope = Scope(node, ctx.scope)
        self.scopes[id(node)] = scope
        self.classes[node.name].append(node)
        self._bind(node.name, node, ctx)
        outer = [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
        return [(n, ctx) for n in outer] + [(n, Context(scope)) for n in node.body]

    def _record_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.aliases[top] = top
                self.binding_counts[(alias.asname or alias.name).split(".")[0]] += 1
        elif node.module and node.level == 0:
            for alias in node.names:
                self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                self.binding_counts[alias.asname or alias.name] += 1

    # --- names ---------------------------------------------------------------------------

    def qualified_name(self, node: ast.AST) -> str | None:
        """``tensorflow.function`` for ``tf.function``, however the module imported it."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id], *reversed(parts)])

    def imports(self, package: str) -> bool:
        return any(q == package or q.startswith(package + ".") for q in self.aliases.values())

    def is_tf_function(self, node: ast.AST) -> bool:
        return self.qualified_name(node) in _TF_FUNCTION

    def calls_tensorflow(self, node: ast.AST) -> bool:
        """A call of something TensorFlow defines."""
        if not isinstance(node, ast.Call):
            return False
        return (self.qualified_name(node.func) or "").startswith("tensorflow.")

    def context(self, node: ast.AST) -> Context:
        return self.contexts[id(node)]

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def scope_of(self, definition: ast.AST) -> Scope:
        return self.scopes[id(definition)]

    def unique_definition(self, name: str) -> ast.AST | None:
        """The function of the file with this name, if the name is bound only to it."""
        defs = self.definitions.get(name, [])
        if len(defs) == 1 and self.binding_counts[name] == 1:
            return defs[0]
        return None

    def unique_class(self, name: str) -> ast.ClassDef | None:
        found = self.classes.get(name, [])
        return found[0] if len(found) == 1 and self.binding_counts[name] == 1 else None

    def binding_scope(self, name: str, ctx: Context) -> Scope | None:
        """The scope whose binding of ``name`` code in ``ctx`` reads: its own, else the
        nearest enclosing function's or the module's."""
        scope = ctx.scope
        while scope is not None:
            if name in scope.bindings and not isinstance(scope.node, ast.ClassDef):
                return scope
            scope = scope.parent
        return None

    def values_of(self, name: str, ctx: Context) -> list[ast.AST]:
        """What ``name`` is bound to where ``ctx`` reads it."""
        scope = self.binding_scope(name, ctx)
        return scope.bindings[name] if scope is not None else []

    def bound_in_the_same_loop(self, name: str, ctx: Context) -> list[ast.AST]:
        """The values bound to ``name`` inside the loops around ``ctx`` (one iteration's)."""
        if not ctx.loops:
            return []
        return self.loop_bindings.get((id(ctx.loops[0]), name), [])

    def about_name(self, question: str, name: str, ctx: Context, answer):
        """``answer(values)`` for the values of ``name`` where ``ctx`` reads it, computed
        once per binding scope: a name rebound all over a long script is read once, not
        once per use (which made checks quadratic)."""
        scope = self.binding_scope(name, ctx)
        key = (question, id(scope), name)
        cache = self.__dict__.setdefault("_about_names", {})
        if key not in cache:
            cache[key] = answer(scope.bindings[name] if scope is not None else [])
        return cache[key]

    # --- classes of the file ---------------------------------------------------------------

    def base_names(self, cls: ast.ClassDef) -> list[str]:
        return [self.qualified_name(b) or getattr(b, "id", "") for b in cls.bases]

    def is_keras_model_class(self, cls: ast.ClassDef, seen: frozenset[int] = frozenset()) -> bool:
        """A subclass of keras.Model (or Sequential), directly or through the file's classes."""
        for base in cls.bases:
            name = self.qualified_name(base)
            if name is not None and name in _MODEL_FACTORIES:
                return True
            local = self.unique_class(base.id) if isinstance(base, ast.Name) else None
            if (
                local is not None
                and id(local) not in seen
                and self.is_keras_model_class(local, seen | {id(cls)})
            ):
                return True
        return False

    def instance_class(self, receiver: ast.AST, ctx: Context) -> ast.ClassDef | None:
        """The file's class whose instance ``receiver`` is: ``self`` in a method, or a name
        bound only to calls of that class."""
        if isinstance(receiver, ast.Name) and receiver.id in {"self", "cls"}:
            return ctx.class_
        if not isinstance(receiver, ast.Name):
            return None
        return self.about_name("instance of", receiver.id, ctx, self._class_of_values)

    def _class_of_values(self, values: list[ast.AST]) -> ast.ClassDef | None:
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
            definition = self.unique_definition(func.id)
            if definition is not None:
                return definition
            cls = self.unique_class(func.id)
            return self.method(cls, "__init__") if cls is not None else None
        if isinstance(func, ast.Attribute):
            cls = self.instance_class(func.value, ctx)
            if cls is not None:
                return self.method(cls, func.attr)
        return None

    def _repeated_functions(self) -> set[int]:
        """Functions that run once per iteration of a loop or once per request: called in a
        loop, decorated as a request handler, or called from such a function."""
        edges: dict[int, list[ast.AST]] = defaultdict(list)
        pending: list[ast.AST] = []
        for call, ctx in self.calls:
            target = self.called_function(call, ctx)
            if target is None:
                continue
            if ctx.loops:
                pending.append(target)
            caller = ctx.scope.function
            if caller is not None:
                edges[id(caller)].append(target)
        for definitions in self.definitions.values():
            pending += [d for d in definitions if self._is_request_handler(d)]
        repeated: set[int] = set()
        while pending:
            function = pending.pop()
            if id(function) in repeated or self.is_memoized(function):
                continue
            repeated.add(id(function))
            pending.extend(edges.get(id(function), ()))
            # functions defined in a repeated function are defined anew on each run
            for inner, _ in self._nested_definitions(function):
                if self._called_in(inner, function):
                    pending.append(inner)
        return repeated

    def _nested_definitions(self, function: ast.AST) -> Iterator[tuple[ast.AST, Scope]]:
        scope = self.scopes[id(function)]
        for values in scope.bindings.values():
            for value in values:
                if isinstance(value, FUNCTION) and value is not function:
                    yield value, scope

    def _called_in(self, inner: ast.AST, function: ast.AST) -> bool:
        scope = self.scopes[id(function)]
        return any(isinstance(c.func, ast.Name) and c.func.id == inner.name for c in scope.calls)

    def _is_request_handler(self, definition: ast.AST) -> bool:
        for decorator in definition.decorator_list:
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(func, ast.Attribute) and func.attr in _HANDLER_DECORATORS:
                return True
        return False

    def is_memoized(self, definition: ast.AST) -> bool:
        """Decorated with functools.cache or lru_cache: one result per argument, not per call."""
        for decorator in getattr(definition, "decorator_list", ()):
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            if self.qualified_name(func) in _MEMOIZERS:
                return True
        return False

    def runs_repeatedly(self, ctx: Context) -> bool:
        """Code in this context runs many times: in a loop, or in a repeated function."""
        return bool(ctx.loops) or (ctx.function is not None and id(ctx.function) in self.repeated)

    # --- tf.functions --------------------------------------------------------------------

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
            options = self.wrapper_call(node.value)
            if options is None or len(node.targets) != 1:
                continue
            definition = self.wrapped_target(node.value, ctx)
            target = node.targets[0]
            name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
            if name is not None:
                self._register(name, definition, options, ctx, target)

    def _register(self, name, definition, options, ctx: Context, target=None) -> None:
        traced = TracedFunction(name, definition, *options)
        if isinstance(ctx.scope.node, ast.ClassDef):  # a method, or a class attribute
            self.traced_by_attribute[(ctx.scope.node.name, name)] = traced
        elif isinstance(target, ast.Attribute):
            cls = self.instance_class(target.value, ctx)
            if cls is not None:
                self.traced_by_attribute[(cls.name, name)] = traced
        elif self.binding_counts[name] == 1:
            self.traced_by_name[name] = traced

    def traced_function_of(self, call: ast.Call, ctx: Context) -> TracedFunction | None:
        """The tf.function a call calls, if this file defines it."""
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in self.traced_by_name:
                return self.traced_by_name[func.id]
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
        if isinstance(inner, ast.Name) and inner.id in self.traced_by_name:
            base = self.traced_by_name[inner.id]
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
        for call, ctx in self.calls:  # tf.function(f) not bound to a name: tf.function(f)(x)
            options = self.wrapper_call(call)
            if options is not None:
                target = self.wrapped_target(call, ctx)
                if isinstance(target, FUNCTION) and id(target) not in seen:
                    seen[id(target)] = TracedFunction(target.name, target, *options)
        return list(seen.values())

    # --- Keras ---------------------------------------------------------------------------

    def is_model_factory(self, node: ast.AST) -> bool:
        return self.qualified_name(node) in _MODEL_FACTORIES

    def is_keras_object_constructor(self, node: ast.AST) -> bool:
        """``keras.optimizers.Adam``, ``tf.keras.layers.Dense``...: a Keras class."""
        name = self.qualified_name(node) or ""
        for keras in KERAS:
            if name.startswith(keras + "."):
                rest = name[len(keras) + 1 :]
                last = rest.rsplit(".", 1)[-1]
                return last[:1].isupper() and (
                    rest.startswith(_KERAS_OBJECT_MODULES) or name in _MODEL_FACTORIES
                )
        return False

    def builds_model(self, node: ast.AST, ctx: Context, depth: int = 0) -> bool:
        """A call that returns a new Keras model: Keras's constructors and loaders, a
        subclass of keras.Model of the file, or a function of the file that returns one."""
        if not isinstance(node, ast.Call):
            return False
        if self.is_model_factory(node.func):
            return True
        if isinstance(node.func, ast.Name):
            cls = self.unique_class(node.func.id)
            if cls is not None:
                return self.is_keras_model_class(cls)
        target = self.called_function(node, ctx)
        return target is not None and self._returns_new_model(target, depth)

    def _returns_new_model(self, function: ast.AST, depth: int) -> bool:
        if depth > 3 or not isinstance(function, FUNCTION) or self.is_memoized(function):
            return False
        cache = self.__dict__.setdefault("_builder_cache", {})
        if id(function) not in cache:
            cache[id(function)] = False  # a recursive builder is not followed
            scope = self.scopes[id(function)]
            inner = Context(scope)
            cache[id(function)] = any(
                self.builds_model(value, inner, depth + 1)
                or (
                    isinstance(value, ast.Name)
                    and any(
                        self.builds_model(v, inner, depth + 1)
                        for v in scope.bindings.get(value.id, [])
                    )
                )
                for value in scope.returns
            )
        return cache[id(function)]

    def creates_tf_function(self, node: ast.AST, ctx: Context) -> bool:
        """A call of a function of the file that returns a new tf.function each call."""
        if not isinstance(node, ast.Call):
            return False
        target = self.called_function(node, ctx)
        if not isinstance(target, FUNCTION) or self.is_memoized(target):
            return False
        scope = self.scopes[id(target)]
        for value in scope.returns:
            if self.wrapper_call(value) is not None:
                return True
            if isinstance(value, ast.Name):
                for bound in scope.bindings.get(value.id, []):
                    if isinstance(bound, FUNCTION) and self.decorator_options(bound):
                        return True
                    if self.wrapper_call(bound) is not None:
                        return True
        return False

    @property
    def varying(self):
        """The Python values that change between iterations (computed on first use)."""
        if "_varying" not in self.__dict__:
            from tf_retracing.lint.varying import VaryingValues

            self._varying = VaryingValues(self)
        return self._varying

    def body_nodes(self, definition: ast.AST) -> list[tuple[ast.AST, Context]]:
        """The nodes of a function's body that run when it runs (not nested defs)."""
        cache = self.__dict__.setdefault("_bodies", {})
        if id(definition) not in cache:
            found = []
            stack = list(reversed(definition.body))
            while stack:
                node = stack.pop()
                found.append((node, self.contexts[id(node)]))
                if not isinstance(node, SCOPES):
                    stack.extend(
                        c for c in reversed(list(children(node))) if type(c) not in _LEAVES
                    )
            cache[id(definition)] = found
        return cache[id(definition)]
