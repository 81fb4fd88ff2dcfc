"""Does an earlier trace accept this value? A trace serves a call when every argument
matches it as TensorFlow matches them (spec names left out)."""

from __future__ import annotations

# Relative imports: its tests load it without the package (whose __init__ imports TF).
from ..trace_description import (
    Node,
    ObjectRef,
    OtherLeaf,
    PythonValue,
    Structure,
    TensorLeaf,
)


def accepts(old: Node, new: Node) -> bool:
    """Whether a trace made for ``old`` serves a call with ``new`` (names left out)."""
    if isinstance(old, TensorLeaf) and isinstance(new, TensorLeaf):
        return (old.kind, old.dtype, old.ragged_rank, old.details) == (
            new.kind,
            new.dtype,
            new.ragged_rank,
            new.details,
        ) and _shape_accepts(old.shape, new.shape)
    if isinstance(old, PythonValue) and isinstance(new, PythonValue):
        return _same_value(old.value, new.value)
    if isinstance(old, ObjectRef) and isinstance(new, ObjectRef):
        return _same_object(old, new)
    if isinstance(old, OtherLeaf) and isinstance(new, OtherLeaf):
        return _equal(old.key, new.key)
    if isinstance(old, Structure) and isinstance(new, Structure):
        if not _same_layout(old, new):
            return False
        new_children = dict(new.children)
        return all(accepts(child, new_children[suffix]) for suffix, child in old.children)
    return False


def _shape_accepts(old, new) -> bool:
    if old is None:  # a trace for any rank
        return True
    if new is None or len(old) != len(new):
        return False
    return all(a is None or a == b for a, b in zip(old, new, strict=True))


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # an __eq__ that raises or returns an array: not the same
        return False


def _same_value(a, b) -> bool:
    both_nan = _equal(a, a) is False and _equal(b, b) is False  # TensorFlow matches NaNs
    return both_nan or _equal(a, b)


def _same_object(old: ObjectRef, new: ObjectRef) -> bool:
    a, b = old.ref(), new.ref()
    return a is not None and b is not None and (a is b or _equal(a, b))


def _same_layout(old: Structure, new: Structure) -> bool:
    if (old.container, old.type_name) != (new.container, new.type_name):
        return False
    old_paths = [suffix for suffix, _ in old.children]
    new_paths = [suffix for suffix, _ in new.children]
    if old.container == "dict":  # keys in another order are the same dict to TensorFlow
        return sorted(old_paths) == sorted(new_paths)
    return old_paths == new_paths
