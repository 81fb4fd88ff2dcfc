"""Finding a variant or a ratio in one scenario's result (a ``scenarios.NAME`` entry).

Validation (``benchmarks.schema``) guarantees that what the renderer and the claims look
up exists: one variant per name, a cold and a steady ratio per non-baseline variant, and
exactly one headline ratio.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def find_variant(result: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for variant in result["variants"]:
        if variant["name"] == name:
            return variant
    raise KeyError(f"no variant {name!r}")


def find_ratio(result: Mapping[str, Any], variant: str, which: str) -> Mapping[str, Any]:
    for ratio in result["ratios"]:
        if ratio["variant"] == variant and ratio["pass"] == which:
            return ratio
    raise KeyError(f"no {which} ratio for {variant!r}")


def headline_ratio(result: Mapping[str, Any]) -> Mapping[str, Any]:
    for ratio in result["ratios"]:
        if ratio["headline"]:
            return ratio
    raise KeyError("no headline ratio")
