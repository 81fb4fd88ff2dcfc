"""Every use of TensorFlow's and Keras's private APIs in ``tf_retracing``, in one place.

Nothing else in the package imports a private module or reads a private attribute. Each
function here says what it relies on and what it does when that is missing, so that a
TensorFlow or Keras release that moves something degrades a tool, never breaks a call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import inspect
import io
import linecache
import logging
import re
import sys
import textwrap
import tokenize
import types
from collections.abc import Callable, Iterator
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tf_retracing import trace_description as td

# --- Serving (tf_retracing.serving) --------------------------------------------------


def flat_caller(concrete_function) -> Callable[[list], Any] | None:
    """A callable that runs ``concrete_function`` on its flat tensor inputs, or None.

    A ``ConcreteFunction`` called the public way binds and checks every argument against
    its signature: for a function that takes hundreds of variables that costs several
    microseconds per variable, more than the computation of a small model. Its private
    ``_call_flat`` takes the flat inputs (variable handles, then tensors) in the traced
    order and runs the graph, recording gradients as the public call does. The caller is
    responsible for passing exactly the inputs the function was traced with.
    """
    call_flat = getattr(concrete_function, "_call_flat", None)
    captured = getattr(concrete_function, "captured_inputs", None)
    if call_flat is None or captured is None:
        return None
    captured = list(captured)
    return lambda flat_inputs: call_flat(flat_inputs, captured)


def variable_handle(variable) -> tf.Tensor:
    """The resource handle of a Keras (or tf) variable: what a graph input receives."""
    value = getattr(variable, "value", variable)  # a Keras variable's backing tf.Variable
    return value.handle


def onednn_enabled() -> bool | None:
    """Whether this process's TensorFlow runs its oneDNN kernels on the CPU, or None where
    it cannot say. TensorFlow decides once, at import (on Linux: on for CPUs with
    neural-network instructions, unless ``TF_ENABLE_ONEDNN_OPTS`` says otherwise); no
    public API reports the decision. The serving benchmarks record it with their times."""
    try:
        from tensorflow.python.util import _pywrap_util_port
    except ImportError:
        return None
    enabled = getattr(_pywrap_util_port, "IsMklEnabled", None)
    return None if enabled is None else bool(enabled())


def flatten_layers(model: keras.Model) -> list:
    """Every layer inside ``model``, nested models' layers included, in a stable order."""
    flatten = getattr(model, "_flatten_layers", None)
    if flatten is not None:
        return list(flatten(include_self=False, recursive=True))
    return list(_walk_layers(model))


def _walk_layers(layer) -> Iterator:
    for child in getattr(layer, "layers", []):
        yield child
        yield from _walk_layers(child)


def is_plain_functional(model: keras.Model) -> bool:
    """True for a model built as ``keras.Model(inputs, outputs)``, not a subclass of it.

    Keras gives such models its internal ``Functional`` class; a subclass that calls the
    functional constructor gets ``Functional`` as a base but keeps its own class.
    """
    cls = type(model)
    return cls.__name__ == "Functional" and cls.__module__.startswith("keras.")


def keras2_model_class(obj) -> str | None:
    """The qualified class name if ``obj`` is a Keras 2 (tf-keras) model, else None.

    Keras 2's models derive from ``Model`` in its ``engine`` package (``tf_keras.src.engine``,
    or ``keras.src.engine`` in TensorFlow 2.13-2.15's Keras); Keras 3 has no such package.
    """
    cls = type(obj)
    for base in cls.__mro__:
        root, _, rest = base.__module__.partition(".")
        if base.__name__ == "Model" and root in ("tf_keras", "keras") and "engine" in rest:
            return f"{cls.__module__}.{cls.__qualname__}"
    return None


# --- The retrace explainer (tf_retracing.explainer) ----------------------------------
# The explainer watches a tf.function by subclassing TensorFlow's Function and its trace
# cache, and reads the call's trace type from the frame of TensorFlow's tracing step.
# Everything it needs from TensorFlow's private modules is imported here; an import that
# fails leaves EXPLAINER_ERROR set and the package falls back to public trace counts.

EXPLAINER_ERROR: str | None = None
try:
    from tensorflow.core.function.polymorphism.function_cache import (  # noqa: F401
        FunctionCache,
        FunctionContext,
    )
    from tensorflow.core.function.trace_type import default_types
    from tensorflow.python.eager.polymorphic_function import tracing_compilation
    from tensorflow.python.eager.polymorphic_function.concrete_function import (  # noqa: F401
        ConcreteFunction,
    )
    from tensorflow.python.eager.polymorphic_function.polymorphic_function import (
        Function as PolymorphicFunction,
    )
    from tensorflow.python.util.tf_decorator import make_decorator  # noqa: F401

    # The frame of TensorFlow's tracing step: its locals hold the call's trace type.
    TRACING_CODE = tracing_compilation._maybe_define_function.__code__
    SCOPE_TYPES = tracing_compilation.ScopeType
except (ImportError, AttributeError) as error:  # a TensorFlow that moved them
    EXPLAINER_ERROR = f"{type(error).__name__}: {error}"

# Optional: functions restored from a SavedModel are watched only if these are found.
try:
    from tensorflow.python.saved_model import function_deserialization
    from tensorflow.python.saved_model.function_deserialization import RestoredFunction
except ImportError:
    function_deserialization = RestoredFunction = None


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


# --- Describing a trace without TensorFlow (tf_retracing.trace_description) -----------
# TensorFlow's trace types become the plain dataclasses the comparison works on.


def describe_trace(tracing: dict, instance, concrete_function=None) -> td.TraceDescription:
    """The description of one trace, from ``tracing_locals`` and, for a method traced
    for one instance, a weak reference to that instance (``self``). With the trace's
    ``concrete_function``, each Python number says what dtype the graph made of it and,
    where it made several, which one dtype a tensor in its place should have."""
    var_positional = _var_positional_name(tracing["polymorphic_type"])
    call = _parameters(tracing["call_type"], var_positional)
    traced = _parameters(tracing["traced_type"], var_positional)
    constants = _scalar_constants(concrete_function)
    if constants:
        graph = concrete_function.graph
        call = {
            name: _with_uses(node, constants, graph, re.match(r"\w*", name).group())
            for name, node in call.items()
        }
    if instance is not None:
        this = _object(instance)
        call, traced = {"self": this, **call}, {"self": this, **traced}
    return td.TraceDescription(call, traced, describe_context(tracing["context"]))


def _scalar_constants(concrete_function) -> list[tuple[np.ndarray, Any]]:
    """Every scalar numeric constant of a traced graph, as a NumPy scalar with its Const
    operation: where a Python number argument ended up (TensorFlow bakes it into the
    graph as a constant)."""
    graph = getattr(concrete_function, "graph", None)
    if graph is None:
        return []
    found = []
    for op in (op for each in _graphs(graph) for op in each.get_operations()):
        if op.type != "Const" or op.outputs[0].shape.rank != 0:
            continue
        dtype = op.outputs[0].dtype
        if not (dtype.is_integer or dtype.is_floating):
            continue
        found.append((tf.make_ndarray(op.get_attr("value")), op))
    return found


def _graphs(graph) -> list:
    """``graph`` and the graphs of the functions it calls, a tf.cond's branches and a
    loop's body among them, where AutoGraph put the uses of a number inside them. Reads
    FuncGraph._functions (private: name -> AtomicFunction with its graph); without it,
    only ``graph``."""
    found, waiting = [], [graph]
    while waiting:
        each = waiting.pop()
        if any(each is seen for seen in found):
            continue
        found.append(each)
        for function in (getattr(each, "_functions", None) or {}).values():
            inner = getattr(function, "graph", None)
            if inner is not None and hasattr(inner, "get_operations"):
                waiting.append(inner)
    return found


def _with_uses(node: td.Node, constants: list, graph, name: str) -> td.Node:
    """``node`` with, for each number in it, the dtypes the graph made of it; ``name``:
    the argument it is (or is part of)."""
    if isinstance(node, td.Structure):
        children = tuple(
            (path, _with_uses(child, constants, graph, name)) for path, child in node.children
        )
        return dataclasses.replace(node, children=children)
    if not isinstance(node, td.PythonValue) or isinstance(node.value, bool):
        return node
    if not isinstance(node.value, int | float):
        return node
    uses = [op for constant, op in constants if _same_number(node.value, constant)]
    if len({op.outputs[0].dtype for op in uses}) > 1:  # several: drop those of another value
        uses = [op for op in uses if _made_from(op, name)] or uses
    used_as = sorted({op.outputs[0].dtype.name for op in uses})
    node = dataclasses.replace(node, used_as=tuple(used_as))
    if len(used_as) > 1:
        try:
            pass_as, cast_at, fails_as = dtype_to_pass(node.value, uses, graph)
        except Exception:  # a release that moved the operation registry, an odd graph:
            return node  # the advice then lists the dtypes, the explanation stands
        node = dataclasses.replace(node, pass_as=pass_as, cast_at=cast_at, fails_as=fails_as)
    return node


# --- The one dtype to pass a number as (issue 41) ---------------------------------------
# A number the graph made into several dtypes (x * n made it float32, tf.range(n) int32)
# needs one dtype as a tensor. Which dtype lets the body run is checked here against the
# traced graph, not by tracing the function again with a TensorSpec per candidate: that
# would run the user's Python once more per dtype, after the call that traced and outside
# its context (its prints, its appends to lists, its own counters of traces, a layer that
# builds), and cost a trace of a possibly large model at every trace of it. Reading the
# graph costs none of that. Each Const holding the value becomes, in thought, a tensor of
# the candidate dtype, and the new dtype is followed through the operations it feeds by
# their definitions, as TensorFlow binds an operation's type attributes from its inputs:
# an operation fails it where the input has a fixed dtype (tf.one_hot's depth is int32),
# where the attribute's allowed dtypes exclude it, or where another input of the same
# attribute is a tensor of the old dtype (x * n with x float32). A constant there is a
# Python number the call converts (n * 2; tf.range's start and delta, which it casts), so
# it takes the new dtype if it holds its value exactly. A call of a traced function
# (tf.cond, tf.while_loop, a nested tf.function), an operation on a variable, an unknown
# operation, and a result of the function that would change dtype all fail it: the fixed
# program must run and return what the traced one returns. Where no dtype fits every use,
# the advice passes the one that fits most and casts it back, at each use it does not
# fit, to the dtype that use was traced with, which rebuilds the traced graph's dtypes:
# then the fixed program runs by construction. The check sees only the uses the graph
# shows: not a number used in Python (range(n), n / 2, a shape list [n, 2]).
_DEFAULT_DTYPES = {"int": "int32", "float": "float32"}  # what tf.constant makes of each


def dtype_to_pass(value, uses: list, graph) -> tuple[str, tuple, tuple]:
    """``(dtype, cast_at, fails_as)`` for a number whose constants in ``graph`` (or in
    the graphs of the functions it calls) are the Const operations ``uses`` (see the
    comment above and ``td.PythonValue``)."""
    graphs = _Graphs(graph)
    candidates = sorted({use.outputs[0].dtype for use in uses}, key=lambda dtype: dtype.name)
    misfits = {}  # dtype -> {use it does not fit: why}
    for dtype in candidates:
        changed = [use for use in uses if use.outputs[0].dtype != dtype]
        found = {use: graphs.misfit([use], dtype) for use in changed}
        misfits[dtype] = {use: why for use, why in found.items() if why}
        rest = [use for use in changed if use not in misfits[dtype]]
        together = graphs.misfit(rest, dtype) if len(rest) > 1 else None
        if together:  # each fits alone but not all at once: cast every one
            misfits[dtype] = {use: misfits[dtype].get(use, together) for use in changed}
    default = _DEFAULT_DTYPES.get(type(value).__name__)

    def cost(dtype) -> tuple:
        exact = all(_casts_exactly(value, dtype, use.outputs[0].dtype) for use in misfits[dtype])
        kept = sum(use.outputs[0].dtype == dtype for use in uses)
        return (len(misfits[dtype]), not exact, dtype.name != default, -kept)

    chosen = min(candidates, key=cost)
    cast_at = tuple((use.outputs[0].dtype.name, _where(use)) for use in misfits[chosen])
    fails_as = tuple(
        (dtype.name, next(iter(misfits[dtype].values())))
        for dtype in candidates
        if misfits[dtype] and dtype != chosen
    )
    return chosen.name, cast_at, fails_as


class _Graphs:
    """The traced graph and those of the functions it calls, each read once: its
    operations in the order they were made, each one's place among them, its results."""

    def __init__(self, outer):
        self.outer, self.read = outer, {}

    def _of(self, graph) -> tuple:
        if id(graph) not in self.read:
            operations = graph.get_operations()
            order = {op.name: index for index, op in enumerate(operations)}
            self.read[id(graph)] = operations, order, {t.name for t in graph.outputs}
        return self.read[id(graph)]

    def misfit(self, constants: list, dtype) -> str | None:
        """Why the operations do not take a tensor of ``dtype`` in place of the Const
        operations ``constants`` (``fails at Mul, line 5 (...)``), or None if they do and
        the results keep their dtypes. A tensor passed in place of a number used inside
        a tf.cond branch or a loop body is captured there: the check runs in that graph,
        whose results are what the branch or body returns."""
        for graph in {id(c.graph): c.graph for c in constants}.values():
            inside = [c for c in constants if c.graph is graph]
            why = self._misfit_in(graph, inside, dtype)
            if why:
                return why
        return None

    def _misfit_in(self, graph, constants: list, dtype) -> str | None:
        from tensorflow.python.framework import op_def_registry  # operation definitions

        operations, order, outputs = self._of(graph)
        changed = {constant.outputs[0].name: dtype for constant in constants}
        waiting = [order[op.name] for c in constants for op in c.outputs[0].consumers()]
        heapq.heapify(waiting)
        done = set()
        while waiting:  # in the order they were made: an operation after all its inputs
            index = heapq.heappop(waiting)
            if index in done:
                continue
            done.add(index)
            op = operations[index]
            definition = op_def_registry.get(op.type)
            if definition is None:
                return f"reaches {_where(op)}, an operation the check does not know"
            bound = _bind_changed_types(op, definition, changed)
            if bound is None:
                calls = any(arg.type_list_attr for arg in definition.input_arg)
                return f"{'is not checked through' if calls else 'fails at'} {_where(op)}"
            for tensor, new in _changed_outputs(op, definition, bound):
                changed[tensor.name] = new
                if tensor.name in outputs:
                    return self._result_changed(graph, op, changed)
                for consumer in tensor.consumers():
                    heapq.heappush(waiting, order[consumer.name])
        return None

    def _result_changed(self, graph, op, changed: dict) -> str:
        # TensorFlow adds the Identity of each result after the body returned: the
        # operation that made the value is the one to name.
        if op.type == "Identity":
            op = next(t.op for t in op.inputs if t.name in changed)
        what = "a result" if graph is self.outer else "what a tf.cond branch or loop body returns"
        return f"changes the dtype of {what}, at {_where(op)}"


def _arguments(op, tensors, args) -> Iterator[tuple[Any, Any]]:
    """Each of ``tensors`` (the inputs or outputs of ``op``) with the definition of its
    argument among ``args``."""
    tensors = iter(tensors)
    for arg in args:
        if arg.number_attr:
            count = op.get_attr(arg.number_attr)
        elif arg.type_list_attr:
            count = len(op.get_attr(arg.type_list_attr))
        else:
            count = 1
        for _ in range(count):
            yield next(tensors), arg


def _bind_changed_types(op, definition, changed: dict) -> dict | None:
    """The type attributes of ``op`` that its changed inputs set, or None where the
    operation cannot take them (see the comment above ``dtype_to_pass``)."""
    bound: dict = {}
    inputs = list(_arguments(op, op.inputs, definition.input_arg))
    for tensor, arg in inputs:
        if tensor.name not in changed:
            continue
        new = changed[tensor.name]
        if not arg.type_attr or bound.get(arg.type_attr, new) != new:
            return None  # a fixed dtype, a list of dtypes (a call), or two new dtypes
        bound[arg.type_attr] = new
    allowed = {attr.name: attr.allowed_values.list.type for attr in definition.attr}
    for name, new in bound.items():
        if allowed.get(name) and new.as_datatype_enum not in allowed[name]:
            return None
    for tensor, arg in inputs:
        if tensor.dtype in (tf.resource, tf.variant) and bound:
            return None  # a variable or a dataset keeps its dtype
        if tensor.name in changed or arg.type_attr not in bound:
            continue
        if not _converts_exactly(tensor, bound[arg.type_attr]):
            return None  # another tensor of the old dtype, as x in x * n
    return bound


def _changed_outputs(op, definition, bound: dict) -> Iterator[tuple[Any, Any]]:
    """The outputs of ``op`` whose dtype follows a type attribute the inputs changed,
    each with its new dtype."""
    for tensor, arg in _arguments(op, op.outputs, definition.output_arg):
        if arg.type_attr in bound and tensor.dtype != bound[arg.type_attr]:
            yield tensor, bound[arg.type_attr]


def _converts_exactly(tensor, dtype) -> bool:
    """Whether ``tensor`` is a constant (a Python number the call converted) that holds
    its value exactly in ``dtype``."""
    if tensor.op.type != "Const" or not (dtype.is_integer or dtype.is_floating):
        return False
    held = tf.make_ndarray(tensor.op.get_attr("value"))
    with np.errstate(all="ignore"):
        return bool(np.all(held.astype(dtype.as_numpy_dtype) == held))


def _casts_exactly(value, dtype, target) -> bool:
    """Whether ``tf.cast(tf.constant(value, dtype), target)`` is what the traced graph had
    (value converted to ``target`` directly): 16777217 passed as float32 is not."""
    with np.errstate(all="ignore"):
        through = np.asarray(value).astype(dtype.as_numpy_dtype).astype(target.as_numpy_dtype)
        return bool(through == np.asarray(value).astype(target.as_numpy_dtype))


def _where(op) -> str:
    """An operation and the line of the function's source that made it: ``Mul, line 5
    (`y = x * n`)``; for a Const, the operations it feeds."""
    if op.type == "Const":
        feeds = sorted({consumer.type for consumer in op.outputs[0].consumers()})
        name = " and ".join(feeds) or "nothing"
    else:
        name = op.type
    frames = _body_frames(op)
    if not frames:
        return name
    frame = frames[-1]
    line = _without_comment(linecache.getline(frame.filename, frame.lineno)).strip()
    if len(line) > 60:
        line = line[:57] + "..."
    return f"{name}, line {frame.lineno}" + (f" (`{line}`)" if line else "")


def _made_from(constant, name: str) -> bool:
    """Whether the function made the Const ``constant`` from the argument ``name``: a line
    of the function (or of what it calls) that made it names the argument. A constant
    that only has the same value, tf.range(y)'s delta 1 beside an argument 1, is not a
    use of it. Where no line can be read (no source), every constant counts. Asked only
    where the constants have several dtypes, and where none is made from it by this
    test (it reached the line through another name, lr = params["lr"]), all count."""
    statements = [_statement(frame.filename, frame.lineno) for frame in _body_frames(constant)]
    statements = [text for text in statements if text.strip()]
    return not statements or any(name in _names_in(text) for text in statements)


def _without_comment(line: str) -> str:
    try:
        for token in tokenize.generate_tokens(io.StringIO(line.strip()).readline):
            if token.type == tokenize.COMMENT:
                return line.strip()[: token.start[1]]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a line of a longer statement: kept whole
    return line


def _names_in(source: str) -> set[str]:
    """The names ``source`` reads, not an attribute's (``self.n``), a string's or a
    comment's words."""
    names, after_dot = set(), False
    try:
        for token in tokenize.generate_tokens(io.StringIO(textwrap.dedent(source)).readline):
            if token.type == tokenize.NAME and not after_dot:
                names.add(token.string)
            after_dot = token.type == tokenize.OP and token.string == "."
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a statement cut short: the names read so far
    return names


def _body_frames(op) -> list:
    """The frames of the function's source (and of what it calls) that made ``op``: not
    a library's, and not those above the explainer's hook, which are the caller's (its
    line may name the argument too; TensorFlow makes a result's Identity there)."""
    frames = list(getattr(op, "traceback", None) or [])
    hooks = [i for i, frame in enumerate(frames) if _in_package(frame.filename, "tf_retracing")]
    inside = frames[hooks[-1] + 1 :] if hooks else frames
    return [frame for frame in inside if not _inside_libraries(frame.filename)]


def _statement(filename: str, lineno: int) -> str:
    """The source from line ``lineno`` until its brackets close (a call over several
    lines), at most 20 lines."""
    text, depth = "", 0
    for number in range(lineno, lineno + 20):
        line = linecache.getline(filename, number)
        text += line
        depth += sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
        if depth <= 0 or not line:
            break
    return text


def _in_package(filename: str, package: str) -> bool:
    return package in filename.replace("\\", "/").split("/")


def _inside_libraries(filename: str) -> bool:
    return any(_in_package(filename, name) for name in ("tensorflow", "keras", "tf_retracing"))


def _same_number(value: int | float, constant: np.ndarray) -> bool:
    """Whether ``constant`` is ``value`` converted to its dtype (0.7 as float32 is not the
    Python float 0.7, but it is what the function made of it)."""
    if constant.dtype.kind in "iu" and not float(value).is_integer():
        return False
    try:
        converted = np.asarray(value).astype(constant.dtype)
    except (OverflowError, ValueError):
        return False
    if converted.item() != value and constant.dtype.kind in "iu":  # wrapped around
        return False
    return bool(converted == constant)


def traced_arguments(concrete_function) -> dict:
    """Argument display name -> description, from what a concrete function was traced
    for: what is still known of a trace whose tracing frame could not be read."""
    function_type = concrete_function.function_type
    return _parameters(function_type, _var_positional_name(function_type))


def _var_positional_name(function_type) -> str | None:
    for parameter in function_type.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return parameter.name
    return None


def _parameters(function_type, var_positional: str | None) -> dict:
    """Argument display name -> description; ``args_2`` of ``*args`` becomes ``args[2]``."""
    result = {}
    for name, parameter in function_type.parameters.items():
        if var_positional and name.startswith(var_positional + "_"):
            index = name[len(var_positional) + 1 :]
            if index.isdigit():
                name = f"{var_positional}[{index}]"
        result[name] = describe_type(parameter.type_constraint)
    return result


_TENSOR_KINDS = {
    "TensorSpec": td.DENSE,
    "VariableSpec": td.VARIABLE,
    "RaggedTensorSpec": td.RAGGED,
    "SparseTensorSpec": td.SPARSE,
}


def describe_type(trace_type) -> td.Node:
    """One argument's trace type as a TensorFlow-free description."""
    if isinstance(trace_type, default_types.Literal):
        value = trace_type.value
        nan = value is getattr(default_types, "NanMarker", None)  # TensorFlow's stand-in
        return td.PythonValue(float("nan") if nan else value)
    if isinstance(trace_type, default_types.Weakref):
        return _object(trace_type._ref)
    structure = _structure(trace_type)
    if structure is not None:
        return structure
    if hasattr(trace_type, "shape") and hasattr(trace_type, "dtype"):
        return _tensor(trace_type)
    composite = _composite(trace_type)
    if composite is not None:
        return composite
    return td.OtherLeaf(type(trace_type).__name__, repr(trace_type), trace_type)


def _composite(spec) -> td.Structure | None:
    """A composite value's spec (a distributed value's ``PerReplicaSpec``, an iterator's
    ``IteratorSpec``, a dataset's ``DatasetSpec``...) as a structure of what it holds, so
    that a shape changed inside it is a shape change at a path (``inputs[0]``), not a new
    kind of value. A TypeSpec is identified by its private ``_serialize()``: the values it
    was built from (its element spec, its per-replica specs...)."""
    if not isinstance(spec, tf.TypeSpec):
        return None
    try:
        parts = spec._serialize()
    except (AttributeError, NotImplementedError):
        return None
    type_name = type(spec).__name__.removesuffix("Spec")
    parts = parts if isinstance(parts, tuple) else (parts,)
    # A dataset's or an iterator's elements (IteratorSpec keeps them private).
    element_spec = getattr(spec, "element_spec", getattr(spec, "_element_spec", None))
    children = tuple(
        (".element_spec" if part is element_spec else f"[{index}]", _serialized(part))
        for index, part in enumerate(parts)
    )
    return td.Structure("composite", type_name, children)


def _serialized_children(parts) -> tuple:
    if isinstance(parts, dict):
        return tuple((f"[{key!r}]", _serialized(value)) for key, value in parts.items())
    if isinstance(parts, list | tuple):
        return tuple((f"[{i}]", _serialized(value)) for i, value in enumerate(parts))
    return (("", _serialized(parts)),)


def _serialized(value) -> td.Node:
    if isinstance(value, tf.TypeSpec):
        return describe_type(value)
    if isinstance(value, dict | list | tuple):
        return td.Structure(type(value).__name__, type(value).__name__, _serialized_children(value))
    if isinstance(value, tf.TensorShape):
        return td.PythonValue(None if value.rank is None else tuple(value.as_list()))
    if isinstance(value, tf.DType):
        return td.PythonValue(value.name)
    return td.PythonValue(value)


def _object(ref) -> td.ObjectRef:
    target = ref()
    if target is None:
        return td.ObjectRef("an object (already collected)", ref)
    return td.ObjectRef(td.object_label(target), ref)


def _tensor(spec) -> td.TensorLeaf:
    type_name = type(spec).__name__
    kind = _TENSOR_KINDS.get(type_name, type_name.removesuffix("Spec"))
    shape = tf.TensorShape(spec.shape)
    details = ()
    ragged_rank = None
    if kind == td.RAGGED:
        ragged_rank = spec.ragged_rank
        details = (("row_splits_dtype", spec.row_splits_dtype.name),)
    return td.TensorLeaf(
        kind=kind,
        dtype=tf.as_dtype(spec.dtype).name,
        shape=None if shape.rank is None else tuple(shape.as_list()),
        ragged_rank=ragged_rank,
        details=details,
        name=getattr(spec, "name", None),
    )


def _structure(trace_type) -> td.Structure | None:
    if isinstance(trace_type, default_types.List):
        items = trace_type.components_tuple.components
        return td.Structure("list", "list", _indexed(items))
    if isinstance(trace_type, default_types.Tuple):
        return td.Structure("tuple", "tuple", _indexed(trace_type.components))
    if isinstance(trace_type, default_types.Dict):
        children = tuple(
            (f"[{key!r}]", describe_type(value)) for key, value in trace_type.mapping.items()
        )
        return td.Structure("dict", "dict", children)
    container = "namedtuple"
    if isinstance(trace_type, default_types.Attrs):
        container, trace_type = "attrs", trace_type.named_attributes
    if isinstance(trace_type, default_types.NamedTuple):
        names = trace_type.attribute_names
        items = trace_type.attributes.components
        children = tuple((f".{n}", describe_type(c)) for n, c in zip(names, items, strict=True))
        return td.Structure(container, trace_type.type_name, children)
    return None


def _indexed(items) -> tuple:
    return tuple((f"[{i}]", describe_type(item)) for i, item in enumerate(items))


_SCOPE_NAMES: dict = {}  # TensorFlow's ScopeType -> trace_description's scope names


def bound_instance(function):
    """The instance a method's tf.function is bound to, or None. TensorFlow gives each
    instance its own tf.function, whose Python function holds the instance weakly in its
    closure (``class_method_to_instance_method``); ``tf.function(obj.method)`` binds it
    directly."""
    python_function = function.python_function
    direct = getattr(python_function, "__self__", None)
    if direct is not None and not isinstance(direct, type | types.ModuleType):
        return direct
    code = getattr(python_function, "__code__", None)
    closure = getattr(python_function, "__closure__", None)
    if code is None or not closure or "weak_instance" not in code.co_freevars:
        return None
    reference = closure[code.co_freevars.index("weak_instance")].cell_contents
    return reference() if callable(reference) else None


def _device_name(device_function) -> str:
    """``CPU:1`` for a ``tf.device`` scope (a MergeDevice), the full spec off localhost."""
    spec = getattr(device_function, "_spec", None)
    if spec is None:
        return getattr(device_function, "__qualname__", None) or repr(device_function)
    if spec.device_type and spec.job in (None, "localhost"):
        return f"{spec.device_type}:{spec.device_index or 0}"
    return spec.to_string()


def describe_context(function_context) -> td.CallContext:
    """TensorFlow's calling context (variable-creation scope, graph, save policy...)."""
    if not _SCOPE_NAMES:
        _SCOPE_NAMES[SCOPE_TYPES.VARIABLE_CREATION] = td.VARIABLE_CREATION
        _SCOPE_NAMES[SCOPE_TYPES.NO_VARIABLE_CREATION] = td.NO_VARIABLE_CREATION
    scope = function_context.scope_type
    context = function_context.context
    fields = {name: getattr(context, name) for name in getattr(context, "_fields", ())}
    graph = fields.pop("parent_graph", None)
    if fields.get(td.DEVICE_FIELD):  # device scopes, as names instead of object reprs
        fields[td.DEVICE_FIELD] = tuple(_device_name(f) for f in fields[td.DEVICE_FIELD])
    # A save policy is set only inside tf.saved_model.save (see function_context.py).
    policy = fields.get("variable_policy")
    return td.CallContext(
        scope=_SCOPE_NAMES.get(scope, str(scope)),
        graph=graph,
        saving=policy is not None,
        fields=tuple(fields.items()),
    )
