"""Python values that change from one iteration to the next, read from the source.

A name varies in a loop when the loop binds it to a new Python value each time round: the
counter of ``range`` or ``enumerate``, the item of a literal list of numbers, strings or
booleans, a ``while`` loop's ``i += 1``, a hyperparameter updated in the body
(``lr *= 0.9``, ``flag = not flag``), a value computed from one of those, or a draw from
``random``. A parameter varies when a loop passes such a value to it. An expression is a
*Python scalar* when it is built only from constants, names holding constants and varying
names: anything else (a call we do not know, an attribute) may be a tensor, and is left
alone.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tf_retracing.lint.context import Context
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.syntax import FUNCTION, is_constant, parameters

_SCALAR_CALLS = frozenset({"float", "int", "round", "abs", "min", "max", "str", "bool", "pow"})
_RANDOM_SCALARS = frozenset(
    f"random.{name}"
    for name in ("random", "uniform", "randint", "randrange", "choice", "gauss", "betavariate")
)
# NumPy math that, on scalars, gives a NumPy scalar. A NumPy scalar alone is keyed like a
# tensor (one trace for all values), but such math is mostly mixed with Python numbers
# (min(W_MAX, np.exp(...))), whose result is keyed on its value: followed as a number. A
# dtype conversion (np.float32(x), np.int64(x)) is a NumPy scalar for sure: not listed.
_NUMPY_SCALARS = frozenset(
    f"numpy.{name}"
    for name in (
        "exp",
        "log",
        "sqrt",
        "power",
        "sin",
        "cos",
        "tanh",
        "abs",
        "clip",
        "minimum",
        "maximum",
        "round",
        "floor",
        "ceil",
    )
)
_SCALARS = (int, float, str, bool)
_MAX_DEPTH = 40  # deeper expressions are not followed (and so give no finding)
_ROUNDS = 4  # how far a value computed from a varying one is followed within a loop
_MAX_BINDINGS = 32
_MAX_LISTED = 256  # a range written out as a list of numbers, at most


@dataclass(frozen=True)
class Scalar:
    """What an expression is, as far as the source shows."""

    scalar: bool  # certainly a Python number, string or bool
    varying: str | None  # the varying name it reads, if any


_NOT_SCALAR = Scalar(False, None)


def _literal_targets(target: ast.AST, iterable: ast.AST) -> list[str]:
    """Names of ``target`` that differ between the items of a literal list of numbers (or
    of equal-length tuples of numbers). Listed flags and strings are configurations, one
    trace each on purpose: not followed."""
    if not isinstance(iterable, ast.List | ast.Tuple | ast.Set) or len(iterable.elts) < 2:
        return []
    items = iterable.elts
    if all(is_constant(item) for item in items):
        return [target.id] if isinstance(target, ast.Name) and _differ(items) else []
    if not all(
        isinstance(item, ast.Tuple) and all(is_constant(e) for e in item.elts) for item in items
    ):
        return []
    if isinstance(target, ast.Name):
        return [target.id] if _differ(items) else []  # a shape tuple, say
    if isinstance(target, ast.Tuple) and all(len(i.elts) == len(target.elts) for i in items):
        return [
            name.id
            for position, name in enumerate(target.elts)
            if isinstance(name, ast.Name) and _differ([item.elts[position] for item in items])
        ]
    return []


def _differ(nodes: list[ast.AST]) -> bool:
    return len({ast.dump(node) for node in nodes}) > 1


def _numbers_listed(expr: ast.AST) -> ast.List | None:
    """``[1] + list(range(1, 10))`` as the literal list it is (a range of constants
    written out, up to a few hundred items); None for anything else."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _numbers_listed(expr.left), _numbers_listed(expr.right)
        if left is None or right is None:
            return None
        return ast.List(elts=[*left.elts, *right.elts], ctx=ast.Load())
    if isinstance(expr, ast.List | ast.Tuple):
        return ast.List(elts=list(expr.elts), ctx=ast.Load())
    if (
        isinstance(expr, ast.Call)
        and getattr(expr.func, "id", None) in ("list", "tuple")
        and len(expr.args) == 1
    ):
        expr = expr.args[0]
    bounds = getattr(expr, "args", None)
    if (
        not isinstance(expr, ast.Call)
        or getattr(expr.func, "id", None) != "range"
        or not all(is_constant(a, (int,)) for a in bounds)
    ):
        return None
    try:
        numbers = range(*(ast.literal_eval(a) for a in bounds))
    except ValueError:  # range(0, 4, 0)
        return None
    if len(numbers) > _MAX_LISTED:
        return None
    return ast.List(elts=[ast.Constant(n) for n in numbers], ctx=ast.Load())


class VaryingValues:
    def __init__(self, facts: ModuleFacts):
        self.facts = facts
        self._by_loop: dict[int, frozenset[str]] = {}
        self._constant_names: dict[tuple[int, str], bool] = {}
        self.varying_parameters: dict[int, set[str]] = {}
        self._find_varying_parameters()

    def names(self, ctx: Context) -> frozenset[str]:
        """The names whose value changes between two runs of code in ``ctx``."""
        names: set[str] = set()
        for loop in ctx.loops:
            names |= self._loop_names(loop)
        if ctx.function is not None:
            names |= self.varying_parameters.get(id(ctx.function), set())
        return frozenset(names)

    def classify(self, expr: ast.AST, ctx: Context, varying: frozenset[str]) -> Scalar:
        return self._classify(expr, ctx, varying, 0)

    # --- per loop ------------------------------------------------------------------------

    def _loop_names(self, loop: ast.AST) -> frozenset[str]:
        if id(loop) not in self._by_loop:
            self._by_loop[id(loop)] = frozenset()  # while computing: nothing varies yet
            self._by_loop[id(loop)] = self._compute_loop_names(loop)
        return self._by_loop[id(loop)]

    def _compute_loop_names(self, loop: ast.AST) -> frozenset[str]:
        ctx = self.facts.context(loop)
        names = set(self._iteration_targets(loop))
        stored = self.facts.loop_stores.get(id(loop), set())
        for _ in range(_ROUNDS):  # a value computed from a varying one varies too
            changed = False
            for name in sorted(stored - names):
                if self._updated_in_loop(name, loop, ctx, frozenset(names)):
                    names.add(name)
                    changed = True
            if not changed:
                break
        return frozenset(names)

    def _iteration_targets(self, loop: ast.AST) -> list[str]:
        """The targets that take a new number on each iteration: ``range``'s counter,
        ``enumerate``'s index, and the items of a literal list of numbers or of tuples of
        numbers (``for height, width in ((32, 48), (40, 40))``), where they differ."""
        if isinstance(loop, ast.While):
            return []
        pairs = (
            [(g.target, g.iter) for g in loop.generators]
            if hasattr(loop, "generators")
            else [(loop.target, loop.iter)]
        )
        names = []
        for target, iterable in pairs:
            call = (
                iterable.func.id
                if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
                else None
            )
            if call == "range" and isinstance(target, ast.Name):
                names.append(target.id)
            elif call == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                if isinstance(target.elts[0], ast.Name):
                    names.append(target.elts[0].id)
                if iterable.args:
                    items = self._listed(iterable.args[0], loop)
                    names += _literal_targets(target.elts[1], items)
            else:
                names += _literal_targets(target, self._listed(iterable, loop))
        return names

    def _listed(self, iterable: ast.AST, loop: ast.AST) -> ast.AST:
        """The list a loop runs over: written in the loop, or the one literal list of
        numbers a name is only ever bound to (``sizes = [8, 16, 32]``, then
        ``for size in sizes``); ``[1] + list(range(1, 10))`` is such a list too."""
        if isinstance(iterable, ast.Name):
            values = self.facts.values_of(iterable.id, self.facts.context(loop))
            if len(values) != 1:
                return iterable
            iterable = values[0]
        return _numbers_listed(iterable) or iterable

    def _updated_in_loop(self, name: str, loop: ast.AST, ctx: Context, varying) -> bool:
        """Every binding of ``name`` in its scope is a Python scalar, and one inside the loop
        changes it: ``lr *= 0.9``, ``flag = not flag``, ``w = W_MAX * epoch / N``."""
        values = ctx.scope.bindings.get(name, [])
        if len(values) > _MAX_BINDINGS:
            return False  # a name reused all over a long script: not followed, to stay linear
        inside = False
        for value in values:
            in_loop = loop in self._loops_of(value)
            if isinstance(value, ast.AugAssign):
                operand = self.classify(value.value, ctx, varying)
                if not operand.scalar:
                    return False
                inside |= in_loop
                continue
            if isinstance(value, (*FUNCTION, ast.arguments)) or not isinstance(value, ast.expr):
                return False
            found = self.classify(value, ctx, varying | {name})
            if not found.scalar:
                return False
            inside |= in_loop and found.varying is not None
        return inside

    def _loops_of(self, node: ast.AST) -> tuple[ast.AST, ...]:
        ctx = self.facts.contexts.get(id(node))
        return ctx.loops if ctx is not None else ()

    # --- parameters ----------------------------------------------------------------------

    def _find_varying_parameters(self) -> None:
        """A parameter of the file's function varies when a loop passes it a varying scalar
        (two rounds: a function called by a function that gets one)."""
        for _ in range(2):
            for call, ctx in self.facts.calls:
                if not ctx.loops and ctx.function is None:
                    continue
                target = self.facts.called_function(call, ctx)
                if target is None:
                    continue
                varying = self.names(ctx)
                if not varying:
                    continue
                for parameter in self._parameters_given(call, target, ctx, varying):
                    self.varying_parameters.setdefault(id(target), set()).add(parameter)

    def _parameters_given(self, call, target, ctx, varying) -> list[str]:
        names = parameters(target)
        if names[:1] in (["self"], ["cls"]) and isinstance(call.func, ast.Attribute):
            names = names[1:]
        given = [(names[i], a) for i, a in enumerate(call.args) if i < len(names)]
        given += [(k.arg, k.value) for k in call.keywords if k.arg in names]
        return [name for name, arg in given if self.classify(arg, ctx, varying).varying is not None]

    # --- expressions ---------------------------------------------------------------------

    def _classify(self, expr: ast.AST, ctx: Context, varying, depth: int) -> Scalar:
        if depth > _MAX_DEPTH:
            return _NOT_SCALAR
        if is_constant(expr, _SCALARS):
            return Scalar(True, None)
        if isinstance(expr, ast.Name):
            if expr.id in varying:
                return Scalar(True, expr.id)
            return Scalar(self._holds_constant(expr.id, ctx), None)
        parts = self._scalar_parts(expr)
        if parts is None:
            return _NOT_SCALAR
        reads = None
        for part in parts:
            found = self._classify(part, ctx, varying, depth + 1)
            if not found.scalar:
                return _NOT_SCALAR
            reads = reads or found.varying
        if isinstance(expr, ast.Call) and self.facts.qualified_name(expr.func) in _RANDOM_SCALARS:
            reads = reads or "a random draw"
        return Scalar(True, reads)

    def _scalar_parts(self, expr: ast.AST) -> list[ast.AST] | None:
        """The operands of an expression that is a scalar when they are; None otherwise."""
        if isinstance(expr, ast.BinOp):
            return [expr.left, expr.right]
        if isinstance(expr, ast.UnaryOp):
            return [expr.operand]
        if isinstance(expr, ast.BoolOp):
            return list(expr.values)
        if isinstance(expr, ast.Compare):
            return [expr.left, *expr.comparators]
        if isinstance(expr, ast.IfExp):
            return [expr.test, expr.body, expr.orelse]
        if isinstance(expr, ast.JoinedStr):
            return [v.value for v in expr.values if isinstance(v, ast.FormattedValue)]
        if isinstance(expr, ast.Call) and not expr.keywords:
            if isinstance(expr.func, ast.Name) and expr.func.id in _SCALAR_CALLS:
                return list(expr.args)
            name = self.facts.qualified_name(expr.func) or ""
            if name in _RANDOM_SCALARS or name.startswith("math.") or name in _NUMPY_SCALARS:
                return [a for a in expr.args if not isinstance(a, ast.List | ast.Tuple)]
        return None

    def _holds_constant(self, name: str, ctx: Context) -> bool:
        """Every binding the name has, where ``ctx`` reads it, is a scalar literal."""
        key = (id(ctx.scope), name)
        if key not in self._constant_names:
            values = self.facts.values_of(name, ctx)
            self._constant_names[key] = bool(values) and all(
                is_constant(v, _SCALARS) for v in values
            )
        return self._constant_names[key]


def varying_values(facts: ModuleFacts) -> VaryingValues:
    """One VaryingValues per module, shared by the rules."""
    return facts.derived(VaryingValues)
