"""What a whole-program run found: the functions TensorFlow warned about that were not
watched, each Python function's traces summed up, and the report, as text and as data."""

from __future__ import annotations

import dataclasses
import weakref

from tf_retracing import comparison
from tf_retracing.explainer_types import (
    REPORT_SCHEMA_VERSION,
    RetraceReason,
    printable,
    retraces_sentence,
)
from tf_retracing.trace_description import TraceDescription

from .names import _first_user_frame, _location
from .watch import _SESSION_WATCHES, _STARTED, _WATCH_AGAIN


@dataclasses.dataclass
class UnwatchedRetracing:
    """A function TensorFlow warned about that the whole-program run did not watch."""

    function: str
    defined_at: str
    called_from: str | None  # the user's line that led to the calls, if outside TF
    warnings: int
    message: str  # TensorFlow's latest warning about it
    # What is known of how it was made, from the tf.function whose call TensorFlow counted:
    # "made-anew" (a new tf.function, on its first trace), "before" (one tf.function that
    # traced several times, not watched from its creation), "earlier" (watched by an
    # earlier watch, which has ended), or "unknown" (TensorFlow's frame could not be read).
    origin: str = "made-anew"
    traces: int | None = None  # that tf.function's traces when TensorFlow first warned
    # A weak reference to that tf.function, which later traces add to: the report says
    # its count then, where it is still alive.
    counted: object = dataclasses.field(default=None, repr=False, compare=False)
    started: str = _STARTED  # SessionWatches.started
    watch_again: str = _WATCH_AGAIN

    def advice(self) -> str:
        warned = (
            f"`{self.function}` ({self.defined_at}) retraced often enough for TensorFlow to warn"
        )
        reached = f"; your code reached it from {self.called_from}" if self.called_from else ""
        said = " TensorFlow said: " + self.message
        if self.origin == "made-anew":
            return (
                f"{warned}, but it was made without tf.function (by TensorFlow's own code, or "
                "through a name bound to tf.function before the run), so the explainer did "
                f"not watch it and cannot say why{reached}. A function made anew on each call "
                "of an eager line is the usual cause: run that line inside one tf.function of "
                "your own, made once, so that the inner function is built once while yours "
                "traces." + said
            )
        if self.origin == "before":
            made = (
                f"it is one tf.function ({self._traces_text()}) made before {self.started}, "
                "through a name bound to tf.function before then, or by TensorFlow's own code"
            )
        elif self.origin == "earlier":
            made = f"it was made under an earlier watch, which ended before {self.started}"
        else:
            made = "TensorFlow's call could not be read to tell which function it was"
        return (
            f"{warned}, but the explainer did not watch it: {made}. Its traces were not "
            f"seen, so the cause cannot be said{reached}. To see why it traces, "
            f"{self.watch_again}." + said
        )

    def _traces_text(self) -> str:
        function = self.counted() if self.counted is not None else None
        if function is None:  # gone: the count TensorFlow's first warning saw
            return f"{self.traces} traces when TensorFlow first warned"
        return f"{function.experimental_get_tracing_count()} traces"


def _hear_unwatched(key, message: str, function=None) -> None:
    if key is not None and any(watch.code is key for watch in _SESSION_WATCHES):
        return  # a watched function: its retraces are explained already
    known = _SESSION_WATCHES.unwatched.get(key or message)
    if known is not None:
        known.warnings += 1
        known.message = message.split(". ", 1)[0] + "."
        return
    code = key if hasattr(key, "co_filename") else None
    origin, traces = _origin(function)
    _SESSION_WATCHES.unwatched[key or message] = UnwatchedRetracing(
        function=getattr(code, "co_qualname", None) or getattr(code, "co_name", "?"),
        defined_at=_location(code.co_filename, code.co_firstlineno) if code else "?",
        called_from=_first_user_frame(),
        warnings=1,
        message=message.split(". ", 1)[0] + ".",  # the count, not TensorFlow's advice
        origin=origin,
        traces=traces,
        counted=_weak(function),
        started=_SESSION_WATCHES.started,
        watch_again=_SESSION_WATCHES.watch_again,
    )


def _weak(function):
    try:
        return weakref.ref(function) if function is not None else None
    except TypeError:  # cannot be weakly referenced: the first count stands
        return None


def _origin(function) -> tuple[str, int | None]:
    """How an unwatched function that TensorFlow warned about was made, as far as the
    tf.function it counted shows (see UnwatchedRetracing.origin)."""
    if function is None:
        return "unknown", None
    if getattr(function, "_watch", None) is not None:  # watched, but not by this session
        return "earlier", function.experimental_get_tracing_count()
    traces = function.experimental_get_tracing_count()
    # Its first trace: a tf.function made anew for this call. More: one that lived on.
    return ("made-anew" if traces <= 1 else "before"), traces


@dataclasses.dataclass
class FunctionSummary:
    """One Python function of a whole-program run: every tf.function made for its code."""

    function: str
    defined_at: str
    tf_functions: int
    traces: int
    trace_ms: float  # all its traces: the first ones and the retraces
    retrace_ms: float  # the retraces alone: the time a fix saves
    reasons: list[RetraceReason]
    # What each trace was made for, in order (not part of report_data)
    descriptions: list[TraceDescription] = dataclasses.field(default_factory=list, repr=False)


def summarise(watches: list) -> list[FunctionSummary]:
    """Watches grouped by Python code, the costliest retracing first."""
    groups: dict = {}
    for watch in watches:
        groups.setdefault(watch.group, []).append(watch)
    summaries = []
    for group in groups.values():
        traces = [trace for watch in group for trace in watch.traces]
        reasons = [reason for watch in group for reason in watch.reasons]
        summaries.append(
            FunctionSummary(
                function=group[0].name,
                defined_at=group[0].where,
                tf_functions=len(group),
                traces=len(traces),
                trace_ms=sum(trace.ms or 0.0 for trace in traces),
                retrace_ms=sum(reason.trace_ms or 0.0 for reason in reasons),
                reasons=reasons,
                descriptions=[t.description for t in traces if t.description is not None],
            )
        )
    summaries.sort(key=lambda s: (-s.retrace_ms, -len(s.reasons), -s.trace_ms, s.function))
    return summaries


def report_data(watches: list) -> dict:
    """The report as plain, versioned, JSON-serialisable data: a dict with
    ``schema_version`` and one entry per function with its traces and reasons."""
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "functions": [
            {
                **{
                    field.name: getattr(s, field.name)
                    for field in dataclasses.fields(s)
                    if field.name not in ("reasons", "descriptions")
                },
                "retraces": len(s.reasons),
                "reasons": [reason.as_dict() for reason in s.reasons],
            }
            for s in summarise(watches)
        ],
        "unwatched": [
            {
                key: printable(value) if isinstance(value, str) else value
                for key, value in {
                    **dataclasses.asdict(unwatched),
                    "advice": unwatched.advice(),
                }.items()
                if key not in ("started", "watch_again")  # said in the advice
            }
            for unwatched in getattr(watches, "unwatched", {}).values()
        ],
    }


def report(watches: list) -> str:
    """A table of watched functions, grouped by Python code, the costliest retracing first:
    tf.function objects, traces, retraces, their time, and why they traced again."""
    rows = summarise(watches)
    lines = _summary_table(rows) if rows else []
    for summary in rows:
        if not summary.reasons:
            continue
        lines.append("")
        lines.append(f"{summary.function}: why it traced again")
        for (kind, argument, subkind), same in _by_cause(summary.reasons).items():
            seen = _seen_at(summary.descriptions, argument)
            fixes = comparison.Fixes.of(*summary.descriptions)
            advice = comparison.group_message(same, seen, fixes)
            heading = retraces_sentence(len(same), kind, argument, subkind)
            lines.append(f"  {heading}. {advice[:1].upper()}{advice[1:]}")
    unwatched = list(getattr(watches, "unwatched", {}).values())
    if unwatched:
        lines += ["", "TensorFlow warned about functions the explainer did not watch:"]
        lines += [f"  {item.advice()}" for item in unwatched]
    return printable("\n".join(lines).lstrip("\n"))


def _summary_table(rows: list[FunctionSummary]) -> list[str]:
    header = ("function", "defined at", "tf.functions", "traces", "retraces", "trace ms")
    header += ("retrace ms",)
    table = [header] + [
        (
            s.function,
            s.defined_at,
            str(s.tf_functions),
            str(s.traces),
            str(len(s.reasons)),
            f"{s.trace_ms:.1f}",
            f"{s.retrace_ms:.1f}",
        )
        for s in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]


def _by_cause(reasons: list[RetraceReason]) -> dict:
    """Reasons grouped by what changed where, in the order each first happened; distinct
    changes of one argument stay apart (Python values, then a tensor)."""
    groups: dict = {}
    for reason in reasons:
        groups.setdefault((reason.kind, reason.argument, reason.subkind), []).append(reason)
    return groups


def _seen_at(descriptions: list[TraceDescription], argument: str | None) -> list:
    """The argument as called and as traced in each trace (None where it had none)."""
    if argument is None:
        return []
    return [comparison.node_at(description, argument) for description in descriptions]
