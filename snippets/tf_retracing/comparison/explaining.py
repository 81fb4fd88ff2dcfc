"""Explain a retrace: compare the call with the earlier traces, find every difference
(argument by argument, then the calling context), and write the reason."""

from __future__ import annotations

from collections.abc import Callable, Sequence

# Relative imports: its tests load it without the package (whose __init__ imports TF).
from ..explainer_types import REPORT_URL, RetraceReason
from ..trace_description import (
    VARIABLE,
    Node,
    ObjectRef,
    PythonValue,
    Structure,
    TensorLeaf,
    TraceDescription,
)
from .advice import (
    PLAIN,
    Change,
    Fixes,
    _dtype_change,
    _kind_of_value_change,
    _new_argument,
    _object_change,
    _python_value_change,
    _shape_change,
    _structure_change,
)
from .context import _context_change
from .describing import _spec_text, describe
from .matching import _same_layout, _shape_accepts, accepts

NO_VISIBLE_CHANGE = (
    "no argument or call context differs from an earlier trace in what the explainer can "
    f"see, so the cause is unknown. Please report it at {REPORT_URL}."
)


def explain(
    function: str,
    number: int,
    history: Sequence[TraceDescription],
    new: TraceDescription,
    compare: Callable[[TraceDescription, TraceDescription], list[Change]] | None = None,
    seen_before: bool | None = None,
) -> RetraceReason:
    """Why trace ``number`` of ``function`` happened: ``new`` against the closest earlier
    trace in ``history`` (the one with fewest differences; ties go to the most recent).
    ``seen_before``: whether ``history`` holds a trace equal to ``new``, if the caller
    keeps an index that tells (else it is looked up in ``history``)."""
    compare = compare or changes
    if new.context.saving:  # every trace tf.saved_model.save makes is one of its own
        return _save_time_reason(function, number, new)
    # An earlier trace equal in all but what is not compared (spec names) may lie further
    # back than one that differs in one place: look for it first, by equality (cheap).
    if seen_before is None:
        seen_before = _seen_before(new, history)
    closest: list[Change] | None = [] if seen_before else None
    for earlier in reversed(history if closest is None else ()):
        found = compare(earlier, new)
        if closest is None or distance(found) < distance(closest):
            closest = found
        if distance(closest) <= 1:  # a retrace differs somewhere: none can be closer
            break
    if not closest:  # nothing differs but names, or nothing the explainer sees
        closest = _spec_name_changes(history, new) or [
            Change(None, "unknown", "", "", NO_VISIBLE_CHANGE, "no-visible-change")
        ]
    first, *others = closest
    message = f"`{function}` traced again (trace {number}): {first.advice}"
    if others:
        message += f" Also different from that trace: {'; '.join(map(short, others))}."
    return RetraceReason(
        function=function,
        trace=number,
        argument=first.argument,
        kind=first.kind,
        before=first.before,
        after=first.after,
        message=message,
        others=tuple(map(short, others)),
        subkind=first.subkind,
    )


def distance(found: list[Change]) -> int:
    """How far a call is from an earlier trace: its changes, a container's counted by the
    items that no longer match (see Change.weight)."""
    return sum(change.weight for change in found)


def _seen_before(new: TraceDescription, history: Sequence[TraceDescription]) -> bool:
    """Whether an earlier trace equals ``new`` in everything the comparison looks at."""
    try:
        return new in history
    except (TypeError, ValueError):  # a value without a plain ==: compare one by one
        return False


def _save_time_reason(function: str, number: int, new: TraceDescription) -> RetraceReason:
    signature = ", ".join(f"{name}: {describe(node)}" for name, node in new.call.items())
    message = (
        f"`{function}` traced again (trace {number}): traced by tf.saved_model.save for one "
        f"of its concrete functions ({signature or 'no arguments'}). Saving traces every "
        "concrete function of a tf.function once more under its save options, exported as a "
        "signature or not; a later save with the same options traces only the concrete "
        "functions not saved before. Nothing to fix, and later calls keep using their own "
        "traces."
    )
    return RetraceReason(
        function=function,
        trace=number,
        argument=None,
        kind="context",
        before="in a normal call",
        after="while saving (tf.saved_model.save)",
        message=message,
        subkind="saving",
    )


def short(change: Change) -> str:
    return f"`{change.argument or '(context)'}` {change.kind} {change.before} -> {change.after}"


def changes(earlier: TraceDescription, new: TraceDescription) -> list[Change]:
    """Every difference between ``new`` (the call) and ``earlier`` (what it traced)."""
    found = []
    fixes = Fixes.of(new, earlier)
    for name, call in new.call.items():
        if name not in earlier.traced:
            found.append(_new_argument(name, None, call, fixes))
        else:
            general = new.traced.get(name, call)
            found.extend(_diff(name, earlier.traced[name], call, general, fixes=fixes))
    for name, old in earlier.traced.items():
        if name not in new.call:
            found.append(_new_argument(name, old, None, fixes))
    if earlier.context != new.context:
        found.append(_context_change(earlier.context, new.context))
    return found


def _spec_name_changes(history: Sequence[TraceDescription], new: TraceDescription) -> list:
    """Differences in spec names alone, against the most recent trace that has some.

    Names are left out of the comparison (``tf.saved_model.save`` names its specs after
    the arguments, and that is never the cause); but two specs given different names by
    the caller, e.g. to get_concrete_function, are traced apart.
    """
    for earlier in reversed(history):
        found = []
        for name, call in new.call.items():
            if name in earlier.traced:
                found.extend(_name_diff(name, earlier.traced[name], call))
        if found:
            return found
    return []


def _name_diff(path: str, old: Node, new: Node) -> list[Change]:
    if isinstance(old, TensorLeaf) and isinstance(new, TensorLeaf):
        if new.name is None or old.name == new.name or not accepts(old, new):
            return []
        before, after = repr(old.name), repr(new.name)
        advice = (
            f"argument `{path}` is a spec named {after}; the closest earlier trace was made "
            f"for one named {before}, and TensorFlow keeps a trace per spec name. Give the "
            "specs one name, or none."
        )
        return [Change(path, "structure", before, after, advice, "spec-name")]
    if isinstance(old, Structure) and isinstance(new, Structure) and _same_layout(old, new):
        new_children = dict(new.children)
        return [
            change
            for suffix, child in old.children
            for change in _name_diff(path + suffix, child, new_children[suffix])
        ]
    return []


# What a difference is --------------------------------------------------------------


def _diff(
    path: str,
    old: Node,
    new: Node,
    general: Node,
    inside: str | None = None,
    fixes: Fixes = PLAIN,
) -> list[Change]:
    """The changes from ``old`` to ``new`` at ``path``; ``inside`` names the composite
    value (a distributed value, an iterator) the path is in, whose shapes the data sets."""
    if accepts(old, new):
        return []
    if isinstance(old, Structure) or isinstance(new, Structure):
        if not (
            isinstance(old, Structure) and isinstance(new, Structure) and _same_layout(old, new)
        ):
            return [_container_change(path, old, new, fixes)]
        new_children = dict(new.children)
        general_children = dict(general.children) if isinstance(general, Structure) else {}
        if old.container == "composite":
            inside = inside or old.type_name
        found = []
        for suffix, old_child in old.children:
            new_child = new_children[suffix]
            general_child = general_children.get(suffix, new_child)
            found.extend(_diff(path + suffix, old_child, new_child, general_child, inside, fixes))
        return found
    return [_leaf_change(path, old, new, general, inside, fixes)]


def _container_change(path: str, old: Node, new: Node, fixes: Fixes) -> Change:
    """A container whose type, length or keys changed (or a value that became one)."""
    items = list(_leaves(new))
    objects = tuple(describe(item) for item in items if isinstance(item, ObjectRef))
    variables = any(isinstance(i, TensorLeaf) and i.kind == VARIABLE for i in items)
    return _structure_change(
        path,
        describe(old),
        describe(new),
        weight=_apart(old, new),
        objects=tuple(dict.fromkeys(objects)),
        holds_variables=variables,
        fixes=fixes,
    )


def _leaves(node: Node):
    """The values a container holds, at any depth (the node itself if it is none)."""
    if isinstance(node, Structure) and node.container != "composite":
        for _, child in node.children:
            yield from _leaves(child)
    else:
        yield node


def _apart(old: Node, new: Node) -> int:
    """How many items differ between two values: those present in one alone, and those
    at the same place that the earlier trace does not accept; at least one."""
    if not (isinstance(old, Structure) and isinstance(new, Structure)):
        return max(1, len(list(_leaves(new))), len(list(_leaves(old))))
    olds, news = dict(old.children), dict(new.children)
    count = 0
    for suffix in dict.fromkeys([*olds, *news]):
        if suffix not in olds or suffix not in news:
            count += len(list(_leaves(olds.get(suffix) or news[suffix])))
        elif not accepts(olds[suffix], news[suffix]):
            count += _apart(olds[suffix], news[suffix])
    return max(1, count)


def _leaf_change(
    path: str,
    old: Node,
    new: Node,
    general: Node,
    inside: str | None = None,
    fixes: Fixes = PLAIN,
) -> Change:
    before, after = describe(old), describe(new)
    if isinstance(old, PythonValue) or isinstance(new, PythonValue):
        return _python_value_change(path, old, new, before, after)
    if isinstance(old, TensorLeaf) and isinstance(new, TensorLeaf) and old.kind == new.kind:
        if old.dtype != new.dtype:
            return _dtype_change(path, old, new)
        if not _shape_accepts(old.shape, new.shape):
            return _shape_change(path, old, new, general, inside, fixes)
        return _kind_of_value_change(path, _spec_text(old), _spec_text(new))
    if isinstance(old, ObjectRef) and isinstance(new, ObjectRef):
        return _object_change(path, before, after)
    return _kind_of_value_change(path, before, after)
