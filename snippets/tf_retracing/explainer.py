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

Where the parts live: ``_internals`` reads TensorFlow (its tracing frame, its trace types,
the SavedModel loader) and turns each trace into a TensorFlow-free ``TraceDescription``;
``comparison`` compares descriptions and writes the reasons; this module watches
functions and keeps their histories.

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
import functools
import inspect
import logging
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterator

import tensorflow as tf

from tf_retracing import _internals, argument_use, comparison
from tf_retracing._internals import (
    ConcreteFunction,
    PolymorphicFunction,
    make_decorator,
)
from tf_retracing.explainer_types import (
    KINDS,
    REPORT_SCHEMA_VERSION,
    REPORT_URL,
    RetraceReason,
    RetracingBudgetExceeded,
    display_name,
    innermost,
    printable,
    retraces_sentence,
    unknown_reason,
)
from tf_retracing.trace_description import (
    PythonValue,
    TraceDescription,
    description_key,
    object_label,
)

# This module's tools, which the package re-exports lazily (EXPLAINER_NAMES; a test keeps
# the two equal), plus the types; strings only, so that the API reference can read it.
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
_TF_FUNCTION_OPTIONS = frozenset(inspect.signature(tf.function).parameters) - {"func"}
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
        if number > 1 and trace.instance_gone:
            trace.reason = comparison.gone_instance_reason(self.name, number)
        elif self.traces:
            trace.reason = self._explain(trace, number)
        elif self.stats.traced:
            trace.reason = self._explain_new_function(number)
        if trace.reason is not None:
            trace.reason = dataclasses.replace(trace.reason, trace_ms=trace_ms)
        self._record(trace)

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

    def _explain_new_function(self, number: int) -> RetraceReason:
        created = self.stats.created
        if self.instance is not None:  # a method's tf.function, bound to a new instance
            return comparison.new_instance_reason(self.name, number, self.instance)
        if self.per_call:
            message = _PER_CALL_ADVICE.format(name=self.name, line=self.where, count=created)
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
                "request handler, and reuse it."
            )
        else:
            message += (
                "Create the tf.function once, outside the loop or request handler that "
                "runs this line, and reuse it."
            )
        return message


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
    " These shapes come from your data: to keep one trace, pad or bucket the inputs to "
    "a few lengths (a tf.data pipeline with padded_batch, or "
    "bucket_by_sequence_length), or call the model from a tf.function of your own with "
    "an input_signature that leaves that dimension None."
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
    tensors = frozenset(
        name for name, node in description.call.items() if not isinstance(node, PythonValue)
    )
    for name, node in description.call.items():
        if isinstance(node, PythonValue) and name.isidentifier():
            found = argument_use.uses(source_function, name, tensors)
            description.call[name] = dataclasses.replace(node, used_for=tuple(sorted(found)))
    return description


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


class WatchedFunction(PolymorphicFunction):
    """A tf.function that records why it traces; calls run TensorFlow's own code."""

    _watch: _Watch | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _internals.set_function_cache(self, _recording_cache())

    @property
    def retrace_reasons(self) -> list[RetraceReason]:
        """One RetraceReason per retrace so far, oldest first."""
        return list(self._watch.reasons)

    def __getstate__(self):
        # Pickled as the tf.function it watches: the user's Python function (the hook is a
        # closure, which pickle refuses), no history. TensorFlow's own state follows, so
        # what pickles, and the error for what does not, are the unwatched function's.
        state = super().__getstate__()
        state.pop("_watch", None)
        hook = _internals.python_function_hook(self)
        return _internals.with_python_function(state, getattr(hook, "user_function", hook))

    def __setstate__(self, state):
        super().__setstate__(state)
        python_function = _internals.python_function_hook(self)
        watch = _Watch(display_name(python_function), _where(python_function), _code(self))
        _internals.set_python_function_hook(self, _trace_hook(python_function, watch))
        _internals.set_function_cache(self, _recording_cache())
        _start_watching(self, watch)

    def __get__(self, instance, owner):
        # A method gets one tf.function per instance; share this history with it.
        bound = super().__get__(instance, owner)
        if bound is not self and bound._watch is None:
            bound._watch = self._watch
            _internals.function_cache(bound).owner = self._watch
        return bound


def explain_retracing(fn=None, /, **tf_function_options):
    """Watch a tf.function (or a Python function, wrapped in one) and explain retraces.

    Returns a tf.function that behaves like ``fn`` and has ``.retrace_reasons``. Options
    such as ``input_signature`` or ``reduce_retracing`` are passed to ``tf.function`` when
    ``fn`` is a plain function. Works as ``@explain_retracing`` and
    ``@explain_retracing(reduce_retracing=True)``.

    A tf.function that has not traced yet is watched in place (it saves, loads and counts
    traces as before); one that has is copied, with a ``WatchedCopyWarning``. Raises
    ``TypeError`` for an option ``tf.function`` does not take, a ``ConcreteFunction`` (it
    never retraces) or something not callable, and ``ValueError`` for options given with
    an existing tf.function.
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
        _refuse_non_callable(fn)
    if isinstance(fn, PolymorphicFunction):
        if tf_function_options:
            raise ValueError(
                f"explain_retracing(): {fn.python_function!r} is already a tf.function, so "
                f"options {sorted(tf_function_options)} cannot be applied; pass them to the "
                "tf.function that creates it"
            )
        if isinstance(fn, WatchedFunction) and fn._watch is not None:
            return fn
        return _watched(fn, said_by="explain_retracing()")
    caller = _watch_what_it_calls(fn)
    if caller is not None:
        return caller
    return _watched(_ORIGINAL_TF_FUNCTION(fn, **tf_function_options))


def _refuse_non_callable(fn) -> None:
    """Raise what tf.function raises for ``fn``, saying what explain_retracing needs."""
    hint = (
        "explain_retracing() needs a tf.function or a Python callable, "
        f"got {type(fn).__name__} {fn!r}"
    )
    try:
        _ORIGINAL_TF_FUNCTION(fn)
    except TypeError as error:  # tf.function's own error, its text first
        raise TypeError(f"{error} ({hint})") from None
    raise TypeError(hint)


class WatchedCaller:
    """A plain Python function that calls tf.functions from its closure (as Keras 3's
    ``model.train_function`` calls the step function it builds), with those tf.functions
    watched where it calls them: every call of the original function (Keras's ``fit``
    included) goes through the watched ones, whether or not this object is used.

    Calling it calls the original function. ``retrace_reasons`` gathers the reasons of
    every watched tf.function, oldest first within each; ``watched_functions`` lists them.
    """

    def __init__(self, function: Callable, watched: list):
        functools.update_wrapper(self, function)
        self.watched_functions = watched

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    @property
    def retrace_reasons(self) -> list[RetraceReason]:
        return [reason for function in self.watched_functions for reason in function._watch.reasons]

    @property
    def _watch(self) -> _Watch:  # for tracing_budget and guard_retracing: the outermost one
        return self.watched_functions[0]._watch


def _watch_what_it_calls(fn) -> WatchedCaller | None:
    """For a plain function that holds tf.functions in its closure: watch each of them
    where it is (itself if it has never traced; else a watched copy put in its place, whose
    next call traces once), and return the function with their reasons. Wrapping such a
    function in a new tf.function instead would trace its Python arguments (a data
    iterator, say) again on every call. None if ``fn`` holds no tf.function."""
    cells = _tf_function_cells(fn)
    if not cells:
        return None
    watched: list = []
    by_id: dict = {}  # id of a tf.function found, or of its watched copy -> the watched one
    for cell in cells:
        found = cell.cell_contents
        function = by_id.get(id(found))
        if function is None:  # one copy for two cells holding one tf.function
            function = found if getattr(found, "_watch", None) else _watched(found)
            by_id[id(found)] = by_id[id(function)] = function
            watched.append(function)
        cell.cell_contents = function  # the same object when watched in place
    return WatchedCaller(fn, watched)


_CLOSURE_DEPTH = 4  # Keras 3 keeps its step function three closures down


def _tf_function_cells(fn) -> list:
    """The closure cells that hold a tf.function, in ``fn``'s closure and, below it, in
    the closures of the plain functions, ``functools.wraps`` wrappers (``__wrapped__``)
    and tf.function bodies it holds: Keras 3's ``train_function`` calls
    ``multi_step_on_iterator`` for ``fit`` but, for ``train_on_batch``, a wrapper around
    ``one_step_on_data``. Each cell once, outermost first."""
    cells: list = []
    _collect_cells(fn, cells, seen=set(), depth=_CLOSURE_DEPTH)
    return cells


def _collect_cells(fn, cells: list, seen: set, depth: int) -> None:
    if depth == 0 or id(fn) in seen:
        return
    seen.add(id(fn))
    if isinstance(fn, PolymorphicFunction):
        _collect_cells(innermost(fn.python_function), cells, seen, depth - 1)
        return
    target = getattr(fn, "__func__", fn)  # a bound method's function
    wrapped = getattr(target, "__wrapped__", None)
    if wrapped is not None and not isinstance(wrapped, PolymorphicFunction):
        _collect_cells(wrapped, cells, seen, depth - 1)
    for cell in getattr(target, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        if isinstance(value, PolymorphicFunction) and id(cell) not in seen:
            seen.add(id(cell))
            cells.append(cell)
        if callable(value) and not isinstance(value, type):
            _collect_cells(value, cells, seen, depth - 1)


class WatchedCopyWarning(UserWarning):
    """explain_retracing() got a tf.function that had traced already: it watches a copy."""


def _watch_per_call(function: PolymorphicFunction):
    """For whole-program mode: a function TensorFlow makes per eager call, watched
    (unwatched if that fails)."""
    try:
        return _watch_in_place(function, per_call=True)
    except Exception:  # never break the user's call
        LOGGER.exception("retrace explainer: could not watch a function TensorFlow made")
        return function


def _watched(function: PolymorphicFunction, said_by: str | None = None) -> WatchedFunction:
    """``function`` itself, watched, if it has never traced; otherwise a watched copy,
    which ``said_by`` (the caller's name) warns about, since calls through the copy are
    not calls of ``function``."""
    if _internals.can_watch_in_place(function, WatchedFunction):
        return _watch_in_place(function)
    if said_by is not None and _internals.restored_function_parts(function) is None:
        name = display_name(function.python_function)
        warnings.warn(
            f"{said_by}: `{name}` has traced already "
            f"({function.experimental_get_tracing_count()} traces), so it cannot be watched "
            "in place; the function returned is a watched copy. Calls through the copy are "
            f"not calls of `{name}`: its own traces, get_concrete_function and what "
            "tf.saved_model.save exports stay as they were. Watch it before its first call "
            "to watch the function itself.",
            WatchedCopyWarning,
            stacklevel=3,
        )
    return _watched_copy(function)


def _watch_in_place(function: PolymorphicFunction, per_call: bool = False) -> WatchedFunction:
    watch = _watch_of(function, per_call)
    _internals.watch_in_place(
        function, WatchedFunction, lambda body: _trace_hook(body, watch), _recording_cache()
    )
    _start_watching(function, watch)
    return function


def _watched_copy(function: PolymorphicFunction) -> WatchedFunction:
    """A WatchedFunction with the same Python function and options as ``function``."""
    restored = _internals.restored_function_parts(function)
    if restored is not None:
        return _watched_restored_copy(restored)
    watch = _watch_of(function)
    watched = WatchedFunction(
        _trace_hook(function.python_function, watch), **_internals.function_options(function)
    )
    _internals.copy_rendezvous(function, watched)
    _start_watching(watched, watch)
    return make_decorator(function.python_function, watched, decorator_name="tf.function")


def _watch_of(function: PolymorphicFunction, per_call: bool = False) -> _Watch:
    """A new trace history for ``function``, named after its Python function."""
    python_function = function.python_function
    library = _library_of(python_function)
    watch = _Watch(
        display_name(python_function),
        _where(python_function),
        _code(function),
        library=library,
        purpose=_purpose(python_function) if library else (),
        per_call=per_call,
    )
    _note_instance(function, watch)
    watch.source_function = innermost(python_function)
    return watch


def _note_instance(function: PolymorphicFunction, watch: _Watch) -> None:
    """Before watching: TensorFlow gives each instance its own tf.function for a method,
    so a new one per new instance is a new `self`, not a tf.function made anew."""
    bound_to = _internals.bound_instance(function)
    if bound_to is not None:
        watch.instance = object_label(bound_to)


def _start_watching(watched: WatchedFunction, watch: _Watch) -> None:
    watched._watch = watch
    watch.root_cache = _internals.function_cache(watched)
    watch.root_cache.owner = watch
    if _SESSION_ACTIVE:
        _SESSION_WATCHES.append(watch)


if _internals.RestoredFunction is not None:

    class _WatchedRestoredFunction(WatchedFunction, _internals.RestoredFunction):
        """A function loaded from a SavedModel, watched. It keeps what the loader gave it:
        the saved signature (its arguments' own names) and the saved concrete functions,
        so it can be called, and saved again, as the loaded one."""


def _watched_restored_copy(parts: dict) -> WatchedFunction:
    body = parts["python_function"]  # TensorFlow's, shared by every loaded function
    # Its code is shared by every loaded function, so each gets its own key: loading
    # two models is not the same function made twice.
    watch = _Watch(parts["saved_name"] or display_name(body), RESTORED, object())
    watch.saved_arguments = _internals.saved_arguments(parts["concrete_functions"])
    watched = _WatchedRestoredFunction(
        _trace_hook(body, watch),
        parts["name"],
        parts["function_spec"],
        parts["concrete_functions"],
    )
    _start_watching(watched, watch)
    return make_decorator(body, watched, decorator_argspec=parts["argspec"])


def _watch_restored(function):
    """For whole-program mode: a loaded function, watched (unwatched if that fails)."""
    try:
        return _watched_copy(function)
    except Exception:  # never break loading a model
        LOGGER.exception("retrace explainer: could not watch a function loaded from a SavedModel")
        return function


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
    # AutoGraph replaces __wrapped__ by its conversion while tracing; keep the original.
    trace_hook.user_function = python_function
    return make_decorator(python_function, trace_hook, "explain_retracing")


@contextlib.contextmanager
def tracing_budget(fn, max_traces: int) -> Iterator[None]:
    """Fail with RetracingBudgetExceeded if ``fn`` traces more than ``max_traces`` times.

    ``fn`` is a function from explain_retracing (the error then lists the reasons) or
    any tf.function (the error then gives only the count). Raises ``TypeError`` for a
    ``max_traces`` that is not an int or an ``fn`` that is not a tf.function,
    ``ValueError`` for a negative one, and ``RetracingBudgetExceeded`` at the end of the
    block when the budget was exceeded.
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
    name = watch.name if watch else display_name(fn.python_function)
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
    return _watched(_ORIGINAL_TF_FUNCTION(func, *args, **options))


@contextlib.contextmanager
def watch_every_tf_function() -> Iterator[list]:
    """Make ``tf.function`` return watched functions inside the block.

    Yields the list of watches, for ``report()``. Functions created before the block,
    or through an alias of ``tf.function`` taken before it, are not watched; functions
    loaded with ``tf.saved_model.load`` inside it are. Raises ``RuntimeError`` if a block
    is already active.
    """
    global _SESSION_ACTIVE
    if _SESSION_ACTIVE:
        raise RuntimeError("watch_every_tf_function() is already active")
    _SESSION_WATCHES.clear()
    _SESSION_WATCHES.unwatched.clear()
    _SESSION_WATCHES.started, _SESSION_WATCHES.watch_again = _STARTED, _WATCH_AGAIN
    _SESSION_ACTIVE = True
    tf.function = _watching_tf_function
    try:
        # tf.saved_model.load makes its functions without tf.function: watch them too.
        # Others made without it (TensorFlow's own) are not watched: their retracing
        # warnings are kept, so that the report never passes them in silence.
        with (
            _internals.watching_restored_functions(_watch_restored),
            _internals.watching_per_call_functions(_watch_per_call),
            _internals.hearing_retracing_warnings(_hear_unwatched),
        ):
            yield _SESSION_WATCHES
    finally:
        tf.function = _ORIGINAL_TF_FUNCTION
        _SESSION_ACTIVE = False


def stop_watching(watches: list) -> None:
    """The functions of ``watches`` record and say nothing more: from now on they trace as
    plain tf.functions (a notebook's ``%unload_ext``, after which nothing is printed)."""
    for watch in watches:
        watch.detached = True


@dataclasses.dataclass
class UnwatchedRetracing:
    """A function TensorFlow warned about that the whole-program run did not watch."""

    function: str
    defined_at: str
    called_from: str | None  # the user's line that led to the calls, if outside TF
    warnings: int
    message: str  # TensorFlow's latest warning about it
    # What is known of how it was made, from the tf.function whose call TensorFlow counted:
    # "made-anew" (a new tf.function, on its first trace), "before" (one tf.function that
    # traced several times, not watched from its creation), "earlier" (watched by an
    # earlier watch, which has ended), or "unknown" (TensorFlow's frame could not be read).
    origin: str = "made-anew"
    traces: int | None = None  # that tf.function's traces, where it is known
    started: str = _STARTED  # SessionWatches.started
    watch_again: str = _WATCH_AGAIN

    def advice(self) -> str:
        warned = (
            f"`{self.function}` ({self.defined_at}) retraced often enough for TensorFlow to warn"
        )
        reached = f"; your code reached it from {self.called_from}" if self.called_from else ""
        said = " TensorFlow said: " + self.message
        if self.origin == "made-anew":
            return (
                f"{warned}, but it was made without tf.function (by TensorFlow's own code, or "
                "through a name bound to tf.function before the run), so the explainer did "
                f"not watch it and cannot say why{reached}. A function made anew on each call "
                "of an eager line is the usual cause: run that line inside one tf.function of "
                "your own, made once, so that the inner function is built once while yours "
                "traces." + said
            )
        if self.origin == "before":
            made = (
                f"it is one tf.function ({self.traces} traces) made before {self.started}, "
                "through a name bound to tf.function before then, or by TensorFlow's own code"
            )
        elif self.origin == "earlier":
            made = f"it was made under an earlier watch, which ended before {self.started}"
        else:
            made = "TensorFlow's call could not be read to tell which function it was"
        return (
            f"{warned}, but the explainer did not watch it: {made}. Its traces were not "
            f"seen, so the cause cannot be said{reached}. To see why it traces, "
            f"{self.watch_again}." + said
        )


def _hear_unwatched(key, message: str, function=None) -> None:
    if key is not None and any(watch.code is key for watch in _SESSION_WATCHES):
        return  # a watched function: its retraces are explained already
    known = _SESSION_WATCHES.unwatched.get(key or message)
    if known is not None:
        known.warnings += 1
        known.message = message.split(". ", 1)[0] + "."
        return
    code = key if hasattr(key, "co_filename") else None
    origin, traces = _origin(function)
    _SESSION_WATCHES.unwatched[key or message] = UnwatchedRetracing(
        function=getattr(code, "co_qualname", None) or getattr(code, "co_name", "?"),
        defined_at=_location(code.co_filename, code.co_firstlineno) if code else "?",
        called_from=_first_user_frame(),
        warnings=1,
        message=message.split(". ", 1)[0] + ".",  # the count, not TensorFlow's advice
        origin=origin,
        traces=traces,
        started=_SESSION_WATCHES.started,
        watch_again=_SESSION_WATCHES.watch_again,
    )


def _origin(function) -> tuple[str, int | None]:
    """How an unwatched function that TensorFlow warned about was made, as far as the
    tf.function it counted shows (see UnwatchedRetracing.origin)."""
    if function is None:
        return "unknown", None
    if getattr(function, "_watch", None) is not None:  # watched, but not by this session
        return "earlier", function.experimental_get_tracing_count()
    traces = function.experimental_get_tracing_count()
    # Its first trace: a tf.function made anew for this call. More: one that lived on.
    return ("made-anew" if traces <= 1 else "before"), traces


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
    # What each trace was made for, in order (not part of report_data)
    descriptions: list[TraceDescription] = dataclasses.field(default_factory=list, repr=False)


def summarise(watches: list) -> list[FunctionSummary]:
    """Watches grouped by Python code, the costliest retracing first."""
    groups: dict = {}
    for watch in watches:
        groups.setdefault(watch.group, []).append(watch)
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
                descriptions=[t.description for t in traces if t.description is not None],
            )
        )
    summaries.sort(key=lambda s: (-s.retrace_ms, -len(s.reasons), -s.trace_ms, s.function))
    return summaries


def report_data(watches: list) -> dict:
    """The report as plain, versioned, JSON-serialisable data: a dict with
    ``schema_version`` and one entry per function with its traces and reasons."""
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "functions": [
            {
                **{
                    field.name: getattr(s, field.name)
                    for field in dataclasses.fields(s)
                    if field.name not in ("reasons", "descriptions")
                },
                "retraces": len(s.reasons),
                "reasons": [reason.as_dict() for reason in s.reasons],
            }
            for s in summarise(watches)
        ],
        "unwatched": [
            {
                key: printable(value) if isinstance(value, str) else value
                for key, value in {
                    **dataclasses.asdict(unwatched),
                    "advice": unwatched.advice(),
                }.items()
                if key not in ("started", "watch_again")  # said in the advice
            }
            for unwatched in getattr(watches, "unwatched", {}).values()
        ],
    }


def report(watches: list) -> str:
    """A table of watched functions, grouped by Python code, the costliest retracing first:
    tf.function objects, traces, retraces, their time, and why they traced again."""
    rows = summarise(watches)
    lines = _summary_table(rows) if rows else []
    for summary in rows:
        if not summary.reasons:
            continue
        lines.append("")
        lines.append(f"{summary.function}: why it traced again")
        for (kind, argument, subkind), same in _by_cause(summary.reasons).items():
            seen = _seen_at(summary.descriptions, argument)
            advice = comparison.group_message(same, seen)
            heading = retraces_sentence(len(same), kind, argument, subkind)
            lines.append(f"  {heading}. {advice[:1].upper()}{advice[1:]}")
    unwatched = list(getattr(watches, "unwatched", {}).values())
    if unwatched:
        lines += ["", "TensorFlow warned about functions the explainer did not watch:"]
        lines += [f"  {item.advice()}" for item in unwatched]
    return printable("\n".join(lines).lstrip("\n"))


def _summary_table(rows: list[FunctionSummary]) -> list[str]:
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
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]


def _by_cause(reasons: list[RetraceReason]) -> dict:
    """Reasons grouped by what changed where, in the order each first happened; distinct
    changes of one argument stay apart (Python values, then a tensor)."""
    groups: dict = {}
    for reason in reasons:
        groups.setdefault((reason.kind, reason.argument, reason.subkind), []).append(reason)
    return groups


def _seen_at(descriptions: list[TraceDescription], argument: str | None) -> list:
    """The argument as called and as traced in each trace (None where it had none)."""
    if argument is None:
        return []
    return [comparison.node_at(description, argument) for description in descriptions]


# Names --------------------------------------------------------------------------


# Frames of these packages are library code; the first other frame is the user's line.
_LIBRARY_PACKAGES = frozenset(
    [
        "tensorflow",
        "keras",
        "tf_keras",
        "tf_retracing",
        "contextlib",
        "functools",
        "runpy",
        "logging",
        "absl",
    ]
)


def _library_of(python_function) -> str | None:
    """The library that defines ``python_function`` ("keras"), or None for user code."""
    package = (getattr(innermost(python_function), "__module__", None) or "").split(".")[0]
    return package if package in _LIBRARY_PACKAGES else None


def _purpose(python_function) -> tuple:
    """What a library's function is made for, read from the functions its closure holds:
    Keras's ``one_step_on_data`` holds ``train_step`` for the train function and
    ``test_step`` for the test function. Objects other than functions (the model) do not
    count: the same step made for a new model is the same purpose."""
    closure = getattr(innermost(python_function), "__closure__", None) or ()
    names = []
    for cell in closure:
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        if inspect.ismethod(value) or inspect.isfunction(value):
            names.append(getattr(value, "__qualname__", ""))
    return tuple(names)


def _first_user_frame() -> str | None:
    """``file.py:line`` of the innermost caller outside TensorFlow, Keras and this package."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__") or ""
        if module.split(".")[0] not in _LIBRARY_PACKAGES:
            return _location(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return None


def _where(python_function) -> str:
    code = getattr(innermost(python_function), "__code__", None)
    if code is None:
        return type(innermost(python_function)).__qualname__
    return _location(code.co_filename, code.co_firstlineno)


# Names a place in the user's code; None to leave it as ``file.py:line`` (a notebook names
# its cells, whose file names are the kernel's own). Set with set_location_namer.
_location_namer: Callable[[str, int], str | None] | None = None


def set_location_namer(namer: Callable[[str, int], str | None] | None):
    """Use ``namer(filename, line)`` to name places in reports; return the one it replaces."""
    global _location_namer
    previous, _location_namer = _location_namer, namer
    return previous


def _location(filename: str, line: int) -> str:
    """``file.py:line``, or what the location namer calls it."""
    if _location_namer is not None:
        try:
            named = _location_namer(filename, line)
        except Exception:  # a namer that fails leaves the plain name, never the report
            named = None
        if named:
            return named
    return f"{filename.rsplit('/', 1)[-1]}:{line}"


def _code(function: PolymorphicFunction):
    """TensorFlow's own key for 'the same Python function' (used by its warning too)."""
    return _internals.call_stats_key(function)
