"""Watching tf.functions: ``explain_retracing`` and the watched function it returns, the
tf.functions a plain function calls, loaded functions, ``tracing_budget``, and the
whole-program mode (``watch_every_tf_function``)."""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
import weakref
from collections.abc import Callable, Iterator

import tensorflow as tf

from tf_retracing import _internals
from tf_retracing._internals import (
    ConcreteFunction,
    PolymorphicFunction,
    make_decorator,
)
from tf_retracing.explainer_types import (
    RetraceReason,
    RetracingBudgetExceeded,
    display_name,
    innermost,
)
from tf_retracing.trace_description import object_label

from .names import _code, _library_of, _purpose, _where
from .summary import _hear_unwatched
from .watch import (
    _SESSION_WATCHES,
    _STARTED,
    _WATCH_AGAIN,
    LOGGER,
    RESTORED,
    _recording_cache,
    _Watch,
)

_TF_FUNCTION_OPTIONS = frozenset(inspect.signature(tf.function).parameters) - {"func"}


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
