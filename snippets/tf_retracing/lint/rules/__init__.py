"""The rules of the retracing linter, one module each, found by the registry below.

Precision comes first: a check fires only where the hazard is certain from the file alone
(a loop counter passed to a ``tf.function`` the file defines, not any name that might be
an int). What a check cannot see, it leaves alone. Adding a rule is one module here that
defines ``RULE`` (see ``tf_retracing.lint.rule.Rule``), with its own examples.
"""

from __future__ import annotations

import importlib
import pkgutil

from tf_retracing.lint.rule import Rule, rule_url


def _discover() -> tuple[Rule, ...]:
    found = []
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("tfl"):
            found.append(importlib.import_module(f"{__name__}.{module.name}").RULE)
    rules = tuple(sorted(found, key=lambda rule: rule.code))
    codes = [rule.code for rule in rules]
    # The identifiers are a public contract: unique and in one format.
    assert len(set(codes)) == len(codes), codes
    assert all(len(code) == 6 and code.startswith("TFL") for code in codes), codes
    return rules


RULES: tuple[Rule, ...] = _discover()
RULES_BY_CODE = {rule.code: rule for rule in RULES}

__all__ = ["RULES", "RULES_BY_CODE", "Rule", "rule_url"]
