"""What the retrace explainer reports, free of TensorFlow: reasons, causes and the budget error."""

from __future__ import annotations

import dataclasses
import re

from tf_retracing._site import SITE_URL

# The explainer module's tools, which the package re-exports lazily (importing TensorFlow
# on first use); kept here, below both, so neither imports the other for the list.
EXPLAINER_NAMES = (
    "WatchedFunction",
    "explain_retracing",
    "guard_retracing",
    "report",
    "report_data",
    "tracing_budget",
    "watch_every_tf_function",
)

KINDS = (
    "shape",
    "dtype",
    "python-value",
    "object",
    "structure",
    "new-argument",
    "context",
    "unknown",
)
# Of report_data() and the explain command's JSON; raise it when a field changes meaning.
REPORT_SCHEMA_VERSION = 1
REPORT_URL = "https://github.com/tf-retracing-guide/tf-retracing-guide/issues"
# The hosted guide (mkdocs.yml's site_url; a test keeps the two equal) and the page whose
# sections, one per cause identifier, explain each cause and its fixes.
GUIDE_URL = SITE_URL
CAUSES_PAGE = "guide/diagnosing/"


@dataclasses.dataclass(frozen=True)
class Cause:
    """One cause of retracing with a stable identifier and its section of the guide.

    ``changed`` and ``fix`` are the cause's row in the guide's table of causes (Markdown),
    which the site renders from this registry.
    """

    code: str  # never reused or renumbered: logs and issue reports quote it
    kind: str  # one of KINDS
    title: str  # what happened, as the guide's section heading says it
    changed: str  # what differs from the earlier trace
    fix: str  # the usual fix

    @property
    def url(self) -> str:
        return f"{GUIDE_URL}{CAUSES_PAGE}#{self.code.lower()}"


# Append new causes at the end with the next number; never renumber.
CAUSES = (
    Cause(
        "TFR001",
        "shape",
        "a tensor's shape changed",
        changed="a tensor's shape (the message names the dimension)",
        fix="a `None` dimension in `input_signature`, `reduce_retracing=True`, or padding "
        "to a few sizes",
    ),
    Cause(
        "TFR002",
        "dtype",
        "a tensor's dtype changed",
        changed="a tensor's dtype",
        fix="cast to one dtype before the call",
    ),
    Cause(
        "TFR003",
        "python-value",
        "a Python value changed",
        changed="a Python number, string or flag, or a switch between a Python value and a tensor",
        fix="pass a tensor if the value varies",
    ),
    Cause(
        "TFR004",
        "object",
        "a different Python object",
        changed="a different Python object as an argument",
        fix="reuse the object, or pass its values as tensors",
    ),
    Cause(
        "TFR005",
        "object",
        "a method called on a new instance",
        changed="`self`: a method called on a new instance",
        fix="create the object once",
    ),
    Cause(
        "TFR006",
        "object",
        "a new tf.function for the same code",
        changed="no argument: a new `tf.function` object for the same code",
        fix="create the `tf.function` once",
    ),
    Cause(
        "TFR007",
        "structure",
        "a container or the kind of value changed",
        changed="a container's type, length or keys, or the kind of value (a tensor became "
        "a variable)",
        fix="keep the structure fixed, or pass one tensor",
    ),
    Cause(
        "TFR008",
        "new-argument",
        "an argument passed or left out",
        changed="an argument passed now and not before, or the reverse (`*args`, `**kwargs`)",
        fix="pass the same arguments every call",
    ),
    Cause(
        "TFR009",
        "context",
        "the calling context changed",
        changed="nothing in the arguments: the calling context (first call creating "
        "variables, graph mode)",
        fix="usually once and expected",
    ),
    Cause(
        "TFR010",
        "unknown",
        "the cause could not be determined",
        changed="the explainer could not tell",
        fix="report it",
    ),
    Cause(
        "TFR011",
        "structure",
        "a spec's name changed",
        changed="only a spec's name (what `tf.saved_model.save` asks for, say)",
        fix="name specs alike, or not at all",
    ),
    Cause(
        "TFR012",
        "context",
        "traced while saving a SavedModel",
        changed="a trace made while saving a SavedModel",
        fix="expected: one per concrete function, exported or not, at its first save "
        "under each variable policy",
    ),
    Cause(
        "TFR013",
        "context",
        "another device or replica",
        changed="the device, under a strategy that traces per device (a replica) or a TF1 "
        "device function; never a plain `tf.device` scope",
        fix="expected per replica; in a TF1 graph, a device string instead of a function",
    ),
)
_BY_CODE = {cause.code: cause for cause in CAUSES}
# Changes within a kind that have their own cause (and guide section).
_BY_SUBKIND = {"spec-name": "TFR011", "saving": "TFR012", "device": "TFR013"}


def cause_of(kind: str, argument: str | None, subkind: str | None = None) -> Cause:
    """The cause of a retrace of ``kind`` on ``argument`` (an object change has three;
    a spec name, saving and a device have their own)."""
    if subkind in _BY_SUBKIND:
        return _BY_CODE[_BY_SUBKIND[subkind]]
    if kind == "object":
        if argument is None:  # no argument changed: a new tf.function object traced
            return _BY_CODE["TFR006"]
        return _BY_CODE["TFR005"] if argument == "self" else _BY_CODE["TFR004"]
    for cause in CAUSES:
        if cause.kind == kind:
            return cause
    raise ValueError(f"unknown kind of retrace {kind!r}; the kinds are {', '.join(KINDS)}")


def retraces_sentence(
    count: int, kind: str, argument: str | None, subkind: str | None = None
) -> str:
    """How a report heads ``count`` retraces with one cause on one argument, as a
    sentence: ``3 retraces for argument `x`: a tensor's shape changed``, ``2 retraces: a
    new tf.function for the same code`` (the cause's title, as the guide heads it)."""
    retraces = "1 retrace" if count == 1 else f"{count} retraces"
    where = f" for argument `{argument}`" if argument else ""
    return f"{retraces}{where}: {cause_of(kind, argument, subkind).title}"


# --8<-- [start:reason]
@dataclasses.dataclass(frozen=True)
class RetraceReason:
    """Why one trace happened, compared with the closest earlier trace.

    ``message`` always ends with the cause's identifier and the link to the guide's
    section on it, e.g. ``[TFR001] https://.../guide/diagnosing/#tfr001``.
    """

    function: str  # the watched function's name
    trace: int  # which trace of the function this was: 2 is the first retrace
    argument: str | None  # e.g. 'x', 'batch["ids"]', 'xs[2]'; None: no argument changed
    kind: str  # one of KINDS
    before: str
    after: str
    message: str  # a sentence to act on: function, argument, change and fix
    others: tuple[str, ...] = ()  # further differences from the same earlier trace
    count: int | None = None  # tf.function objects made for this code (kind "object")
    trace_ms: float | None = None  # what this trace took, from its Python body to its graph
    subkind: str | None = None  # what exactly changed within the kind ("value", "rank"...)

    def __post_init__(self):
        from tf_retracing.explainer_types import printable  # escapes what would reach a terminal

        for name in ("function", "argument", "before", "after", "message"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, printable(value))
        link = f"[{self.cause}] {self.url}"
        if not self.message.endswith(link):  # dataclasses.replace runs this again
            object.__setattr__(self, "message", f"{self.message} {link}")

    @property
    def cause(self) -> str:
        """The cause's stable identifier, such as ``"TFR001"``."""
        return cause_of(self.kind, self.argument, self.subkind).code

    @property
    def url(self) -> str:
        """The guide's section on this cause and its fixes."""
        return cause_of(self.kind, self.argument, self.subkind).url

    def as_dict(self) -> dict:
        """The reason as plain, JSON-serialisable data (for logs and reports)."""
        data = dataclasses.asdict(self)
        data["others"] = list(self.others)
        return {**data, "cause": self.cause, "url": self.url}


# --8<-- [end:reason]


def unknown_reason(
    function: str, trace: int, message: str, subkind: str | None = None
) -> RetraceReason:
    """A trace whose cause cannot be given (kind "unknown"); ``message`` says why."""
    return RetraceReason(
        function=function,
        trace=trace,
        argument=None,
        kind="unknown",
        before="",
        after="",
        message=message,
        subkind=subkind,
    )


# Characters that must not reach a terminal, a log or a page as themselves: control codes
# (a terminal runs escape sequences), bidirectional overrides and isolates (they reverse the
# text after them) and lone surrogates (they cannot be encoded, so a page would be lost).
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def printable(text: str) -> str:
    """``text`` with each unsafe character written as its escape (``\\x1b``, ``\\u202e``),
    newlines and tabs kept."""
    return _UNPRINTABLE.sub(lambda match: match.group().encode("unicode_escape").decode(), text)


class RetracingBudgetExceeded(AssertionError):
    """A function traced more often inside a ``tracing_budget`` block than allowed."""


def innermost(python_function):
    """The user's function under decorators (``__wrapped__``) and method binding."""
    while hasattr(python_function, "__wrapped__"):
        python_function = python_function.__wrapped__
    return getattr(python_function, "__func__", python_function)


def display_name(python_function) -> str:
    """What reports call a watched function: its qualified name, or for a callable object
    such as a Keras model, its class's."""
    target = innermost(python_function)
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None)
    return name or type(target).__qualname__
