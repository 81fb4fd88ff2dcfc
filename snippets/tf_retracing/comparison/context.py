"""The calling context: a retrace with the same arguments, from variable creation, another
graph, saving, a device or another field of the context."""

from __future__ import annotations

# Relative imports: its tests load it without the package (whose __init__ imports TF).
from ..trace_description import (
    DEVICE_FIELD,
    NO_VARIABLE_CREATION,
    VARIABLE_CREATION,
    CallContext,
)
from .advice import Change
from .matching import _equal

SCOPE_TEXTS = {
    VARIABLE_CREATION: "its first call (creating variables)",
    NO_VARIABLE_CREATION: "a later call (no new variables)",
}


def _context_change(old: CallContext, new: CallContext) -> Change:
    if old.scope != new.scope:
        before, after = SCOPE_TEXTS.get(old.scope, old.scope), SCOPE_TEXTS.get(new.scope, new.scope)
        advice = (
            "the same arguments, but the first trace created tf.Variables, so TensorFlow "
            "traced once more with variable creation turned off. This happens once per "
            "function that creates variables; create them outside the function to avoid it."
        )
        return Change(None, "context", before, after, advice, "variable-creation")
    if old.graph is not new.graph:
        before, after = _graph_texts(old.graph, new.graph)
        advice = (
            f"the same arguments, but called {after} instead of {before}. Each calling "
            "context has its own traces; call the function from one context."
        )
        return Change(None, "context", before, after, advice, "graph")
    if old.saving != new.saving:
        return _saving_change(old.saving)
    if _changed_fields(old, new) == [DEVICE_FIELD]:
        return _device_change(dict(old.fields)[DEVICE_FIELD], dict(new.fields)[DEVICE_FIELD])
    before, after = _field_texts(old, new)
    advice = (
        f"the same arguments, but called {after} instead of {before}. Each calling context "
        "has its own traces; call the function from one context."
    )
    return Change(None, "context", before, after, advice, "other")


def _device_change(old_devices: tuple, new_devices: tuple) -> Change:
    before = ", ".join(old_devices) or "no device scope"
    after = ", ".join(new_devices) or "no device scope"
    advice = (
        f"the same arguments, but called on device {after} instead of {before}. TensorFlow "
        "keys a trace on the device only under a tf.distribute strategy that traces for "
        "each device, such as MirroredStrategy over several devices (a function traces once "
        "per replica: expected, and nothing to fix; in the strategy's scope, each tf.device "
        "scope traces too), or in a TF1-style graph under a device function (a callable "
        "given to tf.Graph.device). A tf.device scope outside a strategy never retraces. "
        "In a TF1-style graph, give tf.Graph.device a device string instead of a function."
    )
    return Change(None, "context", before, after, advice, "device")


def _graph_texts(old, new) -> tuple[str, str]:
    # Inside a tf.function TensorFlow lifts the context to the eager one: same traces.
    eager = "eagerly (or from a tf.function)"
    if old is not None and new is not None:
        return "in one tf.Graph (graph mode)", "in another tf.Graph (graph mode)"
    graph = "in a tf.Graph (graph mode)"
    return (eager, graph) if old is None else (graph, eager)


def _saving_change(saved_before: bool) -> Change:
    saving, calling = "while saving (tf.saved_model.save)", "in a normal call"
    if saved_before:
        advice = (
            "the same arguments, but the closest earlier trace was made by "
            "tf.saved_model.save, which traces under its own save options; a normal call "
            "needs its own trace, once."
        )
        return Change(None, "context", saving, calling, advice, "saving")
    advice = (
        "the same arguments, but called by tf.saved_model.save, which traces every "
        "concrete function once more under its save options; a later save with the same "
        "options does not trace it again, and later calls keep using their own traces."
    )
    return Change(None, "context", calling, saving, advice, "saving")


def _changed_fields(old: CallContext, new: CallContext) -> list[str]:
    old_fields, new_fields = dict(old.fields), dict(new.fields)
    return [
        n for n in {**old_fields, **new_fields} if not _equal(old_fields.get(n), new_fields.get(n))
    ]


def _field_texts(old: CallContext, new: CallContext) -> tuple[str, str]:
    old_fields, new_fields = dict(old.fields), dict(new.fields)
    names = _changed_fields(old, new)
    return (
        ", ".join(f"{name}={old_fields.get(name)!r}" for name in names),
        ", ".join(f"{name}={new_fields.get(name)!r}" for name in names),
    )
