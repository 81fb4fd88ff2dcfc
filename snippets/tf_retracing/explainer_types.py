"""What the retrace explainer reports, free of TensorFlow: reasons and the budget error."""

from __future__ import annotations

import dataclasses

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
REPORT_URL = "https://github.com/tf-retracing-guide/tf-retracing-guide/issues"


# --8<-- [start:reason]
@dataclasses.dataclass(frozen=True)
class RetraceReason:
    """Why one trace happened, compared with the closest earlier trace."""

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

    def as_dict(self) -> dict:
        """The reason as plain data (for logs and JSON)."""
        return dataclasses.asdict(self)


# --8<-- [end:reason]


class RetracingBudgetExceeded(AssertionError):
    """A function traced more often inside a ``tracing_budget`` block than allowed."""
