"""What the retrace explainer (``tf_retracing.explainer``) hooks into: TensorFlow's Function,
its trace cache, the frames of its tracing step and its retracing warning."""

from __future__ import annotations

import contextlib
import logging
import sys
import types
from collections.abc import Callable, Iterator

import tensorflow as tf

from .describing import (
    traced_arguments,
)
from .tensorflow_modules import (
    EXPLAINER_ERROR,
    RestoredFunction,
    function_deserialization,
)

# Defined only where TensorFlow has them (EXPLAINER_ERROR is None).
with contextlib.suppress(ImportError):
    from .tensorflow_modules import TRACING_CODE, FunctionCache, PolymorphicFunction


def tracing_frames(frame) -> list:
    """TensorFlow's tracing frames from ``frame`` outward, innermost first."""
    frames = []
    while frame is not None:
        if frame.f_code is TRACING_CODE:
            frames.append(frame)
        frame = frame.f_back
    return frames


def tracing_locals(frame) -> dict | None:
    """From TensorFlow's tracing frame: the cache, function types and context, by name."""
    names = ("tracing_options", "lookup_func_type", "target_func_type", "current_func_context")
    local = frame.f_locals
    if not all(name in local for name in names):
        return None
    options = local["tracing_options"]
    return {
        "cache": options.function_cache,
        "polymorphic_type": options.polymorphic_type,
        "call_type": local["lookup_func_type"],
        "traced_type": local["target_func_type"],
        "context": local["current_func_context"],
    }


def function_options(function) -> dict:
    """The constructor options of an existing tf.function, to make a watched copy."""
    return {
        "name": function._name,
        "input_signature": function.input_signature,
        "autograph": function._autograph,
        "jit_compile": function._jit_compile,
        "reduce_retracing": function._reduce_retracing,
        "experimental_attributes": function._attributes,
        "experimental_autograph_options": function._experimental_autograph_options,
    }


def copy_rendezvous(source, target) -> None:
    """Share the gradient-registry rendezvous of ``source`` with its watched copy."""
    target._shared_rendezvous = source._shared_rendezvous


def function_cache(function):
    return function._function_cache


def can_watch_in_place(function, watched_class: type) -> bool:
    """Whether ``function`` can become a ``watched_class`` in place: a plain tf.function
    (not a subclass such as a restored one) that has never traced, so its Python function
    may still be wrapped (TensorFlow's own ``_decorate`` refuses once it has traced)."""
    return (
        type(function) is watched_class.__base__
        and getattr(function, "_variable_creation_config", True) is None
        and getattr(function, "_no_variable_creation_config", True) is None
        and len(function._function_cache) == 0
    )


def watch_in_place(function, watched_class: type, wrap: Callable, cache) -> None:
    """Make ``function`` itself a ``watched_class``: its Python function wrapped by ``wrap``
    (with TensorFlow's ``_decorate``, as tf.Module wraps methods in a name scope) and its
    trace cache replaced by ``cache``. Calls, traces, get_concrete_function and what
    tf.saved_model.save exports stay the function's own: nothing is copied."""
    function._decorate(wrap)
    function._function_cache = cache
    function.__class__ = watched_class  # same layout: the subclass adds methods only


def set_function_cache(function, cache) -> None:
    function._function_cache = cache


def python_function_hook(function) -> Callable:
    """What TensorFlow runs as ``function``'s Python body (a watch's hook, when watched)."""
    return function._python_function


def set_python_function_hook(function, hook: Callable) -> None:
    function._python_function = hook


def with_python_function(state: dict, body: Callable) -> dict:
    """A tf.function's pickled state whose Python function is ``body``."""
    state["_python_function"] = body
    return state


def recording_cache(on_added: Callable) -> FunctionCache:
    """A trace cache for one watched function: a trace begun in a tracing frame is held
    (``hold``) until TensorFlow adds it, then ``on_added(held, concrete_function)`` runs.
    TensorFlow's tracing count is the number of traces added here, so every trace it
    counts reaches ``on_added``: one added with nothing held (its start could not be read)
    comes as ``(owner, None)``, ``owner`` being what the explainer set on the cache."""
    return _RecordingCache(on_added)


def is_recording_cache(cache) -> bool:
    return isinstance(cache, _RecordingCache)


if EXPLAINER_ERROR is None:

    class _RecordingCache(FunctionCache):
        """TensorFlow's trace cache, which hands over a held trace when it is added."""

        __slots__ = ("on_added", "owner", "pending")

        def __init__(self, on_added: Callable):
            super().__init__()
            self.on_added = on_added
            self.owner = None  # the explainer's record of the function this cache is for
            self.pending: dict = {}  # id(tracing frame) -> what the watch held

        def __getstate__(self):
            # Pickled without its owner (a watch, which holds code objects): the watched
            # function being unpickled makes itself a new cache and watch.
            state = super().__getstate__()
            if isinstance(state, tuple) and isinstance(state[1], dict):
                state = (state[0], {k: v for k, v in state[1].items() if k != "owner"})
            return state

        def hold(self, frames: list, held) -> None:
            """Keep what was begun in ``frames[0]`` until TensorFlow adds the trace."""
            live = {id(frame) for frame in frames}
            for key in [key for key in self.pending if key not in live]:
                del self.pending[key]  # a trace that failed: its tracing frame is gone
            self.pending[id(frames[0])] = held

        def add(self, fn, context=None):
            super().add(fn, context)
            frames = tracing_frames(sys._getframe(1))
            held = self.pending.pop(id(frames[0]), None) if frames else None
            if held is None and getattr(self, "owner", None) is not None:
                held = (self.owner, None)  # counted by TensorFlow, unread by the hook
            if held is not None:
                self.on_added(held, fn)

else:
    _RecordingCache = type(None)  # never an instance: the explainer is not in use


def call_stats_key(function):
    """The Python code TensorFlow counts calls of, for its retracing warning."""
    return function._key_for_call_stats


def restored_function_parts(function) -> dict | None:
    """What rebuilds a function loaded from a SavedModel with its own signature, or None.

    ``tf.saved_model.load`` makes ``RestoredFunction`` objects: their Python body takes
    ``*args, **kwargs`` and picks one of the saved concrete functions; the loaded signature
    (``x``, not ``args[0]``) and the saved functions are held beside it.
    """
    if RestoredFunction is None or not isinstance(function, RestoredFunction):
        return None
    try:
        spec = types.SimpleNamespace(
            jit_compile=function._jit_compile,
            function_type=function._function_type,
            default_values=function._default_values,
        )
    except AttributeError:  # another TensorFlow: watch it as any tf.function
        return None
    decorator = getattr(function, "_tf_decorator", None)
    return {
        "python_function": function.python_function,
        "name": function._name,
        "function_spec": spec,
        "concrete_functions": list(function.concrete_functions),
        "argspec": getattr(decorator, "decorator_argspec", None),
        # A concrete function is named like "__inference_serve_64": "serve" is the name
        # the function had when it was saved.
        "saved_name": _saved_name(function.concrete_functions),
    }


def saved_arguments(concrete_functions) -> list[dict]:
    """Per saved concrete function of a loaded function: argument name -> description of
    what its graph accepts (``x``: a float32 tensor of shape (None,))."""
    found = []
    for concrete in concrete_functions:
        try:
            found.append(traced_arguments(concrete))
        except Exception:  # a concrete function this TensorFlow describes otherwise
            continue
    return found


def _saved_name(concrete_functions) -> str | None:
    for concrete in concrete_functions:
        name = concrete.name.decode() if isinstance(concrete.name, bytes) else concrete.name
        name = name.removeprefix("__inference_")
        while name.rsplit("_", 1)[-1].isdigit() and "_" in name:
            name = name.rsplit("_", 1)[0]
        if name:
            return name
    return None


@contextlib.contextmanager
def watching_restored_functions(watch: Callable) -> Iterator[None]:
    """Inside the block, every function ``tf.saved_model.load`` restores is passed through
    ``watch`` (which returns the function to use). The loader makes them with its own
    ``recreate_function``, not with ``tf.function``. Without it (a TensorFlow that moved
    it) restored functions are simply not watched."""
    if function_deserialization is None:
        yield
        return
    original = function_deserialization.recreate_function

    def recreate_function(*args, **kwargs):
        return watch(original(*args, **kwargs))

    function_deserialization.recreate_function = recreate_function
    try:
        yield
    finally:
        function_deserialization.recreate_function = original


# Optional: pfor (behind tape.jacobian, tape.batch_jacobian and eager tf.vectorized_map)
# makes a new tf.function on every eager call, through its module's `def_function`.
try:
    from tensorflow.python.ops.parallel_for import control_flow_ops as pfor_module
except ImportError:
    pfor_module = None


class _MakingWatched:
    """Stands in for a module whose ``function`` makes tf.functions: the same module,
    but each tf.function it makes is passed through ``watch``."""

    def __init__(self, module, watch: Callable):
        self._module = module
        self._watch = watch

    def __getattr__(self, name):
        return getattr(self._module, name)

    def function(self, *args, **kwargs):
        return self._watch(self._module.function(*args, **kwargs))


@contextlib.contextmanager
def watching_per_call_functions(watch: Callable) -> Iterator[None]:
    """Inside the block, each tf.function pfor makes for an eager call is passed through
    ``watch`` (which returns the function to use). Without pfor's module where it is
    expected (a TensorFlow that moved it) they are not watched, and their retracing
    warnings are still heard (hearing_retracing_warnings)."""
    maker = getattr(pfor_module, "def_function", None)
    if maker is None or not callable(getattr(maker, "function", None)):
        yield
        return
    pfor_module.def_function = _MakingWatched(maker, watch)
    try:
        yield
    finally:
        pfor_module.def_function = maker


# TensorFlow's retracing warning ("5 out of the last 5 calls to <function f at 0x...>
# triggered tf.function retracing") is logged by a detector called with the code object
# it counts calls of: the same key as call_stats_key().
_RETRACING_WARNING = "triggered tf.function retracing"


class _RetracingWarningListener(logging.Handler):
    def __init__(self, heard: Callable):
        super().__init__(logging.WARNING)
        self.heard = heard

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if _RETRACING_WARNING not in message:
            return
        frame, key, function = sys._getframe(1), None, None
        while frame is not None:  # up to the detector that counted the call
            if frame.f_code.co_name == "called_with_tracing" and "key" in frame.f_locals:
                key = frame.f_locals["key"]
                # Its caller is the tf.function's __call__: the object that traced.
                caller = frame.f_back.f_locals.get("self") if frame.f_back else None
                function = caller if isinstance(caller, PolymorphicFunction) else None
                break
            frame = frame.f_back
        self.heard(key, message, function)


@contextlib.contextmanager
def hearing_retracing_warnings(heard: Callable) -> Iterator[None]:
    """Inside the block, each retracing warning TensorFlow logs is passed to
    ``heard(key, message, function)``, ``key`` being the code object it counted calls of
    and ``function`` the tf.function whose call it counted (None where either cannot be
    found). A program that silenced TensorFlow's logger is not heard."""
    logger = tf.get_logger()
    listener = _RetracingWarningListener(heard)
    logger.addHandler(listener)
    try:
        yield
    finally:
        logger.removeHandler(listener)
