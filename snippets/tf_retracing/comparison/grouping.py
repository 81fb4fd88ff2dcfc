"""Several retraces of one cause, summed up: the advice a report quotes for them, and the
value at an argument's path in each trace."""

from __future__ import annotations

from collections.abc import Sequence

# Relative imports: its tests load it without the package (whose __init__ imports TF).
from ..explainer_types import RetraceReason
from ..trace_description import (
    Node,
    PythonValue,
    Structure,
    TensorLeaf,
    TraceDescription,
)
from .advice import PLAIN, Fixes
from .describing import MAX_VALUES_SEEN, describe, shape_text


def group_message(
    reasons: Sequence[RetraceReason],
    seen: Sequence[tuple[Node, Node] | None],
    fixes: Fixes = PLAIN,
) -> str:
    """What a report quotes for ``reasons``, retraces with one cause on one argument:
    advice that covers all of them, not only the latest. ``seen[i]`` is the argument as
    called and as traced in trace i + 1 of the function (None where it had none);
    ``fixes``: what the function's parameters allow (``Fixes.of`` its traces)."""
    latest = reasons[-1]
    numbers = sorted(reason.trace for reason in reasons)
    one_function = len(set(numbers)) == len(numbers) and numbers[-1] <= len(seen)
    counted = f" (traces {_number_list(numbers)})" if one_function else ""
    if latest.kind == "shape" and latest.subkind == "dimension" and one_function:
        covering = _covering_shape_advice(latest.argument, seen, seen[latest.trace - 1], fixes)
        if covering is not None:
            return (
                f"`{latest.function}` traced again {len(reasons)} times for this "
                f"argument{counted}: {covering} [{latest.cause}] {latest.url}"
            )
    if latest.kind == "python-value" and latest.subkind == "value":
        calls = [pair[0] for pair in seen if pair is not None]
        values = _distinct(describe(c) for c in calls if isinstance(c, PythonValue))
        if len(values) > 2:
            shown = values[:MAX_VALUES_SEEN]
            more = len(values) - len(shown)
            listed = ", ".join(shown) + (f" and {more} more" if more else "")
            return f"values seen: {listed}{counted}. {latest.message}"
    return _refused_since(latest, fixes)


def _refused_since(latest: RetraceReason, fixes: Fixes) -> str:
    """The latest message, with a note where it offers an input_signature that calls made
    after it rule out (they passed arguments through ``*args`` or ``**kwargs``)."""
    if not fixes.passes or " in input_signature" not in latest.message:
        return latest.message
    passed = ", ".join(f"`{name}`" for name in fixes.passes[:5])
    note = (
        f" Later calls passed keyword arguments through {fixes.variadic[-1]} ({passed}), "
        "which an input_signature refuses: pad or bucket inputs to a few sizes instead."
    )
    link = f" [{latest.cause}] {latest.url}"
    return latest.message.removesuffix(link) + note + link


def _covering_shape_advice(
    path: str,
    seen: Sequence[tuple[Node, Node] | None],
    latest: tuple[Node, Node] | None,
    fixes: Fixes = PLAIN,
) -> str | None:
    """The shape advice with every dimension that varied across the traces None, or None
    when one spec cannot be given (a composite value, whose shapes the data sets, or
    reduce_retracing, which already generalised them). Only values of the latest one's
    kind, dtype and rank count: a dtype change of the same argument has its own line."""
    if latest is None or not isinstance(latest[0], TensorLeaf) or latest[0].shape is None:
        return None
    like = (latest[0].kind, latest[0].dtype, len(latest[0].shape))
    pairs = [
        pair
        for pair in seen
        if pair is not None
        and isinstance(pair[0], TensorLeaf)
        and pair[0].shape is not None
        and (pair[0].kind, pair[0].dtype, len(pair[0].shape)) == like
    ]
    if any(call != traced for call, traced in pairs):
        return None  # reduce_retracing traced a general shape: its own advice stands
    tensors = [call for call, _ in pairs]
    columns = list(zip(*(t.shape for t in tensors), strict=True))
    varying = [i for i, sizes in enumerate(columns) if len(set(sizes)) > 1]
    shapes = _distinct(shape_text(t.shape) for t in tensors)
    if len(shapes) < 3 or not varying:
        return None  # one change: the latest message says it all
    relaxed = [None if i in varying else sizes[0] for i, sizes in enumerate(columns)]
    dimensions = "dimension" + ("s " if len(varying) > 1 else " ")
    declare = fixes.declare_none(path, latest[0], relaxed)
    fix = (
        f"If those sizes vary by design, declare them None: {declare}; otherwise pad or "
        "bucket inputs to a few sizes."
        if declare
        else "Pad or bucket inputs to a few sizes: one trace each."
    )
    return (
        f"argument `{path}` took {len(shapes)} shapes ({', '.join(shapes)}): "
        f"{dimensions}{_number_list(varying, 'and')} varied. {fix}{fixes.variadic_note()}"
    )


def node_at(description: TraceDescription, path: str) -> tuple[Node, Node] | None:
    """The value at ``path`` (``x``, ``batch['ids']``, ``xs[2]``) as called and as traced,
    or None where this trace has nothing there or it lies inside a composite value."""
    for name in description.call:
        if path == name or (path.startswith(name) and path[len(name)] in "[."):
            call = _child_at(description.call[name], path[len(name) :])
            traced = _child_at(description.traced.get(name), path[len(name) :])
            return None if call is None else (call, traced if traced is not None else call)
    return None


def _child_at(node: Node | None, rest: str) -> Node | None:
    """The node ``rest`` (``['ids'][0]``) leads to below ``node``; not into composites."""
    while rest and isinstance(node, Structure) and node.container != "composite":
        # The longest suffix that fits: `.ab` is not field `.a` followed by `b`.
        suffix, node = max(
            ((suffix, child) for suffix, child in node.children if rest.startswith(suffix)),
            key=lambda pair: len(pair[0]),
            default=("", None),
        )
        rest = rest[len(suffix) :]
    return None if rest else node


def _distinct(texts) -> list[str]:
    return list(dict.fromkeys(texts))


def _number_list(numbers: Sequence[int], last: str = "") -> str:
    """2, 3, 4 -> "2-4"; 2, 5 -> "2, 5" (or "2 and 5" with ``last="and"``)."""
    if last:
        words = [str(n) for n in numbers]
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"
    if len(numbers) > 2 and list(numbers) == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))
