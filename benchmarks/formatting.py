"""How figures read on the site: significant figures, and a ratio with its interval.

A leaf module: the claims and the renderer both format numbers, and neither imports the
other for it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


def number(value: float, digits: int = 3) -> str:
    """A value with ``digits`` significant figures, without scientific notation."""
    if isinstance(value, int):
        return f"{value:,}"
    if value == 0:
        return "0"
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    return f"{value:,.{decimals}f}"


def ratio_text(ratio: Mapping[str, float]) -> str:
    return (
        f"{number(ratio['median'])}× (95% CI {number(ratio['ci_low'])}–{number(ratio['ci_high'])})"
    )
