"""What one trace was made for, described without TensorFlow.

TensorFlow keys its traces on "trace types" (private classes that move between releases).
``tf_retracing._internals`` turns them into the plain dataclasses below, and everything
that compares traces and writes explanations (``tf_retracing.comparison``) works on these
alone, so it can be tested without TensorFlow and survives a TensorFlow that renames its
classes. This module must never import TensorFlow.

A description is a tree: each argument is a ``Node``, either a leaf (a tensor-like value,
a Python value, an object matched by identity, or anything else TensorFlow keys on) or a
``Structure`` (a list, tuple, dict, namedtuple or attrs class) with named children.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Callable

# TensorLeaf.kind for the kinds of tensor the explainer gives specific advice for.
DENSE, VARIABLE, RAGGED, SPARSE = "dense", "variable", "ragged", "sparse"

# CallContext.scope: the two passes of a first call that creates tf.Variables.
VARIABLE_CREATION, NO_VARIABLE_CREATION = "variable-creation", "no-variable-creation"


@dataclasses.dataclass(frozen=True)
class TensorLeaf:
    """A tensor, variable, ragged or sparse tensor (or another value with shape and dtype).

    The spec's ``name`` is kept for display only: TensorFlow's own specs carry argument
    names (``tf.saved_model.save`` traces with them), which are not what a reader changed.
    """

    kind: str  # DENSE, VARIABLE, RAGGED, SPARSE, or another spec's type name
    dtype: str  # e.g. "float32"
    shape: tuple[int | None, ...] | None  # None: unknown rank; None in it: any size
    ragged_rank: int | None = None  # RAGGED only
    details: tuple[tuple[str, str], ...] = ()  # further fields the spec is keyed on
    name: str | None = dataclasses.field(default=None, compare=False)


@dataclasses.dataclass(frozen=True)
class PythonValue:
    """A Python value TensorFlow keys on by value (a number, string, bool, None...).

    ``used_as``: for a number, the dtypes of the constants with its value in the traced
    graph, i.e. what the function turned it into (int64 for a tf.summary step, float32
    when multiplied with a float32 tensor); empty when the graph does not show it.
    ``used_for``: what the function's source does with it (see ``argument_use``).
    ``pass_as``, ``cast_at`` and ``fails_as``: for a number the graph has in several
    dtypes, the one dtype to pass it as, checked against the operations it feeds
    (``_internals.dtype_to_pass``); ``cast_at`` holds ``(dtype, where)`` for each use that
    still needs ``tf.cast`` to that dtype, ``fails_as`` ``(dtype, where)`` for each dtype
    not chosen and a use where a tensor of it fails.
    """

    value: object
    used_as: tuple[str, ...] = dataclasses.field(default=(), compare=False)
    pass_as: str | None = dataclasses.field(default=None, compare=False)
    cast_at: tuple[tuple[str, str], ...] = dataclasses.field(default=(), compare=False)
    fails_as: tuple[tuple[str, str], ...] = dataclasses.field(default=(), compare=False)
    # How the function's source uses the argument (argument_use: "chooses", "branches",
    # "step", "feeds"); empty when the source could not be read or it is not an argument.
    used_for: tuple[str, ...] = dataclasses.field(default=(), compare=False)


@dataclasses.dataclass(frozen=True, eq=False)
class ObjectRef:
    """An object TensorFlow keys on by identity (or by its own ``__eq__``)."""

    description: str  # e.g. "Config #2", taken while the object lived (see object_label)
    ref: Callable[[], object]  # returns the object, or None once it was collected


@dataclasses.dataclass(frozen=True)
class OtherLeaf:
    """Anything else TensorFlow keys on (a dataset spec, a custom trace type)."""

    type_name: str  # shown when the kind of value changes
    text: str  # what it was, for the reader
    key: object  # compared with ``==`` to decide whether two of them match


@dataclasses.dataclass(frozen=True)
class Structure:
    """A container; each child has the path suffix that reaches it (``[0]``, ``['ids']``)."""

    container: str  # "list", "tuple", "dict", "namedtuple" or "attrs"
    type_name: str  # the class name of a namedtuple or attrs class, else ``container``
    children: tuple[tuple[str, Node], ...]


Node = TensorLeaf | PythonValue | ObjectRef | OtherLeaf | Structure


@dataclasses.dataclass(frozen=True)
class CallContext:
    """Where a call was made from, as far as TensorFlow keys traces on it."""

    scope: str  # VARIABLE_CREATION, NO_VARIABLE_CREATION (or another name)
    graph: object = None  # the graph called from (compared by identity); None: eagerly
    saving: bool = False  # called by tf.saved_model.save, which traces under a save policy
    fields: tuple[tuple[str, object], ...] = ()  # other fields, compared with ``==``


@dataclasses.dataclass
class TraceDescription:
    """One trace: its arguments as called, as traced (generalised), and its context.

    ``call`` and ``traced`` map an argument's display name (``x``, ``args[2]``) to its
    description. With ``reduce_retracing`` the traced form may be more general than the
    call (a ``None`` dimension); otherwise the two are the same.
    """

    call: dict[str, Node]
    traced: dict[str, Node]
    context: CallContext
    # The function's variadic parameters as written ("*args", "**kwargs"), and the
    # arguments of this call that came through them. On such a function a call may pass
    # more arguments than an earlier trace had: reduce_retracing then raises IndexError
    # in TensorFlow, and an input_signature refuses them (so the advice differs).
    variadic: tuple[str, ...] = dataclasses.field(default=(), compare=False)
    through_variadic: tuple[str, ...] = dataclasses.field(default=(), compare=False)
    # Its keyword-only parameters, to which an input_signature gives no spec.
    keyword_only: tuple[str, ...] = dataclasses.field(default=(), compare=False)


def description_key(description: TraceDescription) -> tuple | None:
    """A hashable stand-in for ``description``, equal where descriptions are equal, for
    finding an equal earlier trace in constant time; None if a value in it cannot be
    hashed (a Python value without a hash), which is then compared one by one."""
    key = (
        tuple(description.call.items()),
        tuple(description.traced.items()),
        description.context,
    )
    try:
        hash(key)
    except (TypeError, ValueError):
        return None
    return key


# The field of the calling context that holds its device scopes (tf.device, or a
# tf.distribute replica's device), as names such as "CPU:1".
DEVICE_FIELD = "device_functions"


class _ObjectLabels:
    """Names objects by type and the order they were first described ("Config #2",
    "Sequential #3 ('sequential_2')"): a report reads the same on every run, where a
    memory address differs. A collected object's number is never given again."""

    def __init__(self):
        self._labels: dict = {}  # id(object) -> (weak reference or None, label)
        self._counts: dict = {}  # type name -> objects numbered so far
        self._lock = threading.Lock()

    def label(self, target: object) -> str:
        with self._lock:
            known = self._labels.get(id(target))
            if known is not None and (known[0] is None or known[0]() is target):
                return known[1]
            kind = type(target).__name__
            number = self._counts[kind] = self._counts.get(kind, 0) + 1
            label = f"{kind} #{number}{_own_name(target)}"
            key = id(target)
            try:  # forgotten with the object, so that the table does not grow
                ref = weakref.ref(target, lambda _, key=key: self._labels.pop(key, None))
            except TypeError:  # not weakly referenceable: trusted by its id
                ref = None
            self._labels[key] = (ref, label)
            return label


def _own_name(target: object) -> str:
    """`` ('dense_1')`` for an object with a string ``name`` (Keras layers, tf.Module)."""
    try:
        name = getattr(target, "name", None)
    except Exception:  # a property that fails: no name
        return ""
    return f" ({name!r})" if isinstance(name, str) and name else ""


object_label = _ObjectLabels().label
