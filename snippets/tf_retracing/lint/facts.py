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
import builtins
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from typing import TypeVar

from tf_retracing.lint.context import Context, Scope
from tf_retracing.lint.instances import InstanceFacts
from tf_retracing.lint.models import KERAS, ModelFacts
from tf_retracing.lint.syntax import (
    COMPREHENSIONS,
    FUNCTION,
    GUARDS,
    LOOP_STATEMENTS,
    SCOPES,
    children,
    is_constant,
    parameters,
    walk,
)
from tf_retracing.lint.tf_functions import TfFunctionFacts, TracedFunction

T = TypeVar("T")

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

# Decorator names that make a function a web request handler: it runs once per request.
# What makes a function run once per request or per job: a web framework's route (Flask,
# FastAPI, aiohttp...), a task queue's task (Celery), or a conventional entry point (AWS
# Lambda's handler, http.server's do_GET).
_HANDLER_DECORATORS = frozenset(
    {"route", "get", "post", "put", "patch", "delete", "websocket", "task", "shared_task"}
)
_HANDLER_NAMES = frozenset({"lambda_handler", "do_GET", "do_POST", "do_PUT"})
_MEMOIZERS = frozenset({"functools.lru_cache", "functools.cache"})
# Calls that combine finite collections into another finite one (a sweep's grid).
_COMBINERS = frozenset(
    {"zip", "enumerate", "reversed", "sorted", "list", "tuple"}
    | {
        f"itertools.{name}"
        for name in (
            "product",
            "combinations",
            "permutations",
            "chain",
            "combinations_with_replacement",
        )
    }
)
# Calls that make a configuration rather than data: a class (``tf.TensorSpec(...)``), or
# a container of the items given.
_CONFIGURATION_CALLS = frozenset({"dict", "tuple", "list", "set", "frozenset"})


def _configuration_item(item: ast.AST) -> bool:
    """An item of a listed configuration: constants, names, attributes (``tf.float32``),
    containers of those, a class's instance; not a call that makes data (``tf.ones``)."""
    for node in walk(item):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if not (name[:1].isupper() or name in _CONFIGURATION_CALLS):
                return False
        elif isinstance(node, ast.Lambda | ast.ListComp | ast.GeneratorExp | ast.Await):
            return False
    return True


# Names that always stand for one module: read unbound, they are that module.
_CONVENTIONAL_NAMES = {"tf": "tensorflow", "keras": "keras", "np": "numpy"}
# Python's own names, never what a star import brings (``range``, ``print``; and "*").
_BUILTINS = frozenset({*dir(builtins), "*"})


def _returns_kept_attribute(definition: ast.AST) -> bool:
    """The body starts with ``if self.<a> ...: return ...`` and sets ``self.<a>``."""
    body = getattr(definition, "body", [])
    first = next((n for n in body if not isinstance(n, ast.Expr)), None)  # skip a docstring
    if not (isinstance(first, ast.If) and any(isinstance(n, ast.Return) for n in first.body)):
        return False
    tested = {
        node.attr
        for node in ast.walk(first.test)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }
    assigned = {
        target.attr
        for node in ast.walk(definition)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    }
    return bool(tested & assigned)


def _runs_once(iterable: ast.AST) -> bool:
    """An iterable of one item: ``dataset.take(1)``, ``range(1)``, ``[x]``."""
    if isinstance(iterable, ast.List | ast.Tuple):
        return len(iterable.elts) == 1 and not isinstance(iterable.elts[0], ast.Starred)
    if not isinstance(iterable, ast.Call) or len(iterable.args) != 1 or iterable.keywords:
        return False
    single = isinstance(iterable.args[0], ast.Constant) and iterable.args[0].value == 1
    func = iterable.func
    return single and (
        (isinstance(func, ast.Attribute) and func.attr == "take")
        or (isinstance(func, ast.Name) and func.id == "range")
    )


class ModuleFacts(TfFunctionFacts, ModelFacts, InstanceFacts):
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
        self.unbound_reads: set[str] = set()  # conventional names read (bound or not)
        self._derived: dict[Callable, object] = {}  # see derived()
        self._walk()
        self._read_conventional_names()
        # The file shows it uses TensorFlow or Keras: an import of either (a wrapper
        # library's ``from bert4keras.backend import keras`` too), or ``tf.``/``keras.``
        # read where nothing binds the name (a notebook snippet). Without it, the rules
        # still run, and a receiver is a Keras model only by how the file makes and uses it.
        self.relevant = any(self.imports(package) for package in ("tensorflow", *KERAS))
        # (scope, name) -> the tf.function the name holds in that scope
        self.traced_by_name: dict[tuple[int, str], TracedFunction] = {}
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
            elif kind is ast.Name and node.id in _CONVENTIONAL_NAMES:
                self.unbound_reads.add(node.id)
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
            self._bind_target(node.target, node, ctx)
            if _runs_once(node.iter):  # for images, labels in dataset.take(1): no loop
                return [(node.target, ctx), (node.iter, ctx)] + [
                    (n, ctx) for n in (*node.body, *node.orelse)
                ]
            self.loops.append((node, ctx))
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
        elif (
            isinstance(target, ast.Tuple | ast.List)
            and isinstance(value, ast.Tuple | ast.List)
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
        ):  # ``model, optimizer = build(), Adam()``: each name its own value
            for part, part_value in zip(target.elts, value.elts, strict=True):
                self._bind_target(part, part_value, ctx)
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
        else:
            # A relative import keeps its dots (``.actor.Actor``): the project's own code,
            # never TensorFlow's, and still an imported name.
            module = "." * node.level + (f"{node.module}." if node.module else "")
            for alias in node.names:
                qualified = f"{module}{alias.name}"
                if alias.name == "keras" and not qualified.startswith("tensorflow."):
                    qualified = "keras"  # a wrapper's re-export: bert4keras.backend.keras
                self.aliases[alias.asname or alias.name] = qualified
                self.binding_counts[alias.asname or alias.name] += 1

    def _read_conventional_names(self) -> None:
        """``tf``, ``keras`` and ``np`` read where the file never binds them (a snippet or
        notebook cell whose imports are elsewhere) stand for the modules they always
        name: the code cannot run with them meaning anything else."""
        if not self.unbound_reads:
            return
        for name, module in _CONVENTIONAL_NAMES.items():
            unbound = name not in self.aliases and self.binding_counts[name] == 0
            if name in self.unbound_reads and unbound:
                self.aliases[name] = module

    # --- names ---------------------------------------------------------------------------

    def qualified_name(self, node: ast.AST) -> str | None:
        """``tensorflow.function`` for ``tf.function``, however the module imported it."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        module = self.aliases.get(node.id) or self._star_imported(node.id)
        if module is None:
            return None
        return _canonical(".".join([module, *reversed(parts)]))

    def _star_imported(self, name: str) -> str | None:
        """``Model`` in a file whose one ``from model import *`` is where a name it never
        binds comes from (with two star imports, which one is unknown)."""
        if self.binding_counts["*"] != 1 or self.binding_counts[name] or name in _BUILTINS:
            return None
        return f"{self.aliases['*'][: -len('.*')]}.{name}"

    def imports(self, package: str) -> bool:
        return any(q == package or q.startswith(package + ".") for q in self.aliases.values())

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

    def _repeated_functions(
        self, count_sweeps: bool = True, configurations: bool = False
    ) -> set[int]:
        """Functions that run once per iteration of a loop or once per request: called in a
        loop, decorated as a request handler, or called from such a function."""
        edges: dict[int, list[ast.AST]] = defaultdict(list)
        pending: list[ast.AST] = []
        for call, ctx in self.calls:
            target = self.called_function(call, ctx)
            if target is None:
                continue
            if ctx.loops and (
                count_sweeps or not all(self.is_sweep(loop, configurations) for loop in ctx.loops)
            ):
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
        if definition.name in _HANDLER_NAMES:
            return True
        for decorator in definition.decorator_list:
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in _HANDLER_DECORATORS and (
                isinstance(func, ast.Attribute) or name == "shared_task"
            ):
                return True
        return False

    def is_memoized(self, definition: ast.AST) -> bool:
        """Runs its body once per argument, not per call: decorated with functools.cache or
        lru_cache, or a method that starts by returning what it kept in an attribute
        (``if self.fn is not None: return self.fn``)."""
        for decorator in getattr(definition, "decorator_list", ()):
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            if self.qualified_name(func) in _MEMOIZERS:
                return True
        return _returns_kept_attribute(definition)

    def is_sweep(self, loop: ast.AST, configurations: bool = False) -> bool:
        """A loop over a literal, finite set of configurations: a literal list, tuple, set
        or dict (``for lr in (0.1, 0.01)``), a name bound only to one, or such literals
        combined by ``zip``, ``itertools.product``, ``enumerate``, ``dict.items()``...
        What it builds per item is one per configuration, on purpose. With
        ``configurations``, items that make data (``[tf.ones([4]), tf.zeros([4])]``, any
        call but a class's) or an item listed twice (``(8, 8, 3)``, requests' sizes) make
        it a loop over data, not over configurations."""
        if not isinstance(loop, (ast.For, ast.AsyncFor, *COMPREHENSIONS)):
            return False
        generators = loop.generators if hasattr(loop, "generators") else [loop]
        ctx = self.context(loop)
        return all(self._literal_collection(g.iter, ctx, configurations) for g in generators)

    def _literal_collection(
        self, iterable: ast.AST, ctx: Context, configurations: bool, depth: int = 0
    ) -> bool:
        if depth > 4:
            return False
        if isinstance(iterable, ast.List | ast.Tuple | ast.Set | ast.Dict):
            items = iterable.keys if isinstance(iterable, ast.Dict) else iterable.elts
            if isinstance(iterable, ast.Dict):
                items = [*items, *iterable.values]
            if not configurations:
                return True
            # the same item twice is a stream of inputs (requests of sizes 8, 8, 3), not
            # a set of configurations, which are each listed once
            distinct = len({ast.dump(item) for item in items if item is not None})
            return distinct == len(items) and all(
                item is not None and _configuration_item(item) for item in items
            )
        if isinstance(iterable, ast.Name):
            values = self.values_of(iterable.id, ctx)
            return bool(values) and all(
                isinstance(v, ast.List | ast.Tuple | ast.Set | ast.Dict)
                and self._literal_collection(v, ctx, configurations, depth + 1)
                for v in values
            )
        if not isinstance(iterable, ast.Call):
            return False
        func = iterable.func
        if isinstance(func, ast.Attribute) and func.attr in ("items", "keys", "values"):
            return not iterable.args and self._literal_collection(
                func.value, ctx, configurations, depth + 1
            )
        name = self.qualified_name(func) or (func.id if isinstance(func, ast.Name) else None)
        if name == "range" and len(iterable.args) == 1 and _len_of(iterable.args[0]):
            # ``for i in range(len(models))``: the listed items, by index
            return self._literal_collection(
                iterable.args[0].args[0], ctx, configurations, depth + 1
            )
        if name not in _COMBINERS or not iterable.args:
            return False
        return all(
            is_constant(argument, (int,))  # combinations(items, 2)
            or self._literal_collection(argument, ctx, configurations, depth + 1)
            for argument in iterable.args
        )

    def runs_repeatedly(
        self, ctx: Context, count_sweeps: bool = True, configurations: bool = False
    ) -> bool:
        """Code in this context runs many times: in a loop, or in a repeated function.
        Without ``count_sweeps``, runs per item of a listed configuration do not count
        (with ``configurations``, only a list of configurations is such a list, not one of
        data: see ``is_sweep``)."""
        if not count_sweeps:
            key = "_repeated_beyond_configurations" if configurations else "_repeated_beyond_sweeps"
            if key not in self.__dict__:
                self.__dict__[key] = self._repeated_functions(False, configurations)
            loops = [loop for loop in ctx.loops if not self.is_sweep(loop, configurations)]
            repeated = self.__dict__[key]
        else:
            loops, repeated = ctx.loops, self.repeated
        return bool(loops) or (ctx.function is not None and id(ctx.function) in repeated)

    def passed_arguments(self, name: str, scope: Scope) -> list[tuple[ast.AST, Context]]:
        """What the file's calls of the function pass to its parameter ``name``, or to the
        parameter that ``name`` is unpacked from (each call's part at that position); nothing
        when any call's is unknown."""
        function = scope.function
        values = scope.bindings.get(name, [])
        if not isinstance(function, FUNCTION) or len(values) != 1:
            return []
        value = values[0]
        if value is function.args:
            return self._call_arguments(function, name)
        assign = self.parent(value)
        if not (
            isinstance(value, ast.Tuple | ast.List)
            and isinstance(assign, ast.Assign)
            and isinstance(assign.value, ast.Name)
            and scope.bindings.get(assign.value.id) == [function.args]
        ):
            return []
        elements = value.elts
        position = next(
            (i for i, e in enumerate(elements) if isinstance(e, ast.Name) and e.id == name), None
        )
        if position is None or not all(isinstance(e, ast.Name) for e in elements):
            return []
        parts = []
        for argument, argument_ctx in self._call_arguments(function, assign.value.id):
            if isinstance(argument, ast.Tuple | ast.List):
                packed = [argument]
            elif isinstance(argument, ast.Name):  # ``models = (encoder, decoder)``
                packed = self.values_of(argument.id, argument_ctx)
            else:
                return []
            for value in packed or [None]:
                if not (
                    isinstance(value, ast.Tuple | ast.List)
                    and len(value.elts) == len(elements)
                    and not any(isinstance(e, ast.Starred) for e in value.elts)
                ):
                    return []
                part = value.elts[position]
                parts.append((part, self.contexts.get(id(part), argument_ctx)))
        return parts

    def _call_arguments(self, function: ast.AST, name: str) -> list[tuple[ast.AST, Context]]:
        """The argument each call of ``function`` in the file gives its parameter ``name``:
        nothing when there is no call, when one passes it through ``*args`` or ``**kwargs``,
        or when the function is also used other than called. A call that leaves it out gives
        its default (``def test(cases, model=model)``)."""
        calls, referenced = self._function_calls()
        if id(function) in referenced:
            return []
        arguments = function.args
        positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
        method = self.scope_of(function).class_ is not None and not any(
            getattr(d, "id", None) == "staticmethod" for d in function.decorator_list
        )
        found = []
        for call, call_ctx in calls.get(id(function), []):
            if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords
            ):
                return []
            keyword = next((k.value for k in call.keywords if k.arg == name), None)
            if keyword is not None:
                found.append((keyword, call_ctx))
                continue
            position = positional.index(name) - (1 if method else 0) if name in positional else -1
            if 0 <= position < len(call.args):
                found.append((call.args[position], call_ctx))
                continue
            default = _default_of(function, name)
            if default is None or id(default) not in self.contexts:
                return []
            found.append((default, self.contexts[id(default)]))  # ``model=model``, left out
        return found

    def _calls_of_functions(self) -> tuple[dict[int, list], set[int]]:
        """The file's calls of each of its functions and methods, and the functions whose
        name is also read other than as a call (passed on, stored: callers not all seen).
        (Once per module.)"""
        calls: dict[int, list] = {}
        called_names = set()
        for call, call_ctx in self.calls:
            target = self.called_function(call, call_ctx)
            if target is not None:
                calls.setdefault(id(target), []).append((call, call_ctx))
            called_names.add(id(call.func))
        referenced = set()
        for node in ast.walk(self.tree):
            if (
                isinstance(node, ast.Name | ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and id(node) not in called_names
            ):
                name = node.id if isinstance(node, ast.Name) else node.attr
                for definition in self.definitions.get(name, []):
                    referenced.add(id(definition))
        return calls, referenced

    def _function_calls(self) -> tuple[dict[int, list], set[int]]:
        if "_function_call_index" not in self.__dict__:
            self._indexing = True  # instances passed as parameters are not yet known
            try:
                self._function_call_index = self._calls_of_functions()
            finally:
                self._indexing = False
        return self._function_call_index

    def derived(self, build: Callable[[ModuleFacts], T]) -> T:
        """``build(self)``, computed on first use and kept for the module: how the modules
        above this one (``varying``, ``bodies``, ``keras_receivers``) share what they
        derive from these facts among the rules, without this module importing them."""
        if build not in self._derived:
            self._derived[build] = build(self)
        return self._derived[build]

    def body_nodes(self, definition: ast.AST) -> list[tuple[ast.AST, Context]]:
        """The nodes of a function's body that run when it runs (not nested defs)."""
        cache = self.__dict__.setdefault("_bodies", {})
        if id(definition) not in cache:
            found = []
            body_ctx = self.contexts[id(definition.body[0])]
            stack = [(node, body_ctx) for node in reversed(definition.body)]
            while stack:
                node, outer = stack.pop()
                # a comprehension's ``for`` clause has no context of its own: its parts do
                ctx = self.contexts.get(id(node), outer)
                found.append((node, ctx))
                if not isinstance(node, SCOPES):
                    stack.extend(
                        (c, ctx) for c in reversed(list(children(node))) if type(c) not in _LEAVES
                    )
            cache[id(definition)] = found
        return cache[id(definition)]


# Other spellings of TensorFlow's public names: tf.compat.v1 and tf.compat.v2 hold the same
# tf.function and tf.keras, and old code imports Keras from tensorflow.python.keras.
_SPELLINGS = (
    ("tensorflow.compat.v1.", "tensorflow."),
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow.python.keras.", "tensorflow.keras."),
)


def _canonical(name: str) -> str:
    for spelling, canonical in _SPELLINGS:
        if name.startswith(spelling):
            return canonical + name[len(spelling) :]
    return name


def _default_of(function: ast.AST, name: str) -> ast.AST | None:
    """The default value of ``function``'s parameter ``name``, as written, or None."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    with_defaults = positional[len(positional) - len(arguments.defaults) :]
    defaults = {a.arg: d for a, d in zip(with_defaults, arguments.defaults, strict=True)}
    keyword_only = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    defaults.update((a.arg, d) for a, d in keyword_only if d is not None)
    return defaults.get(name)


def _len_of(node: ast.AST) -> bool:
    """``len(x)``, with one argument."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not node.keywords
    )
