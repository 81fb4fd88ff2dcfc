"""The shared graph's two speed goals, read off a ``serving_architectures`` result.

- **The floor**: a call of the shared graph takes no longer than the model's own concrete
  function (its graph without ``tf.function``'s dispatch): the upper end of the 95%
  interval of shared time / concrete time is at most ``FLOOR_LIMIT``.
- **Dispatch saved**: where the dedicated ``tf.function``'s dispatch is at least
  ``DISPATCH_SHARE`` of its call, the shared graph takes at most ``DISPATCH_GOAL`` of it
  (upper end of the interval).

A miss is shown with its price: why the shared graph does more work there, from
``PRICES``; a miss with no known reason says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FLOOR_LIMIT = 1.03
DISPATCH_SHARE = 0.15
DISPATCH_GOAL = 0.85

# Why the shared graph costs more than a model's own concrete function, by the start of
# the architecture's title in the serving corpus (benchmarks/architectures.py).
PRICES = {
    "Embedding with mask_zero, bidirectional": (
        "its shared graph leaves the sequence length free, as the model's `Input` does, so "
        "one graph serves every length; the dedicated function is traced for the exact "
        "length, and traces again for each new one"
    ),
    "Named numeric features, Normalization": (
        "on every call the graph recomputes the adapted statistics from the variables and "
        "compares them with the ones Keras holds, which is how a stale `Normalization` is "
        "found and named (`StaleKerasStateWarning`)"
    ),
}


def _inverse(row: Mapping[str, Any], prefix: str) -> tuple[float, float, float]:
    """Shared time as a fraction of the other's: the inverse of a recorded speedup, with
    its interval's ends swapped."""
    return (
        1 / row[f"{prefix}speedup_median"],
        1 / row[f"{prefix}speedup_ci_high"],
        1 / row[f"{prefix}speedup_ci_low"],
    )


def dispatch_share(row: Mapping[str, Any]) -> float:
    """The part of a dedicated call that is not its graph: tf.function's dispatch."""
    return (row["dedicated_us"] - row["graph_us"]) / row["dedicated_us"]


def goal_rows(result: Mapping[str, Any]) -> list[dict]:
    """Per architecture and batch: both ratios, whether each goal holds (None where the
    dispatch goal does not apply), and the price of a miss."""
    found = []
    for row in result["extra"]["architectures"]:
        floor = _inverse(row, "graph_")
        dispatch = _inverse(row, "")
        share = dispatch_share(row)
        applies = share >= DISPATCH_SHARE
        price = next(
            (why for start, why in PRICES.items() if row["architecture"].startswith(start)), None
        )
        found.append(
            {
                "architecture": row["architecture"],
                "batch": row["batch"],
                "floor": floor,
                "floor_met": floor[2] <= FLOOR_LIMIT,
                "dispatch_share": share,
                "dispatch": dispatch,
                "dispatch_met": dispatch[2] <= DISPATCH_GOAL if applies else None,
                "price": price,
            }
        )
    return found
