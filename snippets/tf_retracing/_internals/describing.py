"""A trace described without TensorFlow: TensorFlow's trace types become the plain
dataclasses of ``tf_retracing.trace_description``."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import re
import types
from typing import Any

import numpy as np
import tensorflow as tf

from tf_retracing import trace_description as td

from .number_dtype import (
    _made_from,
    _same_number,
    dtype_to_pass,
)

# Defined only where TensorFlow has them (EXPLAINER_ERROR is None).
with contextlib.suppress(ImportError):
    from .tensorflow_modules import SCOPE_TYPES, default_types


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
    variadic, through = _variadic(tracing["polymorphic_type"], call)
    return td.TraceDescription(
        call, traced, describe_context(tracing["context"]), variadic, through
    )


def _variadic(function_type, call: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The function's ``*args`` and ``**kwargs`` as written, and the names in ``call``
    that came through ``**kwargs`` (neither a named parameter nor ``args[i]``), which an
    input_signature refuses; those through ``*args`` it takes, as far as it lists them."""
    written, named, positional = [], set(), None
    for parameter in function_type.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            written.append(f"*{parameter.name}")
            positional = parameter.name
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            written.append(f"**{parameter.name}")
        else:
            named.add(parameter.name)
    if not written:
        return (), ()
    through = [
        name
        for name in call
        if name not in named and not (positional and name.startswith(f"{positional}["))
    ]
    return tuple(written), tuple(through)


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
