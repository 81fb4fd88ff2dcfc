"""What a rule is: a stable identifier, a name, a link to the guide section that explains
the cause and its fix, a check over one module's facts, and the rule's own examples."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tf_retracing.lint.facts import ModuleFacts

GUIDE = "guide/"
# A check yields (node, message), or (node, message, nodes reached through the file's own
# functions) for a finding at a loop's call whose hazard is in a function it calls.
Check = Callable[[ModuleFacts], Iterator[tuple]]


@dataclass(frozen=True)
class Rule:
    code: str  # stable: never renumbered, never reused
    name: str
    summary: str  # what it catches, one line
    fix: str  # one line
    page: str  # the guide page and anchor that explain the cause and the fix
    check: Check
    # Examples, each linted after ``import keras, numpy as np, tensorflow as tf``: every
    # source in ``found`` gives exactly one finding of this rule and nothing else; every
    # source in ``clean`` gives no finding at all.
    found: tuple[str, ...] = ()
    clean: tuple[str, ...] = ()


def rule_url(rule: Rule, site_url: str) -> str:
    return f"{site_url.rstrip('/')}/{GUIDE}{rule.page}"
