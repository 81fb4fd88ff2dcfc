"""Say why a ``tf.function`` traced again: which argument, what changed, what to try.

Usage::

    from tf_retracing import explain_retracing, tracing_budget

    @explain_retracing                 # on a plain function, or on top of @tf.function
    def predict(x): ...

    predict.retrace_reasons            # one RetraceReason per retrace
    with tracing_budget(predict, 1):   # in a test: fail if it traces more than once
        ...

Whole program, without editing it::

    python -m tf_retracing.explain script.py [args]

How it stays cheap: the watched object is a real ``tf.function`` whose Python function
is wrapped by a hook. TensorFlow runs the Python function only while it traces, so the
hook, and all the work of explaining, runs only when a trace happens; a call that reuses
a trace runs exactly TensorFlow's own code. At a trace the hook reads the call's trace
type from TensorFlow's tracing frame, and the reason is recorded only when TensorFlow adds
the new trace to its cache, so a trace that fails leaves nothing behind.

Timing the overhead (benchmark scenario ``explainer_overhead``): compare, side by side,
the same body as a plain tf.function and as a watched one::

    plain = tf.function(body)
    watched = explain_retracing(tf.function(body))   # same options, watched

- Calls that do not retrace: call each once with an input, then time calls of each with
  inputs of that same shape and dtype (interleave the two); neither traces again.
- Calls that retrace: time calls that each trace (a new shape every call) on both; the
  watched minus the plain time per call is the explainer's extra work at a retrace.
  That includes the one warning per retrace on the ``retrace`` logger; to time only the
  bookkeeping, give that logger a ``logging.NullHandler()`` and ``propagate = False``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator

import tensorflow as tf

from tf_retracing import _internals
from tf_retracing._internals import (
    ConcreteFunction,
    FunctionCache,
    FunctionContext,
    PolymorphicFunction,
    default_types,
    make_decorator,
)
from tf_retracing.explainer_types import (
    KINDS,
    REPORT_URL,
    RetraceReason,
    RetracingBudgetExceeded,
)

__all__ = [
    "KINDS",
    "RetraceReason",
    "RetracingBudgetExceeded",
    "WatchedFunction",
    "explain_retracing",
    "guard_retracing",
    "report",
    "report_data",
    "tracing_budget",
    "watch_every_tf_function",
]

LOGGER = logging.getLogger("retrace")
_TRACING_CODE = _internals.TRACING_CODE
_TF_FUNCTION_OPTIONS = frozenset(inspect.signature(tf.function).parameters) - {"func"}


@dataclasses.dataclass(frozen=True)
class _Change:
    """One difference between a call and an earlier trace."""

    argument: str | None
    kind: str
    before: str
    after: str
    advice: str  # what changed and what to try, without the function's name


@dataclasses.dataclass
class _Trace:
    """What one trace was made for: argument types by display name, and context."""

    call: dict  # argument -> trace type of the call that traced
    traced: dict  # argument -> trace type of the graph (generalised by reduce_retracing)
    context: FunctionContext
    descriptions: dict  # id(Weakref type) -> description, kept while the object lived
    reason: RetraceReason | None = None
    started: float = dataclasses.field(default_factory=time.perf_counter)  # body entered
    ms: float | None = None  # what the trace took, set when it is recorded


_NO_VISIBLE_CHANGE = (
    "no argument or call context differs from an earlier trace in what the explainer can "
    f"see, so the cause is unknown. Please report it at {REPORT_URL}."
)


class _CodeStats:
    """How many watched tf.function objects wrap one Python code object."""

    def __init__(self):
        self.created = 0
        self.traced = 0


_CODE_STATS: dict = {}  # code object -> _CodeStats
_SESSION_WATCHES: list = []  # every watch made while watch_every_tf_function is active


class _Watch:
    """The trace history of one watched tf.function (every instance, for a method)."""

    def __init__(self, name: str, where: str, code):
        self.name = name
        self.where = where
        self.code = code
        self.traces: list[_Trace] = []
        self.reasons: list[RetraceReason] = []
        self.root_cache = None
        self.stats = _CODE_STATS.setdefault(code, _CodeStats())
        self.stats.created += 1
        self.counted_as_traced = False

    # --8<-- [start:hook]
    def before_body(self, args: tuple) -> None:
        """Runs when TensorFlow runs the Python body, which it does only to trace."""
        frame = sys._getframe(1)
        while frame is not None and frame.f_code is not _TRACING_CODE:
            frame = frame.f_back
        if frame is None:  # run eagerly (tf.config.run_functions_eagerly): no trace
            return
        tracing = _internals.tracing_locals(frame)
        if tracing is None or not isinstance(tracing["cache"], _RecordingCache):
            return  # not a trace of ours (a clone of a watched function), or unreadable
        cache = tracing["cache"]
        var_positional = _var_positional_name(tracing["polymorphic_type"])
        call = _parameters(tracing["call_type"], var_positional)
        traced = _parameters(tracing["traced_type"], var_positional)
        if cache is not self.root_cache:  # a method, traced for one instance
            instance = default_types.Weakref(weakref.ref(args[0]))
            call, traced = {"self": instance, **call}, {"self": instance, **traced}
        # Recorded when TensorFlow adds the trace to its cache (see _RecordingCache).
        cache.pending = (self, _Trace(call, traced, tracing["context"], {}))

    # --8<-- [end:hook]

    def commit(self, trace: _Trace) -> None:
        """Record a trace TensorFlow has just added to its cache, and explain it."""
        # From the Python body's start to the graph in the cache: what this trace cost.
        trace_ms = trace.ms = (time.perf_counter() - trace.started) * 1e3
        _describe_objects(trace)
        number = len(self.traces) + 1
        if self.traces:
            trace.reason = self._explain(trace, number)
        elif self.stats.traced:
            trace.reason = self._explain_new_function(number)
        if trace.reason is not None:
            trace.reason = dataclasses.replace(trace.reason, trace_ms=trace_ms)
        self.traces.append(trace)
        if not self.counted_as_traced:
            self.counted_as_traced = True
            self.stats.traced += 1
        if trace.reason is not None:
            self.reasons.append(trace.reason)
            LOGGER.warning("%s", trace.reason.message)

    def commit_unexplained(self, trace: _Trace, error: Exception) -> None:
        """Record a trace whose explanation failed: the cause is unknown, say so."""
        number = len(self.traces) + 1
        trace.reason = RetraceReason(
            function=self.name,
            trace=number,
            argument=None,
            kind="unknown",
            before="",
            after="",
            message=(
                f"`{self.name}` traced (trace {number}); the explainer could not tell why "
                f"({type(error).__name__}: {error}). Please report it at {REPORT_URL} "
                f"with your TensorFlow version ({tf.__version__})."
            ),
        )
        self.traces.append(trace)
        self.reasons.append(trace.reason)
        LOGGER.warning("%s", trace.reason.message)

    def _explain(self, trace: _Trace, number: int) -> RetraceReason:
        closest = None
        for earlier in reversed(self.traces):  # ties go to the most recent trace
            changes = _changes(earlier, trace)
            if closest is None or len(changes) < len(closest):
                closest = changes
            if len(closest) <= 1:  # a retrace differs somewhere: none can be closer
                break
        if not closest:  # TensorFlow traced again, yet no argument or context differs
            closest = [_Change(None, "unknown", "", "", _NO_VISIBLE_CHANGE)]
        first, *others = closest
        message = f"`{self.name}` traced again (trace {number}): {first.advice}"
        if others:
            also = "; ".join(_short(change) for change in others)
            message += f" Also different from that trace: {also}."
        return RetraceReason(
            function=self.name,
            trace=number,
            argument=first.argument,
            kind=first.kind,
            before=first.before,
            after=first.after,
            message=message,
            others=tuple(_short(change) for change in others),
        )

    def _explain_new_function(self, number: int) -> RetraceReason:
        created = self.stats.created
        message = (
            f"`{self.name}` traced again because a new tf.function object was made for the "
            f"same Python code ({self.where}): {created} tf.function objects so far, each "
            "starting with an empty trace cache. Create the tf.function once, outside the "
            "loop or request handler that runs this line, and reuse it."
        )
        return RetraceReason(
            function=self.name,
            trace=number,
            argument=None,
            kind="object",
            before=f"{created - 1} tf.function object{'s' if created > 2 else ''}",
            after=f"{created} tf.function objects",
            message=message,
            count=created,
        )


class _RecordingCache(FunctionCache):
    """TensorFlow's trace cache, which records the pending trace when it is added."""

    __slots__ = ("pending",)

    def __init__(self):
        super().__init__()
        self.pending = None

    def add(self, fn, context=None):
        super().add(fn, context)
        pending, self.pending = self.pending, None
        if pending is not None:
            watch, trace = pending
            try:
                watch.commit(trace)
            except Exception as error:  # the explanation must never break the call
                watch.commit_unexplained(trace, error)
            _enforce_guards(watch, trace.reason)  # may raise, by the user's choice


class RetracingGuard:
    """Active inside ``guard_retracing``: counts traces, acts on retraces after warm-up.

    Process-wide and thread-safe: a serving process's worker threads all report here.
    """

    def __init__(self, functions: tuple, action: str, warmup: int):
        self.watches = {id(function._watch) for function in functions}
        self.action = action
        self.warmup = warmup
        self.reasons: list[RetraceReason] = []  # every retrace after warm-up, oldest first
        self._traces: dict = {}  # Python code -> traces seen inside the guard
        self._logged: set = set()  # Python code already logged: once each
        self._lock = threading.Lock()

    def covers(self, watch: _Watch) -> bool:
        return not self.watches or id(watch) in self.watches

    def check(self, watch: _Watch, reason: RetraceReason | None) -> bool | None:
        """Count one trace. None: nothing to do; else whether it is the function's first
        retrace after warm-up (the one to log)."""
        if not self.covers(watch) or _creates_variables_once(reason):
            return None
        with self._lock:
            # All tf.function objects made for one Python code count together: a new
            # tf.function per request is a retrace of that code.
            seen = self._traces[watch.code] = self._traces.get(watch.code, 0) + 1
            if reason is None or seen <= self.warmup:
                return None
            self.reasons.append(reason)
            first = watch.code not in self._logged
            self._logged.add(watch.code)
            return first


_GUARDS: list[RetracingGuard] = []
_GUARDS_LOCK = threading.Lock()


def _creates_variables_once(reason: RetraceReason | None) -> bool:
    """The second trace of a first call that created variables: part of that call."""
    return (
        reason is not None
        and reason.kind == "context"
        and reason.before == _SCOPES[_internals.SCOPE_TYPES.VARIABLE_CREATION]
    )


def _enforce_guards(watch: _Watch, reason: RetraceReason | None) -> None:
    raising = None
    for guard in tuple(_GUARDS):
        first = guard.check(watch, reason)
        if first is None:
            continue
        if guard.action == "raise":
            raising = raising or guard
        elif first:
            LOGGER.error("retrace after warm-up (logged once per function): %s", reason.message)
    if raising is not None:
        raise RetracingBudgetExceeded(f"retrace after warm-up: {reason.message}")


@contextlib.contextmanager
def guard_retracing(*functions, action: str = "raise", warmup: int = 0) -> Iterator[RetracingGuard]:
    """Inside the block, a retrace of the given watched functions (of every watched
    function, if none is given) raises ``RetracingBudgetExceeded`` (``action="raise"``)
    or logs its reason once per function on the ``retrace`` logger (``action="log"``).

    Warm up before the block, or let the first ``warmup`` traces of each function inside
    the block be its warm-up. The guard is process-wide: retraces in any thread count.
    The call that retraced keeps its new trace; with ``"log"`` it also returns its result.
    """
    if action not in ("raise", "log"):
        raise ValueError(f"guard_retracing(): action must be 'raise' or 'log', got {action!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"guard_retracing(): warmup must be an int >= 0, got {warmup!r}")
    for function in functions:
        if getattr(function, "_watch", None) is None:
            raise TypeError(
                f"guard_retracing() needs functions from explain_retracing, got {function!r}"
            )
    guard = RetracingGuard(functions, action, warmup)
    with _GUARDS_LOCK:
        _GUARDS.append(guard)
    try:
        yield guard
    finally:
        with _GUARDS_LOCK:
            _GUARDS.remove(guard)


class WatchedFunction(PolymorphicFunction):
    """A tf.function that records why it traces; calls run TensorFlow's own code."""

    _watch: _Watch | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _internals.set_function_cache(self, _RecordingCache())

    @property
    def retrace_reasons(self) -> list[RetraceReason]:
        """One RetraceReason per retrace so far, oldest first."""
        return list(self._watch.reasons)

    def __get__(self, instance, owner):
        # A method gets one tf.function per instance; share this history with it.
        bound = super().__get__(instance, owner)
        if bound is not self and bound._watch is None:
            bound._watch = self._watch
        return bound


def explain_retracing(fn=None, /, **tf_function_options):
    """Watch a tf.function (or a Python function, wrapped in one) and explain retraces.

    Returns a tf.function that behaves like ``fn`` and has ``.retrace_reasons``. Options
    such as ``input_signature`` or ``reduce_retracing`` are passed to ``tf.function`` when
    ``fn`` is a plain function. Works as ``@explain_retracing`` and
    ``@explain_retracing(reduce_retracing=True)``.
    """
    unknown = sorted(set(tf_function_options) - _TF_FUNCTION_OPTIONS)
    if unknown:
        raise TypeError(
            f"explain_retracing(): {', '.join(map(repr, unknown))} is not a tf.function "
            f"option; the options are {', '.join(sorted(_TF_FUNCTION_OPTIONS))}"
        )
    if fn is None:
        return lambda function: explain_retracing(function, **tf_function_options)
    if isinstance(fn, ConcreteFunction):
        raise TypeError(
            "explain_retracing() got a ConcreteFunction, which never retraces; "
            "pass the tf.function it came from"
        )
    if not callable(fn):
        raise TypeError(
            f"explain_retracing() needs a tf.function or a Python callable, "
            f"got {type(fn).__name__} {fn!r}"
        )
    if isinstance(fn, PolymorphicFunction):
        if tf_function_options:
            raise ValueError(
                f"explain_retracing(): {fn.python_function!r} is already a tf.function, so "
                f"options {sorted(tf_function_options)} cannot be applied; pass them to the "
                "tf.function that creates it"
            )
        if isinstance(fn, WatchedFunction) and fn._watch is not None:
            return fn
        return _watched_copy(fn)
    return _watched_copy(_ORIGINAL_TF_FUNCTION(fn, **tf_function_options))


def _watched_copy(function: PolymorphicFunction) -> WatchedFunction:
    """A WatchedFunction with the same Python function and options as ``function``."""
    python_function = function.python_function
    watch = _Watch(_display_name(python_function), _where(python_function), _code(function))
    watched = WatchedFunction(
        _trace_hook(python_function, watch), **_internals.function_options(function)
    )
    _internals.copy_rendezvous(function, watched)
    watched._watch = watch
    watch.root_cache = _internals.function_cache(watched)
    if _SESSION_ACTIVE:
        _SESSION_WATCHES.append(watch)
    return make_decorator(python_function, watched, decorator_name="tf.function")


def _trace_hook(python_function: Callable, watch: _Watch) -> Callable:
    """Wrap the Python body so that ``watch`` sees each trace; AutoGraph still converts it."""

    def trace_hook(*args, **kwargs):
        try:
            watch.before_body(args)
        except Exception:  # never let the explainer break the user's function
            LOGGER.exception("retrace explainer: could not record a trace of %s", watch.name)
        # Calling __wrapped__ (not python_function) lets AutoGraph swap in its conversion.
        return weak_hook().__wrapped__(*args, **kwargs)

    weak_hook = weakref.ref(trace_hook)
    return make_decorator(python_function, trace_hook, "explain_retracing")


@contextlib.contextmanager
def tracing_budget(fn, max_traces: int) -> Iterator[None]:
    """Fail with RetracingBudgetExceeded if ``fn`` traces more than ``max_traces`` times.

    ``fn`` is a function from explain_retracing (the error then lists the reasons) or
    any tf.function (the error then gives only the count).
    """
    if isinstance(max_traces, bool) or not isinstance(max_traces, int):
        raise TypeError(f"tracing_budget(): max_traces must be an int, got {max_traces!r}")
    if max_traces < 0:
        raise ValueError(f"tracing_budget(): max_traces must be >= 0, got {max_traces}")
    watch = getattr(fn, "_watch", None)
    if watch is None and not isinstance(fn, PolymorphicFunction):
        raise TypeError(
            f"tracing_budget() needs a tf.function or a function from explain_retracing, "
            f"got {type(fn).__name__} {fn!r}"
        )
    count = (lambda: len(watch.traces)) if watch else fn.experimental_get_tracing_count
    start = count()
    yield
    traced = count() - start
    if traced <= max_traces:
        return
    name = watch.name if watch else _display_name(fn.python_function)
    lines = [f"`{name}` traced {traced} times inside the block; the budget is {max_traces}."]
    if watch is None:
        lines.append("Wrap it with explain_retracing() to see why each trace happened.")
    else:
        for trace in watch.traces[start:]:
            why = trace.reason.message if trace.reason else "first trace of this function"
            lines.append(f"  - {why}")
    raise RetracingBudgetExceeded("\n".join(lines))


# Whole-program mode: every tf.function made while active is watched.
_ORIGINAL_TF_FUNCTION = tf.function
_SESSION_ACTIVE = False


def _watching_tf_function(func=None, *args, **options):
    """Stands in for tf.function (same arguments): makes the tf.function, then watches it."""
    if func is None:
        return lambda inner: _watching_tf_function(inner, *args, **options)
    return _watched_copy(_ORIGINAL_TF_FUNCTION(func, *args, **options))


@contextlib.contextmanager
def watch_every_tf_function() -> Iterator[list]:
    """Make ``tf.function`` return watched functions inside the block.

    Yields the list of watches, for ``report()``. Functions created before the block,
    or through an alias of ``tf.function`` taken before it, are not watched.
    """
    global _SESSION_ACTIVE
    if _SESSION_ACTIVE:
        raise RuntimeError("watch_every_tf_function() is already active")
    _SESSION_WATCHES.clear()
    _SESSION_ACTIVE = True
    tf.function = _watching_tf_function
    try:
        yield _SESSION_WATCHES
    finally:
        tf.function = _ORIGINAL_TF_FUNCTION
        _SESSION_ACTIVE = False


REPORT_SCHEMA_VERSION = 1  # of report_data(); raise it when a field changes meaning


@dataclasses.dataclass
class FunctionSummary:
    """One Python function of a whole-program run: every tf.function made for its code."""

    function: str
    defined_at: str
    tf_functions: int
    traces: int
    trace_ms: float  # all its traces: the first ones and the retraces
    retrace_ms: float  # the retraces alone: the time a fix saves
    reasons: list[RetraceReason]


def summarise(watches: list) -> list[FunctionSummary]:
    """Watches grouped by Python code, the costliest retracing first."""
    groups: dict = {}
    for watch in watches:
        groups.setdefault(watch.code, []).append(watch)
    summaries = []
    for group in groups.values():
        traces = [trace for watch in group for trace in watch.traces]
        reasons = [reason for watch in group for reason in watch.reasons]
        summaries.append(
            FunctionSummary(
                function=group[0].name,
                defined_at=group[0].where,
                tf_functions=len(group),
                traces=len(traces),
                trace_ms=sum(trace.ms or 0.0 for trace in traces),
                retrace_ms=sum(reason.trace_ms or 0.0 for reason in reasons),
                reasons=reasons,
            )
        )
    summaries.sort(key=lambda s: (-s.retrace_ms, -len(s.reasons), -s.trace_ms, s.function))
    return summaries


def report_data(watches: list) -> dict:
    """The report as plain, versioned, JSON-serialisable data."""
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "functions": [
            {
                **{k: v for k, v in dataclasses.asdict(s).items() if k != "reasons"},
                "retraces": len(s.reasons),
                "reasons": [reason.as_dict() for reason in s.reasons],
            }
            for s in summarise(watches)
        ],
    }


def report(watches: list) -> str:
    """A table of watched functions, grouped by Python code, the costliest retracing first:
    tf.function objects, traces, retraces, their time, and why they traced again."""
    rows = summarise(watches)
    header = ("function", "defined at", "tf.functions", "traces", "retraces", "trace ms")
    header += ("retrace ms",)
    table = [header] + [
        (
            s.function,
            s.defined_at,
            str(s.tf_functions),
            str(s.traces),
            str(len(s.reasons)),
            f"{s.trace_ms:.1f}",
            f"{s.retrace_ms:.1f}",
        )
        for s in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]
    for name, reasons in ((s.function, s.reasons) for s in rows):
        if not reasons:
            continue
        lines.append("")
        lines.append(f"{name}: why it traced again")
        tally: dict = {}
        for reason in reasons:
            tally.setdefault((reason.kind, reason.argument), []).append(reason)
        for (kind, argument), same in tally.items():
            lines.append(f"  {len(same)} x {kind} of {argument or '(no argument)'}: ")
            lines[-1] += same[-1].message
    return "\n".join(lines)


# Reading trace types -------------------------------------------------------------


def _var_positional_name(function_type) -> str | None:
    for parameter in function_type.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return parameter.name
    return None


def _parameters(function_type, var_positional: str | None) -> dict:
    """Argument display name -> trace type; ``args_2`` of ``*args`` becomes ``args[2]``."""
    result = {}
    for name, parameter in function_type.parameters.items():
        if var_positional and name.startswith(var_positional + "_"):
            index = name[len(var_positional) + 1 :]
            if index.isdigit():
                name = f"{var_positional}[{index}]"
        result[name] = parameter.type_constraint
    return result


def _children(trace_type) -> tuple[str, list] | None:
    """(structure description, [(path suffix, child type)]) for a container type."""
    if isinstance(trace_type, default_types.List):
        items = trace_type.components_tuple.components
        return f"a list of {len(items)}", [(f"[{i}]", c) for i, c in enumerate(items)]
    if isinstance(trace_type, default_types.Tuple):
        items = trace_type.components
        return f"a tuple of {len(items)}", [(f"[{i}]", c) for i, c in enumerate(items)]
    if isinstance(trace_type, default_types.Dict):
        keys = list(trace_type.mapping)
        shown = ", ".join(map(repr, keys))
        return (
            f"a dict with keys {shown}" if keys else "an empty dict",
            [(f"[{key!r}]", trace_type.mapping[key]) for key in keys],
        )
    if isinstance(trace_type, default_types.Attrs):
        trace_type = trace_type.named_attributes
    if isinstance(trace_type, default_types.NamedTuple):
        names = trace_type.attribute_names
        return (
            f"{_article(trace_type.type_name)} {trace_type.type_name}({', '.join(names)})",
            [(f".{n}", c) for n, c in zip(names, trace_type.attributes.components, strict=True)],
        )
    return None


def _describe_objects(trace: _Trace) -> None:
    """Describe each object argument now, while it is alive (it may be collected later)."""

    def visit(trace_type):
        structure = _children(trace_type)
        if structure is not None:
            for _, child in structure[1]:
                visit(child)
        elif isinstance(trace_type, default_types.Weakref):
            target = _internals.weakref_target(trace_type)
            trace.descriptions[id(trace_type)] = (
                f"{type(target).__qualname__} object at {id(target):#x}"
            )

    for trace_type in trace.call.values():
        visit(trace_type)
    for trace_type in trace.traced.values():
        visit(trace_type)


# Comparing a call with an earlier trace ---------------------------------------


def _changes(earlier: _Trace, new: _Trace) -> list[_Change]:
    """Every difference between ``new`` (the call) and ``earlier`` (what it traced)."""
    changes = []
    for name, call_type in new.call.items():
        if name not in earlier.traced:
            changes.append(_new_argument(name, None, _describe(call_type, new)))
        else:
            changes.extend(
                _diff(name, earlier.traced[name], call_type, new.traced[name], earlier, new)
            )
    for name, old_type in earlier.traced.items():
        if name not in new.call:
            changes.append(_new_argument(name, _describe(old_type, earlier), None))
    if earlier.context != new.context:
        changes.append(_context_change(earlier.context, new.context))
    return changes


def _diff(path, old, new, generalised, earlier: _Trace, later: _Trace) -> list[_Change]:
    if new.is_subtype_of(old):
        return []
    old_structure, new_structure = _children(old), _children(new)
    if old_structure or new_structure:
        same_layout = (
            old_structure
            and new_structure
            and type(old) is type(new)
            and [p for p, _ in old_structure[1]] == [p for p, _ in new_structure[1]]
        )
        if not same_layout:
            return [_structure_change(path, _describe(old, earlier), _describe(new, later), new)]
        general_children = _children(generalised)[1]
        changes = []
        for (suffix, old_child), (_, new_child), (_, general_child) in zip(
            old_structure[1], new_structure[1], general_children, strict=True
        ):
            changes.extend(
                _diff(path + suffix, old_child, new_child, general_child, earlier, later)
            )
        return changes
    return [_leaf_change(path, old, new, generalised, earlier, later)]


def _is_tensor_like(trace_type) -> bool:
    return hasattr(trace_type, "shape") and hasattr(trace_type, "dtype")


def _leaf_change(path, old, new, generalised, earlier, later) -> _Change:
    before, after = _describe(old, earlier), _describe(new, later)
    if isinstance(old, default_types.Literal) or isinstance(new, default_types.Literal):
        return _python_value_change(path, old, new, before, after)
    if _is_tensor_like(old) and _is_tensor_like(new) and type(old) is type(new):
        if old.dtype != new.dtype:
            return _dtype_change(path, old, new)
        return _shape_change(path, old, new, generalised)
    if type(old) is not type(new) or isinstance(new, tf.TypeSpec):
        return _Change(
            path,
            "structure",
            before,
            after,
            f"argument `{path}` was {before} and is now {after}. Pass the same kind of "
            "value on every call.",
        )
    return _object_change(path, before, after)


def _describe(trace_type, trace: _Trace) -> str:
    if isinstance(trace_type, default_types.Literal):
        return repr(trace_type.value)
    if isinstance(trace_type, default_types.Weakref):
        return trace.descriptions.get(id(trace_type), "an object")
    structure = _children(trace_type)
    if structure is not None:
        return structure[0]
    if isinstance(trace_type, tf.TensorSpec):
        dtype = trace_type.dtype.name
        return f"{_article(dtype)} {dtype} tensor of shape {_shape(trace_type.shape)}"
    if _is_tensor_like(trace_type):
        kind = type(trace_type).__name__.removesuffix("Spec")
        dtype = trace_type.dtype.name
        return f"{_article(dtype)} {dtype} {kind} of shape {_shape(trace_type.shape)}"
    return repr(trace_type)


def _shape(shape: tf.TensorShape) -> str:
    if shape.rank is None:
        return "(unknown rank)"
    return str(tuple(shape.as_list()))


def _short(change: _Change) -> str:
    return f"`{change.argument or '(context)'}` {change.kind} {change.before} -> {change.after}"


# The advice for each kind of change -------------------------------------------


def _shape_change(path, old, new, generalised) -> _Change:
    before, after = _shape(old.shape), _shape(new.shape)
    if old.shape.rank != new.shape.rank:
        what = f"rank changed from {old.shape.rank} to {new.shape.rank}"
        fix = (
            f"If the rank varies by design, give `{path}` the spec {_spec(new, None)} in "
            "input_signature (any rank, one trace) or use reduce_retracing=True; otherwise "
            "keep the rank fixed (reshape or add the missing axis before the call)."
        )
    else:
        old_dims, new_dims = old.shape.as_list(), new.shape.as_list()
        changed = [i for i, (a, b) in enumerate(zip(old_dims, new_dims, strict=True)) if a != b]
        what = ", ".join(f"dimension {i}: {old_dims[i]} -> {new_dims[i]}" for i in changed)
        relaxed = [None if i in changed else size for i, size in enumerate(new_dims)]
        fix = (
            f"If that size varies by design, declare it None: give `{path}` the spec "
            f"{_spec(new, relaxed)} in input_signature, "
            "or use reduce_retracing=True; otherwise pad or bucket inputs to a few sizes."
        )
    if generalised.shape != new.shape:
        fix = (
            f"reduce_retracing made this trace general ({_shape(generalised.shape)}), so "
            "later calls that differ only there reuse it."
        )
    advice = f"argument `{path}` changed shape from {before} to {after} ({what}). {fix}"
    return _Change(path, "shape", before, after, advice)


def _spec(trace_type, shape) -> str:
    """The spec that accepts this kind of value with ``shape``, as code to paste."""
    dtype = f"tf.{trace_type.dtype.name}"
    if isinstance(trace_type, tf.RaggedTensorSpec):
        ragged_rank = trace_type.ragged_rank
        return f"tf.RaggedTensorSpec(shape={shape}, dtype={dtype}, ragged_rank={ragged_rank})"
    if isinstance(trace_type, tf.SparseTensorSpec):
        return f"tf.SparseTensorSpec(shape={shape}, dtype={dtype})"
    if isinstance(trace_type, tf.TensorSpec):
        return f"tf.TensorSpec(shape={shape}, dtype={dtype})"
    return f"a {type(trace_type).__name__} with shape {shape} and dtype {dtype}"


def _article(word: str) -> str:
    """'a' or 'an' before a dtype or type name ("an int32", "a uint8", "a float32")."""
    return "an" if word[:1].lower() in "aeio" else "a"


def _dtype_change(path, old, new) -> _Change:
    before, after = old.dtype.name, new.dtype.name
    advice = (
        f"argument `{path}` changed dtype from {before} to {after}. Each dtype needs its own "
        f"graph: cast before the call, e.g. tf.cast({path.split('[')[0]}, tf.{before}), or "
        f"make the producer emit {before}."
    )
    return _Change(path, "dtype", before, after, advice)


def _python_value_change(path, old, new, before, after) -> _Change:
    if isinstance(old, default_types.Literal) and isinstance(new, default_types.Literal):
        kind = type(new.value).__name__
        what = f"is a Python {kind} whose value changed from {before} to {after}"
        fix = (
            "Every new Python value is a new trace: if it varies, pass it as a tensor "
            f"(tf.constant({after})); if it takes a few fixed values, expect one trace each."
        )
    elif isinstance(new, default_types.Literal):
        what = f"was {before} and is now the Python value {after}"
        fix = f"Pass a tensor every time (tf.constant({after})), not a Python value."
    else:
        what = f"was the Python value {before} and is now {after}"
        fix = "Pass the same kind of value every time; a tensor if the value changes."
    return _Change(path, "python-value", before, after, f"argument `{path}` {what}. {fix}")


def _object_change(path, before, after) -> _Change:
    if path == "self":
        advice = (
            f"this is a method and `self` is a new object ({after}, not {before}): each "
            "instance keeps its own traces, so every new instance traces again. Create the "
            "object once and reuse it."
        )
    else:
        advice = (
            f"argument `{path}` is a different object ({after}, not {before}). Objects "
            "are matched by identity (or by __eq__ and __hash__ if the class defines them), "
            "and a collected object never matches again. Reuse one object, or pass the "
            "values it carries as tensors."
        )
    return _Change(path, "object", before, after, advice)


def _structure_change(path, before, after, new) -> _Change:
    advice = (
        f"argument `{path}` changed structure from {before} to {after}. Each container "
        "type, length and set of keys is a new trace: keep the structure fixed, or pass "
        "one stacked tensor (or a tf.RaggedTensor) instead of a varying container."
    )
    return _Change(path, "structure", before, after, advice)


def _new_argument(path, before, after) -> _Change:
    if before is None:
        advice = (
            f"argument `{path}` was not passed to the closest earlier trace and is now "
            f"{after}. Pass the same arguments on every call (a fixed value, or rely on a "
            "default)."
        )
        before = "not passed"
    else:
        advice = (
            f"argument `{path}` was passed to the closest earlier trace ({before}) and is "
            "not passed now. Pass the same arguments on every call."
        )
        after = "not passed"
    return _Change(path, "new-argument", before, after, advice)


_SCOPES = {
    _internals.SCOPE_TYPES.VARIABLE_CREATION: "its first call (creating variables)",
    _internals.SCOPE_TYPES.NO_VARIABLE_CREATION: "a later call (no new variables)",
}


def _context_change(old, new) -> _Change:
    if old.scope_type != new.scope_type:
        before, after = _SCOPES.get(old.scope_type, "?"), _SCOPES.get(new.scope_type, "?")
        advice = (
            "the same arguments, but the first trace created tf.Variables, so TensorFlow "
            "traced once more with variable creation turned off. This happens once per "
            "function that creates variables; create them outside the function to avoid it."
        )
        return _Change(None, "context", before, after, advice)
    before, after = _context_texts(old.context, new.context)
    advice = (
        f"the same arguments, but called {after} instead of {before}. Each calling context "
        "has its own traces; call the function from one context."
    )
    return _Change(None, "context", before, after, advice)


def _context_texts(old, new) -> tuple[str, str]:
    """Describe the parts of two TensorFlow calling contexts that differ."""
    if old.parent_graph is not new.parent_graph:
        return _graph_text(old.parent_graph), _graph_text(new.parent_graph)
    fields = [name for name in old._fields if getattr(old, name) != getattr(new, name)]
    return tuple(
        ", ".join(f"{name}={getattr(context, name)!r}" for name in fields) for context in (old, new)
    )


def _graph_text(graph) -> str:
    # Inside a tf.function TensorFlow lifts the context to the eager one: same traces.
    return "eagerly (or from a tf.function)" if graph is None else "in a tf.Graph (graph mode)"


# Names --------------------------------------------------------------------------


def _innermost(python_function):
    while hasattr(python_function, "__wrapped__"):
        python_function = python_function.__wrapped__
    return getattr(python_function, "__func__", python_function)


def _display_name(python_function) -> str:
    target = _innermost(python_function)
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None)
    return name or type(target).__qualname__


def _where(python_function) -> str:
    code = getattr(_innermost(python_function), "__code__", None)
    if code is None:
        return type(_innermost(python_function)).__qualname__
    return f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno}"


def _code(function: PolymorphicFunction):
    """TensorFlow's own key for 'the same Python function' (used by its warning too)."""
    return _internals.call_stats_key(function)
