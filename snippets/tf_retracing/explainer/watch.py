"""The trace history of one watched tf.function (``_Watch``): the hook TensorFlow runs
when it traces, each trace recorded and explained, and the guards that act on retraces."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
import os
import sys
import threading
import time
import weakref
from collections.abc import Iterator

import numpy as np
import tensorflow as tf

from tf_retracing import _internals, argument_use, comparison
from tf_retracing.explainer_types import (
    REPORT_URL,
    RetraceReason,
    RetracingBudgetExceeded,
    unknown_reason,
)
from tf_retracing.trace_description import (
    PythonValue,
    TraceDescription,
    description_key,
)

from .names import _first_user_frame

LOGGER = logging.getLogger("retrace")
_changes = comparison.changes  # compares two traces; a module attribute so tests can fail it


class _Collected:
    """Stands for a method's instance that was gone when it traced."""


_GONE = weakref.ref(_Collected())  # dead at once: described as an object already collected


@dataclasses.dataclass
class _Trace:
    """What one trace was made for. TensorFlow's trace types are kept only until the
    trace is recorded; from then on the TensorFlow-free description stands for them."""

    tracing: dict | None  # TensorFlow's trace types and context (see _internals)
    instance: weakref.ref | None  # `self`, for a method traced for one instance
    instance_gone: bool = False  # a method traced after its instance died (a temporary)
    description: TraceDescription | None = None
    key: tuple | None = None  # description_key(description): None if it has none
    reason: RetraceReason | None = None
    started: float = dataclasses.field(default_factory=time.perf_counter)  # body entered
    ms: float | None = None  # what the trace took, set when it is recorded
    # The thread that traced: a notebook tells a background thread's retraces apart.
    thread: int = dataclasses.field(default_factory=threading.get_ident)
    thread_name: str = dataclasses.field(default_factory=lambda: threading.current_thread().name)


class _CodeStats:
    """How many watched tf.function objects wrap one Python code object."""

    def __init__(self):
        self.created = 0
        self.traced = 0
        # The values the latest of them closed over (see _closure_values): a tf.function
        # made anew per step over a value that changes must not be told to be made once.
        self.closure: dict = {}
        self.test_case: str | None = None  # the pytest test the latest trace was made in


_CODE_STATS: dict = {}  # (code object, purpose) -> _CodeStats


_STARTED = "the watch began"
_WATCH_AGAIN = "make it again while the program is watched"


class SessionWatches(list):
    """The watches of a whole-program run, and TensorFlow's retracing warnings about
    functions none of them watched (made without tf.function, e.g. inside TensorFlow)."""

    def __init__(self):
        super().__init__()
        self.unwatched: dict = {}  # code object (or the message) -> UnwatchedRetracing
        # How the reports name the start of watching, and how to watch a function made
        # before it (a notebook says "%load_ext tf_retracing" and "run its cell again").
        self.started, self.watch_again = _STARTED, _WATCH_AGAIN


_SESSION_WATCHES = SessionWatches()  # filled while watch_every_tf_function is active
RESTORED = "a SavedModel"  # where a function loaded by tf.saved_model.load is defined
# A loaded function has no Python code of its own: what its traces accept was fixed when
# the program that exported it saved it, so that is where an argument's fix is made.
_EXPORT_TIME_KINDS = frozenset({"shape", "dtype", "python-value", "structure", "new-argument"})
_SIGNATURES_NOTE = (
    "If it was saved with signatures (`list(loaded.signatures)` is not empty), calling "
    "one of them never traces either."
)
_EXPORT_TIME_NOTE = (
    " This function was loaded from a SavedModel: it keeps the input_signature it was "
    "exported with, so make that change in the program that exports it (on the tf.function "
    "before tf.saved_model.save). " + _SIGNATURES_NOTE
)


class _Watch:
    """The trace history of one watched tf.function (every instance, for a method)."""

    def __init__(
        self,
        name: str,
        where: str,
        code,
        library: str | None = None,
        purpose: tuple = (),
        per_call: bool = False,
    ):
        self.name = name
        self.where = where  # where its Python code is defined
        self.code = code
        # Code in TensorFlow or Keras (a Keras model's predict function) is made for the
        # user by a line of theirs: that line is what to change when it is made anew.
        self.library = library  # e.g. "keras"; None for the user's own code
        self.created_at = _first_user_frame()
        # Made by TensorFlow on each eager call of one user line (pfor's function): that
        # line is where it is made, and each line is a function of its own in the report.
        self.per_call = per_call
        self.group = code
        if per_call and self.created_at:
            self.where = self.created_at
            purpose = self.group = (code, self.created_at)
        self.traces: list[_Trace] = []
        self.reasons: list[RetraceReason] = []
        # The traces' descriptions, and an index of them: explaining a retrace costs the
        # same after 10,000 traces as after 10 (no list rebuilt, no scan for an equal one).
        self.history: list[TraceDescription] = []
        self._described: set = set()  # description_key of each description in history
        self._unhashable: list[TraceDescription] = []  # those without a key
        self.root_cache = None
        # One code can serve several purposes (Keras builds its train and test step from
        # one function): only tf.functions made anew for the same purpose are a retrace.
        self.stats = _CODE_STATS.setdefault((code, purpose), _CodeStats())
        self.stats.created += 1
        self.counted_as_traced = False
        self.detached = False  # stop_watching: records and says nothing more
        self.instance: str | None = None  # for a method bound to one instance, that one
        self.saved_arguments: list[dict] = []  # a loaded function's saved graphs' inputs
        self.source_function = None  # the user's function, whose source says how it uses
        # each argument (None where there is no source: a loaded SavedModel)

    # --8<-- [start:hook]
    def before_body(self, args: tuple) -> None:
        """Runs when TensorFlow runs the Python body, which it does only to trace."""
        if self.detached:
            return
        frames = _internals.tracing_frames(sys._getframe(1))
        if not frames:  # run eagerly (tf.config.run_functions_eagerly): no trace
            return
        tracing = _internals.tracing_locals(frames[0])
        if tracing is None or not _internals.is_recording_cache(tracing["cache"]):
            return  # not a trace of ours (a clone of a watched function), or unreadable
        cache = tracing["cache"]
        # A method's instance; TensorFlow passes None for one already gone (a method
        # called on a temporary, ``Model().f(x)``, traces with ``self`` None).
        method = cache is not self.root_cache
        gone = method and args[0] is None
        instance = (_GONE if gone else weakref.ref(args[0])) if method else None
        # Recorded when TensorFlow adds the trace to its cache (_commit_added_trace); keyed
        # by the tracing frame, as a recursive function traces again inside its own trace.
        cache.hold(frames, (self, _Trace(tracing, instance, instance_gone=gone)))

    # --8<-- [end:hook]

    def commit(self, trace: _Trace, concrete_function=None) -> None:
        """Record a trace TensorFlow has just added to its cache, and explain it."""
        # From the Python body's start to the graph in the cache: what this trace cost.
        trace_ms = trace.ms = (time.perf_counter() - trace.started) * 1e3
        trace.description = _with_uses(
            _internals.describe_trace(trace.tracing, trace.instance, concrete_function),
            self.source_function,
        )
        trace.key = description_key(trace.description)
        trace.tracing = None  # TensorFlow's types are not needed any more
        number = len(self.traces) + 1
        changed_closure = self._closure_changes() if not self.traces else ()
        if number > 1 and trace.instance_gone:
            trace.reason = comparison.gone_instance_reason(self.name, number)
        elif self.traces:
            trace.reason = self._explain(trace, number)
        elif self.stats.traced:
            trace.reason = self._explain_new_function(number, changed_closure)
        trace.reason = self._in_another_test_case(trace.reason)
        if trace.reason is not None:
            trace.reason = dataclasses.replace(trace.reason, trace_ms=trace_ms)
        self._record(trace)

    def _in_another_test_case(self, reason: RetraceReason | None) -> RetraceReason | None:
        """A new object's trace made in another test case than the trace before it (a
        parametrised test builds one model per case): expected, and said so."""
        case, self.stats.test_case = self.stats.test_case, _test_case()
        new_object = reason is not None and reason.subkind in ("self", "new-tf-function")
        if not new_object or case is None or self.stats.test_case in (None, case):
            return reason
        what = (
            f"traced again (trace {reason.trace}) for a new instance ({reason.after})"
            if reason.subkind == "self"
            else f"traced for a new tf.function object ({reason.after} for this code)"
        )
        message = (
            f"`{self.name}` {what}, made in the test {self.stats.test_case}, where the trace "
            f"before it was made in {case}: each test case builds its own objects (one "
            "model per case in a parametrised test), and each object's first call traces. "
            "That is expected, not a retrace to fix; the same test tracing again within "
            "one case would be."
        )
        return dataclasses.replace(reason, message=message)

    def commit_unread(self, concrete_function) -> None:
        """Record a trace TensorFlow counted whose start the hook could not read (TensorFlow
        changed what its tracing frame holds, or the hook failed): never dropped, so the
        traces recorded always equal TensorFlow's count. A retrace says what is known."""
        trace = _Trace(tracing=None, instance=None)
        trace.ms = 0.0  # its start is unknown
        number = len(self.traces) + 1
        if number > 1 or self.stats.traced:
            known = _traced_arguments_text(concrete_function)
            trace.reason = unknown_reason(
                self.name,
                number,
                f"`{self.name}` traced again (trace {number}); the cause could not be read"
                f"{f'. It was traced for {known}' if known else ''}. Please report it at "
                f"{REPORT_URL} with your TensorFlow version ({tf.__version__}).",
                subkind="unread",
            )
        self._record(trace)

    def _record(self, trace: _Trace) -> None:
        self.traces.append(trace)
        if trace.description is not None:
            self.history.append(trace.description)
            if trace.key is None:
                self._unhashable.append(trace.description)
            else:
                self._described.add(trace.key)
        if not self.counted_as_traced:
            self.counted_as_traced = True
            self.stats.traced += 1
        if trace.reason is not None:
            self.reasons.append(trace.reason)
            LOGGER.warning("%s", trace.reason.message)

    def commit_unexplained(self, trace: _Trace, error: Exception) -> None:
        """Record a trace whose explanation failed: the cause is unknown, say so."""
        number = len(self.traces) + 1
        trace.reason = unknown_reason(
            self.name,
            number,
            f"`{self.name}` traced (trace {number}); the explainer could not tell why "
            f"({type(error).__name__}: {error}). Please report it at {REPORT_URL} "
            f"with your TensorFlow version ({tf.__version__}).",
            subkind="explainer-error",
        )
        self._record(trace)

    def _explain(self, trace: _Trace, number: int) -> RetraceReason:
        reason = comparison.explain(
            self.name,
            number,
            self.history,
            trace.description,
            compare=_changes,
            seen_before=self._seen_before(trace),
        )
        if self.where == RESTORED and reason.kind in _EXPORT_TIME_KINDS:
            return self._restored_advice(reason, trace.description)
        if self.library:
            return _library_advice(reason, self.library)
        return reason

    def _closure_changes(self) -> tuple[str, ...]:
        """The names this tf.function's Python function closes over whose values differ
        from those of the previous tf.function made for the same code; the values are
        kept for the next one."""
        values = _closure_values(self.source_function)
        before, self.stats.closure = self.stats.closure, values
        return tuple(
            name
            for name, value in values.items()
            if name in before and _differ(before[name], value)
        )

    def _explain_new_function(self, number: int, changed_closure=()) -> RetraceReason:
        created = self.stats.created
        if self.instance is not None:  # a method's tf.function, bound to a new instance
            return comparison.new_instance_reason(self.name, number, self.instance)
        if self.per_call:
            message = _PER_CALL_ADVICE.format(name=self.name, line=self.where, count=created)
        elif changed_closure and not self.library:
            message = _changing_closure_message(self.name, self.where, created, changed_closure)
        else:
            message = self._new_function_message(created)
        return RetraceReason(
            function=self.name,
            trace=number,
            argument=None,
            kind="object",
            before=f"{created - 1} tf.function object{'s' if created > 2 else ''}",
            after=f"{created} tf.function objects",
            message=message,
            count=created,
            subkind="new-tf-function",
        )

    def _restored_advice(self, reason: RetraceReason, new: TraceDescription) -> RetraceReason:
        """For a loaded function: where a saved graph already accepts the new shape (the
        export has the None dimension), say so and how to call that graph without a
        trace; otherwise the change belongs in the program that exported it."""
        found = comparison.node_at(new, reason.argument) if reason.argument else None
        name = reason.argument.split("[", 1)[0].split(".", 1)[0] if reason.argument else ""
        if reason.kind == "shape" and found is not None:
            for saved in self.saved_arguments:
                if name in saved and comparison.accepts(saved[name], found[0]):
                    return _saved_graph_accepts(reason, self.name, name, saved[name])
        return _with_note(reason, _EXPORT_TIME_NOTE)

    def _seen_before(self, trace: _Trace) -> bool | None:
        """Whether an earlier trace equals this one's description; None: look in the
        history (the description has no key)."""
        if trace.key is None:
            return None
        return trace.key in self._described or trace.description in self._unhashable

    def _new_function_message(self, created: int) -> str:
        message = (
            f"`{self.name}` traced again because a new tf.function object was made for the "
            f"same Python code ({self.where}): {created} tf.function objects so far, each "
            "starting with an empty trace cache. "
        )
        if self.library and self.created_at:
            message += (
                f"{self.library} makes it for your code at {self.created_at}, which "
                "runs on a new object each time (a new model, layer or function per loop "
                "iteration or request): create that object once, outside the loop or "
                "request handler, and reuse it. Where each object differs on purpose (one "
                "model per configuration), one trace per object is expected."
            )
        else:
            message += (
                "Create the tf.function once, outside the loop or request handler that "
                "runs this line, and reuse it."
            )
        return message


def _test_case() -> str | None:
    """The pytest test running now (``test_x.py::test_model[3]``), from the variable
    pytest sets for each test; None outside pytest."""
    current = os.environ.get("PYTEST_CURRENT_TEST")
    return current.rsplit(" (", 1)[0] if current else None


def _changing_closure_message(name: str, where: str, created: int, names: tuple) -> str:
    listed = ", ".join(f"`{each}`" for each in names)
    first = names[0]
    return (
        f"`{name}` traced again because a new tf.function object was made for the same "
        f"Python code ({where}): {created} tf.function objects so far, each starting with "
        f"an empty trace cache. It reads {listed} from outside its body, whose value "
        "differs from the one the previous tf.function read, and a trace keeps the value it "
        "read when it traced: made once as it is, the function would go on using the first "
        "value. Make "
        f"the tf.function once, outside the loop, and pass {listed} as an argument (a "
        f"tensor, e.g. tf.constant({first}), so that a new value does not trace again), or "
        f"hold it in a tf.Variable made once ({first}_var = tf.Variable({first})) that the "
        f"function reads and the loop updates ({first}_var.assign(new value)) before each call."
    )


# Values a tf.function made anew per step may read from outside its body (a closure or a
# module's global, as a lambda made in a script's loop reads the loop's variable) and that
# an argument or a tf.Variable can carry instead: numbers, NumPy values and eager tensors.
def _closure_values(function) -> dict:
    """The values ``function`` reads from its closure or its module's globals that a
    tensor could stand for."""
    code = getattr(function, "__code__", None)
    cells = getattr(function, "__closure__", None) or ()
    if code is None:
        return {}
    module = getattr(function, "__globals__", {})
    found = {
        name: module[name]
        for name in code.co_names
        if name in module and _carried_by_a_tensor(module[name])
    }
    for name, cell in zip(code.co_freevars, cells, strict=False):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell: a name not yet bound
            continue
        if _carried_by_a_tensor(value):
            found[name] = value
    return found


def _carried_by_a_tensor(value) -> bool:
    if isinstance(value, bool):
        return False  # a flag chooses code: one function per value is often the point
    if isinstance(value, int | float | np.generic | np.ndarray):
        return True
    return isinstance(value, tf.Tensor) and hasattr(value, "numpy")  # eager, not symbolic


def _differ(a, b) -> bool:
    if a is b:
        return False
    try:
        return not np.array_equal(np.asarray(a), np.asarray(b))
    except Exception:  # values that cannot be compared: not known to differ
        return False


_PER_CALL_ADVICE = (
    "`{name}` traced again because TensorFlow makes a new tf.function on every eager call "
    "of your line {line} (tape.jacobian, tape.batch_jacobian and tf.vectorized_map "
    "vectorize through one made per call): {count} made so far, each tracing anew: run "
    "that line inside one tf.function of your own, made once outside the loop; the inner "
    "function is then built while yours traces, and later calls reuse your graph."
)


def _saved_graph_accepts(
    reason: RetraceReason, function: str, argument: str, saved
) -> RetraceReason:
    """A loaded function traced for a shape its saved graph already accepts."""
    spec = comparison.spec(saved, list(saved.shape) if saved.shape is not None else None)
    message = (
        f"`{function}` traced again (trace {reason.trace}): argument `{reason.argument}` "
        f"changed shape from {reason.before} to {reason.after}. This function was loaded "
        f"from a SavedModel whose saved graph already accepts that shape (`{argument}`: "
        f"{comparison.describe(saved)}), but it was exported without an input_signature, "
        "so the loaded function traces once per new input shape to pick that graph. Give "
        f"the exported tf.function {spec} for `{argument}` in its input_signature before "
        "tf.saved_model.save (the loaded function keeps it and does not trace again), or "
        "call the saved graph without tracing: `concrete = "
        f"<loaded object>.{function}.get_concrete_function({spec})` once, then "
        "`concrete(...)`. " + _SIGNATURES_NOTE
    )
    return dataclasses.replace(reason, message=message)


def _with_note(reason: RetraceReason, note: str, replacing: str = "") -> RetraceReason:
    """``reason`` with ``note`` added to its message (in place of ``replacing``, if given)
    before the guide link, which stays the message's last words, once."""
    link = f" [{reason.cause}] {reason.url}"
    text = reason.message.removesuffix(link)
    text = text.replace(replacing, note.strip()) if replacing else text + note
    return dataclasses.replace(reason, message=text)


# What a user can do about a trace of a function a library built for them (Keras's
# train, test and predict steps), where the generic advice is about their own code.
_LIBRARY_VARIABLES_ADVICE = (
    "The {library} step made the variables still missing on its first call (the "
    "model's, if it was not built, and the optimizer's): once per model, and harmless. "
    "To avoid it, create them before the first step: model.build(input_shape), then "
    "model.optimizer.build(model.trainable_variables)."
)
_LIBRARY_SHAPE_ADVICE = (
    " These shapes come from your data: to keep one trace, pad the inputs to one length "
    "(a tf.data pipeline with padded_batch and fixed padded_shapes: without them each "
    "batch is padded only to its own longest), or call the model from a tf.function of "
    "your own with an input_signature that leaves that dimension None. Bucketing to a few "
    "lengths saves no trace here: Keras traces its steps with reduce_retracing=True, "
    "whose general trace already takes every length."
)
_GENERIC_VARIABLES_ADVICE = (
    "This happens once per function that creates variables; create them outside the "
    "function to avoid it."
)


def _library_advice(reason: RetraceReason, library: str) -> RetraceReason:
    if reason.subkind == "variable-creation":
        note = _LIBRARY_VARIABLES_ADVICE.format(library=library.replace("_", "-"))
        return _with_note(reason, note, replacing=_GENERIC_VARIABLES_ADVICE)
    if reason.kind == "shape":
        return _with_note(reason, _LIBRARY_SHAPE_ADVICE)
    return reason


def _recording_cache():
    """TensorFlow's trace cache for a watched function: a trace held by the watch's hook
    is committed when TensorFlow adds it, and the guards then act on it."""
    return _internals.recording_cache(_commit_added_trace)


def _commit_added_trace(held: tuple, concrete_function) -> None:
    watch, trace = held
    if watch.detached:  # no longer watched: a plain tf.function from now on
        return
    if trace is None:  # TensorFlow counted a trace whose start the hook did not read
        watch.commit_unread(concrete_function)
        _enforce_guards(watch, watch.traces[-1].reason)
        return
    try:
        watch.commit(trace, concrete_function)
    except Exception as error:  # the explanation must never break the call
        watch.commit_unexplained(trace, error)
    _enforce_guards(watch, trace.reason)  # may raise, by the user's choice


def _with_uses(description: TraceDescription, source_function) -> TraceDescription:
    """``description`` with each Python-value argument marked with how the function's
    source uses it, which the advice for a changed value depends on."""
    if source_function is None:
        return description
    description.keyword_only = _keyword_only(source_function)
    tensors = frozenset(
        name for name, node in description.call.items() if not isinstance(node, PythonValue)
    )
    for name, node in description.call.items():
        if isinstance(node, PythonValue) and name.isidentifier():
            found = argument_use.uses(source_function, name, tensors)
            description.call[name] = dataclasses.replace(node, used_for=tuple(sorted(found)))
    return description


def _keyword_only(source_function) -> tuple[str, ...]:
    """The function's keyword-only parameters, to which an input_signature gives no spec
    (the advice for a shape says to make one positional first)."""
    try:
        parameters = inspect.signature(source_function).parameters.values()
    except (TypeError, ValueError):  # a callable whose signature Python cannot read
        return ()
    return tuple(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)


def _traced_arguments_text(concrete_function) -> str:
    """``x: float32 (2,), n: 3``: what a concrete function was traced for ('' if unknown)."""
    try:
        arguments = _internals.traced_arguments(concrete_function)
    except Exception:  # what is known is a courtesy: never fail the call for it
        return ""
    return ", ".join(f"{name}: {comparison.describe(node)}" for name, node in arguments.items())


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
        if not self.covers(watch) or _part_of_a_one_off(reason):
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


def _part_of_a_one_off(reason: RetraceReason | None) -> bool:
    """A trace that is part of something done once, never a retrace to guard against: the
    second trace of a first call that created variables, or a trace tf.saved_model.save
    makes for a signature it exports (a guard that raised there would break the save)."""
    return (
        reason is not None
        and reason.kind == "context"
        and reason.subkind in ("variable-creation", "saving")
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

    Yields the guard. Raises ``ValueError`` for an ``action`` other than ``"raise"`` or
    ``"log"`` or a negative ``warmup``, ``TypeError`` for a function that is not watched
    (made by ``explain_retracing`` or in ``watch_every_tf_function``), and, from the call
    that retraced, ``RetracingBudgetExceeded`` with its reason (``action="raise"``).
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
