"""What the rules need to know about one module, read from its AST alone.

``ModuleModel`` resolves imported names (``tf.function`` however ``tensorflow`` was
imported), records every node's context (the loops around it in its own function, the
function it is in, whether a condition guards it), and finds the ``tf.function``s the
module defines, so that a call can be recognised as a call of one. Everything here is
deliberately local to one file: a name the file does not define is unknown, and unknown
means no finding.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

FUNCTION = ast.FunctionDef | ast.AsyncFunctionDef
SCOPE = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
COMPREHENSION = ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
LOOP = ast.For | ast.AsyncFor | ast.While | COMPREHENSION

_KERAS = ("keras", "tensorflow.keras", "tf_keras")
# Qualified names of what the rules look for, by kind.
KNOWN: dict[str, frozenset[str]] = {
    "tf.function": frozenset(
        {
            "tensorflow.function",
            "tensorflow.compat.v2.function",
            "tensorflow.python.eager.def_function.function",
            "tensorflow.python.eager.polymorphic_function.polymorphic_function.function",
        }
    ),
    "variable": frozenset(
        {"tensorflow.Variable", "tensorflow.compat.v2.Variable", "tensorflow.compat.v1.Variable"}
    ),
    "model": frozenset(
        f"{keras}.{name}"
        for keras in _KERAS
        for name in (
            "Sequential",
            "Model",
            "models.Sequential",
            "models.Model",
            "models.load_model",
            "saving.load_model",
            "models.clone_model",
        )
    ),
}
# NumPy constructors whose result is float64 unless given a dtype, by how they take one.
_FLOAT64_ALWAYS = frozenset(
    f"numpy.random.{name}"
    for name in ("rand", "randn", "random", "random_sample", "uniform", "normal", "standard_normal")
)
_FLOAT64_UNLESS_DTYPE = {  # name -> position of the dtype argument
    "numpy.zeros": 1,
    "numpy.ones": 1,
    "numpy.empty": 1,
    "numpy.eye": 3,
    "numpy.identity": 1,
    "numpy.linspace": 5,
}
# TensorFlow constructors whose result is float32 unless given a dtype.
_FLOAT32_BY_DEFAULT = frozenset(
    f"tensorflow.{name}"
    for name in ("zeros", "ones", "random.normal", "random.uniform", "random.truncated_normal")
)
_TRAINING_METHODS = frozenset({"fit", "train_on_batch", "fit_generator", "compile"})
_PREDICT_METHODS = frozenset({"predict", "predict_on_batch"})
# Libraries whose estimators also have .predict: a file that imports one is not guessed at.
_OTHER_PREDICTORS = ("sklearn", "xgboost", "lightgbm", "catboost", "statsmodels", "torch")
# Calls on a tensor that give a Python value even while tracing.
_PYTHON_VALUED_CALLS = frozenset({"isinstance", "len", "hasattr", "callable", "type", "id"})
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "name", "device", "graph"})
_PYTHON_VALUED_TF = frozenset(
    {"tensorflow.is_tensor", "tensorflow.executing_eagerly", "tensorflow.inside_function"}
)


def is_number_constant(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    )


def is_python_number(node: ast.AST, counters: set[str]) -> bool:
    """An expression built only from loop counters and number literals, using a counter."""

    def numeric(expr: ast.AST) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in counters
        if is_number_constant(expr):
            return True
        if isinstance(expr, ast.BinOp):
            return numeric(expr.left) and numeric(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return numeric(expr.operand)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            return expr.func.id in {"float", "int", "round", "abs"} and all(
                numeric(a) for a in expr.args
            )
        return False

    uses_counter = any(isinstance(n, ast.Name) and n.id in counters for n in ast.walk(node))
    return uses_counter and numeric(node)


def _parameters(function: FUNCTION | ast.Lambda) -> list[str]:
    args = function.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def _bound_names(node: ast.AST) -> set[str]:
    """Names a function or lambda binds itself: parameters and assignments in its body."""
    bound = set(_parameters(node)) if isinstance(node, FUNCTION | ast.Lambda) else set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
            bound.add(child.id)
        elif isinstance(child, FUNCTION | ast.ClassDef) and child is not node:
            bound.add(child.name)
    return bound


def free_names(node: ast.AST | None) -> set[str]:
    """Names read inside ``node`` that it does not bind itself."""
    if node is None:
        return set()
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - _bound_names(node)


def _loop_body(loop: ast.AST) -> list[ast.AST]:
    if isinstance(loop, COMPREHENSION):
        parts = [loop.key, loop.value] if isinstance(loop, ast.DictComp) else [loop.elt]
        return parts + [cond for gen in loop.generators for cond in gen.ifs]
    return list(loop.body)


def walk_local(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    """Every node under ``nodes`` that runs with them: not inside a nested def, lambda or class."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, SCOPE):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


@dataclass(frozen=True)
class Context:
    """Where a node sits: the loops around it in its own scope, its function, its class."""

    loops: tuple[ast.AST, ...] = ()
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    class_: ast.ClassDef | None = None  # the class whose method ``function`` is
    conditional: bool = False  # under an if, a conditional expression or a try, in scope
    parent: ast.AST | None = None

    def loop_targets(self) -> set[str]:
        names: set[str] = set()
        for loop in self.loops:
            targets = (
                [gen.target for gen in loop.generators]
                if isinstance(loop, COMPREHENSION)
                else [getattr(loop, "target", None)]
            )
            for target in targets:
                if target is not None:
                    names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        return names

    def names_bound_per_iteration(self) -> set[str]:
        """The loop variables, and every name assigned in the body of a loop around."""
        names = self.loop_targets()
        for loop in self.loops:
            for node in walk_local(_loop_body(loop)):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
        return names

    def enclosing_parameters(self) -> set[str]:
        return set(_parameters(self.function)) if self.function is not None else set()

    def loop_counters(self) -> set[str]:
        """Names that hold a different Python number on each iteration of a loop around."""
        counters: set[str] = set()
        for loop in self.loops:
            for name in _counters_of(loop, self.function):
                if not _reassigned_in(loop, name):
                    counters.add(name)
        return counters


def _counters_of(loop: ast.AST, function: ast.AST | None) -> set[str]:
    if isinstance(loop, ast.While):
        return _while_counters(loop, function)
    pairs = (
        [(gen.target, gen.iter) for gen in loop.generators]
        if isinstance(loop, COMPREHENSION)
        else [(loop.target, loop.iter)]
    )
    names = set()
    for target, iterable in pairs:
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name):
            if iterable.func.id == "range" and isinstance(target, ast.Name):
                names.add(target.id)
            elif (
                iterable.func.id == "enumerate"
                and isinstance(target, ast.Tuple)
                and isinstance(target.elts[0], ast.Name)
            ):
                names.add(target.elts[0].id)
        elif (
            isinstance(iterable, ast.List | ast.Tuple)
            and iterable.elts
            and all(is_number_constant(e) for e in iterable.elts)
            and isinstance(target, ast.Name)
        ):
            names.add(target.id)
    return names


def _while_counters(loop: ast.While, function: ast.AST | None) -> set[str]:
    """``i += 1`` in the body of a while loop, with ``i = 0`` before it in the same scope."""
    stepped = {
        node.target.id
        for node in walk_local(loop.body)
        if isinstance(node, ast.AugAssign)
        and isinstance(node.target, ast.Name)
        and is_number_constant(node.value)
    }
    scope_body = function.body if function is not None else []
    started = {
        target.id
        for node in walk_local(scope_body)
        if isinstance(node, ast.Assign) and is_number_constant(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return stepped & started if function is not None else stepped


def _reassigned_in(loop: ast.AST, name: str) -> bool:
    return any(
        isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr)
        and any(
            isinstance(t, ast.Name) and t.id == name
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        for node in walk_local(_loop_body(loop))
    )


@dataclass
class TracedFunction:
    """A ``tf.function`` this module defines, and the Python function it traces if known."""

    name: str
    definition: ast.FunctionDef | ast.AsyncFunctionDef | None
    has_signature: bool
    autograph: bool
    model: ModuleModel = field(repr=False)
    tensor_positions: set[int] = field(default_factory=set)  # where a caller passes a tensor
    float32_arguments: set[int | str] = field(default_factory=set)  # positions and keywords

    def takes_float32(self, where: int | str) -> bool:
        """Some call passes float32 there, or the body names float32: a float32 pipeline."""
        return where in self.float32_arguments or self._body_names_float32()

    def _body_names_float32(self) -> bool:
        return any(
            (isinstance(node, ast.Attribute) and node.attr == "float32")
            or (isinstance(node, ast.Constant) and node.value == "float32")
            for node, _ in self.body_nodes()
        )

    def body_nodes(self) -> Iterator[tuple[ast.AST, Context]]:
        """The nodes that run while tracing: the body, without nested defs and lambdas."""
        if self.definition is None:
            return
        for node in walk_local(self.definition.body):
            yield node, self.model.context(node)

    def parameters(self) -> list[str]:
        names = _parameters(self.definition) if self.definition is not None else []
        return [n for n in names if n not in {"self", "cls"}]

    def _locals_from_graph(self) -> set[str]:
        params = set(self.parameters())
        values: dict[str, list[ast.AST]] = {}
        for node, _ in self.body_nodes():
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        values.setdefault(target.id, []).append(node.value)
        return {
            name
            for name, assigned in values.items()
            if all(free_names(v) & params or self.model.calls_tensorflow(v) for v in assigned)
        }

    def is_graph_value(self, expr: ast.AST) -> bool:
        """A parameter, a local computed from one, or a TensorFlow call: symbolic here."""
        if isinstance(expr, ast.Call):
            return self.model.calls_tensorflow(expr)
        while isinstance(expr, ast.Subscript):
            expr = expr.value
        graph_names = set(self.parameters()) | self._locals_from_graph()
        return isinstance(expr, ast.Name) and expr.id in graph_names

    def tensor_parameters(self) -> set[str]:
        params = self.parameters()
        if self.has_signature:
            return set(params)
        return {params[i] for i in self.tensor_positions if i < len(params)}

    def is_tensor_expression(self, expr: ast.AST) -> bool:
        """Whether ``expr`` is a tensor while tracing: a TensorFlow operation, or a tensor
        parameter used as a value (not through ``.shape``, ``isinstance`` or ``is None``)."""
        tensors = self.tensor_parameters()
        for node in _value_nodes(expr):
            if isinstance(node, ast.Name) and node.id in tensors:
                return True
            if isinstance(node, ast.Call) and self.model.calls_tensorflow(node):
                return True
        return False


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


@dataclass
class Creation:
    """A ``tf.function`` created inside a function or a loop."""

    node: ast.AST  # the tf.function(...) call or the decorated def
    wrapped: ast.AST | None  # what it traces, when the module defines it
    context: Context
    called_where_created: bool


class ModuleModel:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.aliases = _import_aliases(tree)
        self._contexts: dict[int, Context] = {}
        # Every rule needs a name from TensorFlow or Keras: a module importing neither is
        # left empty, which keeps a run over a large project fast.
        self.relevant = any(self.imports(package) for package in ("tensorflow", *_KERAS))
        self._defs: dict[str, FUNCTION] = {}
        self._builders: set[str] = set()
        self._traced_by_name: dict[str, TracedFunction] = {}
        self._traced_by_attribute: dict[tuple[str, str], TracedFunction] = {}
        if self.relevant:
            self._record_contexts(tree.body, Context())
            self._defs = _definitions(tree)
            self._builders = self._model_builders()
            self._traced_by_name, self._traced_by_attribute = self._find_traced_functions()
            self._find_tensor_arguments()

    # --- names --------------------------------------------------------------------------

    def qualified_name(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualified_name(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def resolves_to(self, node: ast.AST, kind: str) -> bool:
        return self.qualified_name(node) in KNOWN[kind]

    def calls_tensorflow(self, node: ast.AST) -> bool:
        """A call of a TensorFlow function that returns a tensor."""
        if not isinstance(node, ast.Call):
            return False
        name = self.qualified_name(node.func) or ""
        return name.startswith("tensorflow.") and name not in _PYTHON_VALUED_TF

    def imports(self, package: str) -> bool:
        return any(q == package or q.startswith(package + ".") for q in self.aliases.values())

    # --- contexts -----------------------------------------------------------------------

    def context(self, node: ast.AST) -> Context:
        return self._contexts[id(node)]

    def nodes(self) -> list[tuple[ast.AST, Context]]:
        if "_nodes" not in self.__dict__:
            self._nodes = [
                (node, self._contexts[id(node)])
                for node in ast.walk(self.tree)
                if id(node) in self._contexts
            ]
        return self._nodes

    def _record_contexts(self, nodes: list[ast.AST], ctx: Context) -> None:
        for node in nodes:
            self._record(node, ctx)

    def _record(self, node: ast.AST, ctx: Context) -> None:
        self._contexts[id(node)] = ctx
        inner = Context(ctx.loops, ctx.function, ctx.class_, ctx.conditional, node)
        if isinstance(node, FUNCTION):
            self._record_contexts(node.decorator_list + _defaults(node), inner)
            in_class = ctx.function is None and isinstance(ctx.parent, ast.ClassDef)
            body_ctx = Context((), node, ctx.parent if in_class else None, False, node)
            self._record_contexts(node.body, body_ctx)
            return
        if isinstance(node, ast.ClassDef):
            self._record_contexts(node.decorator_list + node.bases, inner)
            self._record_contexts(node.body, Context((), None, None, False, node))
            return
        if isinstance(node, ast.Lambda):
            self._record_contexts(_defaults(node), inner)
            self._record(node.body, Context((), None, None, False, node))
            return
        if isinstance(node, ast.For | ast.AsyncFor):
            self._record_contexts([node.target, node.iter], inner)
            looped = Context((*ctx.loops, node), ctx.function, ctx.class_, ctx.conditional, node)
            self._record_contexts(node.body, looped)
            self._record_contexts(node.orelse, inner)
            return
        if isinstance(node, ast.While):
            looped = Context((*ctx.loops, node), ctx.function, ctx.class_, ctx.conditional, node)
            self._record_contexts([node.test, *node.body], looped)
            self._record_contexts(node.orelse, inner)
            return
        if isinstance(node, COMPREHENSION):
            first_iter = node.generators[0].iter
            self._record(first_iter, inner)
            looped = Context((*ctx.loops, node), ctx.function, ctx.class_, ctx.conditional, node)
            rest = [c for c in ast.iter_child_nodes(node) if c is not first_iter]
            self._record_contexts(rest, looped)
            return
        if isinstance(node, ast.If | ast.IfExp | ast.Try):
            guarded = Context(ctx.loops, ctx.function, ctx.class_, True, node)
            children = list(ast.iter_child_nodes(node))
            self._record_contexts(children, guarded)
            return
        self._record_contexts(list(ast.iter_child_nodes(node)), inner)

    # --- tf.functions -------------------------------------------------------------------

    def _tf_function_options(self, node: ast.AST) -> tuple[bool, bool] | None:
        """(has input_signature, autograph) if ``node`` is ``tf.function`` or a call of it
        used as a decorator or wrapper; None otherwise."""
        if self.resolves_to(node, "tf.function"):
            return False, True
        if isinstance(node, ast.Call) and self.resolves_to(node.func, "tf.function"):
            options = {k.arg: k.value for k in node.keywords}
            signature = options.get("input_signature")
            has_signature = signature is not None and not (
                isinstance(signature, ast.Constant) and signature.value is None
            )
            autograph = options.get("autograph")
            autograph_off = isinstance(autograph, ast.Constant) and autograph.value is False
            return has_signature, not autograph_off
        return None

    def _decorator_options(self, definition: FUNCTION) -> tuple[bool, bool] | None:
        for decorator in definition.decorator_list:
            options = self._tf_function_options(decorator)
            if options is not None:
                return options
        return None

    def wrapper_call(self, node: ast.AST) -> tuple[ast.Call, tuple[bool, bool]] | None:
        """``tf.function(target, ...)`` (the call that wraps a target), with its options."""
        if (
            isinstance(node, ast.Call)
            and self.resolves_to(node.func, "tf.function")
            and (node.args or any(k.arg == "func" for k in node.keywords))
        ):
            return node, self._tf_function_options(node)
        return None

    def _wrapped_target(self, call: ast.Call) -> ast.AST | None:
        target = call.args[0] if call.args else next(k.value for k in call.keywords)
        if isinstance(target, ast.Name):
            return self._defs.get(target.id)
        return target if isinstance(target, ast.Lambda) else None

    def _find_traced_functions(self):
        by_name: dict[str, TracedFunction] = {}
        by_attribute: dict[tuple[str, str], TracedFunction] = {}
        for node, ctx in self.nodes():
            if isinstance(node, FUNCTION):
                options = self._decorator_options(node)
                if options is None:
                    continue
                traced = TracedFunction(node.name, node, *options, model=self)
                if isinstance(ctx.parent, ast.ClassDef) and ctx.function is None:
                    by_attribute[(ctx.parent.name, node.name)] = traced
                else:
                    by_name[node.name] = traced
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                wrapped = self.wrapper_call(node.value)
                if wrapped is None:
                    continue
                call, options = wrapped
                target = self._wrapped_target(call)
                definition = target if isinstance(target, FUNCTION) else None
                name_node = node.targets[0]
                if isinstance(name_node, ast.Name):
                    by_name[name_node.id] = TracedFunction(
                        name_node.id, definition, *options, model=self
                    )
                elif _is_self_attribute(name_node) and ctx.class_ is not None:
                    by_attribute[(ctx.class_.name, name_node.attr)] = TracedFunction(
                        name_node.attr, definition, *options, model=self
                    )
        ambiguous = _names_bound_more_than_once(self.tree)
        return {n: t for n, t in by_name.items() if n not in ambiguous}, by_attribute

    def traced_function_of(self, func: ast.AST, ctx: Context) -> TracedFunction | None:
        """The tf.function a call's ``func`` refers to, if this module defines it."""
        if isinstance(func, ast.Name):
            return self._traced_by_name.get(func.id)
        if _is_self_attribute(func) and ctx.class_ is not None:
            return self._traced_by_attribute.get((ctx.class_.name, func.attr))
        wrapped = self.wrapper_call(func)  # tf.function(f, ...)(args)
        if wrapped is not None:
            call, options = wrapped
            target = self._wrapped_target(call)
            definition = target if isinstance(target, FUNCTION) else None
            name = definition.name if definition is not None else "the tf.function"
            return self._immediate(call, name, definition, options)
        return None

    def _immediate(self, call, name, definition, options) -> TracedFunction:
        cache = self.__dict__.setdefault("_immediates", {})
        if id(call) not in cache:
            cache[id(call)] = TracedFunction(name, definition, *options, model=self)
        return cache[id(call)]

    def traced_calls(self) -> Iterator[tuple[ast.Call, TracedFunction, Context]]:
        for node, ctx in self.nodes():
            if isinstance(node, ast.Call):
                traced = self.traced_function_of(node.func, ctx)
                if traced is not None:
                    yield node, traced, ctx

    def traced_bodies(self) -> list[TracedFunction]:
        seen: dict[int, TracedFunction] = {}
        everything = [*self._traced_by_name.values(), *self._traced_by_attribute.values()]
        everything += list(self.__dict__.get("_immediates", {}).values())
        for traced in everything:
            if traced.definition is not None:
                known = seen.setdefault(id(traced.definition), traced)
                known.tensor_positions |= traced.tensor_positions
                known.float32_arguments |= traced.float32_arguments
                known.autograph = known.autograph and traced.autograph
                known.has_signature = known.has_signature or traced.has_signature
        return list(seen.values())

    def _find_tensor_arguments(self) -> None:
        for call, traced, _ in self.traced_calls():
            for position, argument in enumerate(call.args):
                if self.calls_tensorflow(argument):
                    traced.tensor_positions.add(position)
                if self.is_float32(argument):
                    traced.float32_arguments.add(position)
            for keyword in call.keywords:
                if keyword.arg is not None and self.is_float32(keyword.value):
                    traced.float32_arguments.add(keyword.arg)

    def is_float32(self, node: ast.AST) -> bool:
        """A Python float, or a tensor or array made float32 (by default or by its dtype)."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, float)
        if not isinstance(node, ast.Call):
            return False
        name = self.qualified_name(node.func) or ""
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
                for n in ast.walk(node.args[0])
            )
        return name in _FLOAT32_BY_DEFAULT and len(node.args) <= 1

    # --- tf.functions created per call ----------------------------------------------------

    @functools.cached_property
    def function_creations(self) -> list[Creation]:
        creations = []
        for node, ctx in self.nodes():
            if ctx.loops == () and ctx.function is None:
                continue  # created once, at module or class level
            if self._inside_traced_body(ctx):
                continue  # created while tracing: once per trace, not per call
            if isinstance(node, FUNCTION) and self._decorator_options(node) is not None:
                if isinstance(ctx.parent, ast.ClassDef) and ctx.function is None:
                    continue
                called = self._called_and_kept(node.name, ctx)
                creations.append(Creation(node, node, ctx, called))
            elif self.wrapper_call(node) is not None:
                creations.append(
                    Creation(node, self._wrapped_target(node), ctx, self._called_here(node, ctx))
                )
        return creations

    def _inside_traced_body(self, ctx: Context) -> bool:
        if "_traced_definitions" not in self.__dict__:
            self._traced_definitions = {id(t.definition) for t in self.traced_bodies()}
        return ctx.function is not None and id(ctx.function) in self._traced_definitions

    def _called_here(self, node: ast.Call, ctx: Context) -> bool:
        parent = ctx.parent
        if isinstance(parent, ast.Call) and parent.func is node:
            return True
        if (
            isinstance(parent, ast.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)
        ):
            return self._called_and_kept(parent.targets[0].id, ctx)
        return False

    def _called_and_kept(self, name: str, ctx: Context) -> bool:
        """``name`` is called in the scope that created it, and never leaves it."""
        scope = _loop_body(ctx.loops[-1]) if ctx.loops else ctx.function.body
        called = escapes = False
        for node in walk_local(scope):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called |= node.func.id == name
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                parent = self._contexts.get(id(node))
                if not (isinstance(parent.parent, ast.Call) and parent.parent.func is node):
                    escapes = True
            if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
                escapes = True
        return called and not escapes

    def called_in_a_loop(self, function: FUNCTION) -> bool:
        ctx = self.context(function)
        is_method = isinstance(ctx.parent, ast.ClassDef) and ctx.function is None
        for node, call_ctx in self.nodes():
            if not isinstance(node, ast.Call) or not call_ctx.loops:
                continue
            if is_method:
                if _is_self_attribute(node.func) and node.func.attr == function.name:
                    return True
            elif isinstance(node.func, ast.Name) and node.func.id == function.name:
                return self._defs.get(function.name) is function
        return False

    # --- Keras models -------------------------------------------------------------------

    def _model_builders(self) -> set[str]:
        """Functions of this module that return a model they build."""
        built_in: dict[int, set[str]] = {}  # function -> names assigned a new model
        returns = []
        for node, ctx in self.nodes():
            if ctx.function is None:
                continue
            if isinstance(node, ast.Assign) and self._constructs_model(node.value, set()):
                names = {t.id for t in node.targets if isinstance(t, ast.Name)}
                built_in.setdefault(id(ctx.function), set()).update(names)
            elif isinstance(node, ast.Return) and node.value is not None:
                returns.append((node.value, ctx.function))
        return {
            function.name
            for value, function in returns
            if self._constructs_model(value, set())
            or (isinstance(value, ast.Name) and value.id in built_in.get(id(function), ()))
        }

    def _constructs_model(self, node: ast.AST, builders: set[str]) -> bool:
        return isinstance(node, ast.Call) and (
            self.resolves_to(node.func, "model")
            or (isinstance(node.func, ast.Name) and node.func.id in builders)
        )

    def constructs_model(self, node: ast.AST) -> bool:
        return self._constructs_model(node, self._builders)

    def _model_names(self) -> set[str]:
        if "_model_name_set" in self.__dict__:
            return self._model_name_set
        self._model_name_set = {
            target.id
            for node, _ in self.nodes()
            if isinstance(node, ast.Assign) and self.constructs_model(node.value)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        return self._model_name_set

    def is_keras_model(self, node: ast.AST) -> bool:
        """Built by Keras in this module, or named like a model in a Keras-only module."""
        if self.constructs_model(node):
            return True
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if name is None:
            return False
        if isinstance(node, ast.Name) and name in self._model_names():
            return True
        keras_only = (self.imports("keras") or self.imports("tensorflow")) and not any(
            self.imports(other) for other in _OTHER_PREDICTORS
        )
        return keras_only and "model" in name.lower()

    def is_keras_predict(self, call: ast.Call) -> bool:
        return (
            isinstance(call.func, ast.Attribute)
            and call.func.attr in _PREDICT_METHODS
            and self.is_keras_model(call.func.value)
        )

    def models_built_in_loops(self) -> Iterator[ast.Call]:
        found: set[int] = set()
        for loop, _ in self.nodes():
            if not isinstance(loop, ast.For | ast.AsyncFor | ast.While):
                continue
            body = list(walk_local(loop.body))
            built: dict[str, ast.Call] = {}
            for node in body:
                if isinstance(node, ast.Assign) and self.constructs_model(node.value):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            built[target.id] = node.value
            for node in body:
                if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                    continue
                receiver = node.func.value
                if node.func.attr in _PREDICT_METHODS and self.constructs_model(receiver):
                    construction = receiver
                elif (
                    node.func.attr in _PREDICT_METHODS
                    and isinstance(receiver, ast.Name)
                    and receiver.id in built
                    and not _calls_method(body, receiver.id, _TRAINING_METHODS)
                ):
                    construction = built[receiver.id]
                else:
                    continue
                if id(construction) not in found:
                    found.add(id(construction))
                    yield construction

    def predicts_in_loops(self) -> Iterator[ast.Call]:
        in_traced = {id(n) for t in self.traced_bodies() for n, _ in t.body_nodes()}
        for node, ctx in self.nodes():
            if (
                not isinstance(node, ast.Call)
                or not isinstance(node.func, ast.Attribute)
                or node.func.attr != "predict"
                or not ctx.loops
                or id(node) in in_traced
                or not self.is_keras_model(node.func.value)
            ):
                continue
            innermost = ctx.loops[-1]
            if isinstance(innermost, ast.For | ast.AsyncFor) and isinstance(
                innermost.iter, ast.List | ast.Tuple
            ):
                continue  # a few listed inputs, not a loop over batches
            receiver = ast.unparse(node.func.value)
            trains = any(
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in _TRAINING_METHODS
                and ast.unparse(n.func.value) == receiver
                for loop in ctx.loops
                for n in walk_local(_loop_body(loop))
            )
            built_here = any(
                isinstance(n, ast.Assign)
                and self.constructs_model(n.value)
                and any(ast.unparse(t) == receiver for t in n.targets)
                for loop in ctx.loops
                for n in walk_local(_loop_body(loop))
            )
            if not trains and not built_here and not self.constructs_model(node.func.value):
                yield node

    # --- custom objects -----------------------------------------------------------------

    def identity_keyed_class(self, node: ast.AST) -> str | None:
        """The name of a class of this module whose new instances each make a new trace."""
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return None
        cls = next(
            (n for n in self.tree.body if isinstance(n, ast.ClassDef) and n.name == node.func.id),
            None,
        )
        if cls is None or any(
            not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases
        ):
            return None  # a base class may define the tracing protocol
        members = {getattr(m, "name", None) for m in cls.body if isinstance(m, FUNCTION)} | {
            t.id
            for m in cls.body
            if isinstance(m, ast.Assign)
            for t in m.targets
            if isinstance(t, ast.Name)
        }
        if "__tf_tracing_type__" in members or "__slots__" in members:
            return None
        if "__eq__" in members and "__hash__" not in members:
            return None  # unhashable: tf.function refuses it with a TypeError instead
        dataclass_options = self._dataclass_options(cls)
        if dataclass_options is not None and not (
            dataclass_options.get("frozen") and not dataclass_options.get("slots")
        ):
            return None  # unhashable (refused outright) or keyed on its value
        return cls.name

    def _dataclass_options(self, cls: ast.ClassDef) -> dict[str, bool] | None:
        for decorator in cls.decorator_list:
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = self.qualified_name(func) or ""
            if name in {"dataclasses.dataclass"}:
                keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
                return {k.arg: bool(getattr(k.value, "value", False)) for k in keywords if k.arg}
        return None


def numpy_float64_construction(model: ModuleModel, node: ast.AST, ctx: Context) -> str | None:
    """How ``node`` makes a float64 NumPy array without asking for it, if it does."""
    if isinstance(node, ast.Name):
        scope = ctx.function.body if ctx.function is not None else model.tree.body
        values = [
            n.value
            for n in walk_local(scope)
            if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
        ]
        made = [numpy_float64_construction(model, v, ctx) for v in values]
        return made[0] if made and all(made) else None
    if not isinstance(node, ast.Call):
        return None
    name = model.qualified_name(node.func) or ""
    keywords = {k.arg for k in node.keywords}
    short = "np." + name.removeprefix("numpy.")
    if name in _FLOAT64_ALWAYS:
        return f"{short}()"
    if "dtype" in keywords:
        return None
    if name in _FLOAT64_UNLESS_DTYPE and len(node.args) <= _FLOAT64_UNLESS_DTYPE[name]:
        return f"{short}()"
    if name in {"numpy.array", "numpy.asarray"} and len(node.args) == 1:
        literal = node.args[0]
        if isinstance(literal, ast.List | ast.Tuple) and any(
            isinstance(n, ast.Constant) and isinstance(n.value, float) for n in ast.walk(literal)
        ):
            return f"{short}() of Python floats"
    if name == "numpy.full" and len(node.args) == 2:
        fill = node.args[1]
        if isinstance(fill, ast.Constant) and isinstance(fill.value, float):
            return f"{short}() with a float"
    floats = [a for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, float)]
    if name == "numpy.arange" and len(node.args) <= 3 and floats:
        return f"{short}() of floats"
    return None


def _calls_method(nodes: list[ast.AST], receiver: str, methods: frozenset[str]) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in methods
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == receiver
        for n in nodes
    )


def _is_self_attribute(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _defaults(node: FUNCTION | ast.Lambda) -> list[ast.AST]:
    args = node.args
    return [d for d in (*args.defaults, *args.kw_defaults) if d is not None]


def _definitions(tree: ast.Module) -> dict[str, FUNCTION]:
    """Functions defined once in the module (at any depth), by name."""
    found: dict[str, list[FUNCTION]] = {}
    for node in ast.walk(tree):
        if isinstance(node, FUNCTION):
            found.setdefault(node.name, []).append(node)
    return {name: defs[0] for name, defs in found.items() if len(defs) == 1}


def _names_bound_more_than_once(tree: ast.Module) -> set[str]:
    counts: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, FUNCTION | ast.ClassDef):
            counts[node.name] += 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            counts[node.id] += 1
        elif isinstance(node, ast.arg):
            counts[node.arg] += 1
        elif isinstance(node, ast.alias):
            counts[(node.asname or node.name).split(".")[0]] += 1
    return {name for name, count in counts.items() if count > 1}


def _import_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified name, for every import in the module (at any depth)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases
