"""Descriptions for the reader: a short phrase for each value, shape, dtype and
container, cut to a bounded length."""

from __future__ import annotations

# Relative imports: its tests load it without the package (whose __init__ imports TF).
from ..trace_description import (
    DENSE,
    RAGGED,
    SPARSE,
    VARIABLE,
    Node,
    ObjectRef,
    OtherLeaf,
    PythonValue,
    Structure,
    TensorLeaf,
)

_KIND_NAMES = {
    DENSE: "tensor",
    VARIABLE: "Variable",
    RAGGED: "RaggedTensor",
    SPARSE: "SparseTensor",
}


# A report stays readable and bounded whatever the program passes: a value's text is cut
# (saying how long it was), and a list of values seen stops after a few.
MAX_VALUE_CHARS = 120
MAX_VALUES_SEEN = 10


def short_repr(value: object) -> str:
    """``repr(value)``, cut to about MAX_VALUE_CHARS characters with its full length."""
    text = repr(value)
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return f"{text[: MAX_VALUE_CHARS - 20]}... ({len(text):,} characters)"


def describe(node: Node) -> str:
    """A short phrase for a value: "a float32 tensor of shape (2, 3)", "0.5", "a list of 2"."""
    if isinstance(node, PythonValue):
        return short_repr(node.value)
    if isinstance(node, ObjectRef):
        return node.description
    if isinstance(node, OtherLeaf):
        return node.text
    if isinstance(node, Structure):
        return _structure_label(node)
    kind = _KIND_NAMES.get(node.kind, node.kind)
    return f"{article(node.dtype)} {node.dtype} {kind} of shape {shape_text(node.shape)}"


def _structure_label(node: Structure) -> str:
    suffixes = [suffix for suffix, _ in node.children]
    if node.container in ("list", "tuple"):
        return f"a {node.container} of {len(suffixes)}"
    if node.container == "dict":
        keys = ", ".join(suffix[1:-1] for suffix in suffixes)  # "['ids']" -> "'ids'"
        return f"a dict with keys {keys}" if suffixes else "an empty dict"
    if node.container == "composite":  # what it holds is in the children's paths
        return f"{article(node.type_name)} {node.type_name} value"
    fields = ", ".join(suffix.removeprefix(".") for suffix in suffixes)
    return f"{article(node.type_name)} {node.type_name}({fields})"


def _spec_text(node: TensorLeaf) -> str:
    """A tensor-like value with the fields that may differ besides shape and dtype."""
    extra = list(node.details)
    if node.ragged_rank is not None:
        extra.insert(0, ("ragged_rank", str(node.ragged_rank)))
    fields = ", ".join(f"{name}={value}" for name, value in extra)
    return f"{describe(node)}{f' ({fields})' if fields else ''}"


def shape_text(shape) -> str:
    return "(unknown rank)" if shape is None else str(tuple(shape))


def _rank(shape) -> str:
    return "unknown" if shape is None else str(len(shape))


def article(word: str) -> str:
    """'a' or 'an' before a dtype or type name ("an int32", "a uint8", "a float32")."""
    return "an" if word[:1].lower() in "aeio" else "a"
