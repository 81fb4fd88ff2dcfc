"""The registry of scenarios: every module here that defines ``SCENARIO`` (see
``benchmarks.scenarios.base.Scenario``), found by discovery, in the order of their names,
which is the order the CLI runs them and the pages list them. Adding a scenario is one
module here, and a marker on the page that shows it."""

from __future__ import annotations

import importlib
import pkgutil

from benchmarks.scenarios.base import Scenario

_SUPPORT_MODULES = {"base", "common"}  # what scenarios share; no scenario of their own


def _discover() -> dict[str, Scenario]:
    found = [
        importlib.import_module(f"{__name__}.{module.name}").SCENARIO
        for module in pkgutil.iter_modules(__path__)
        if module.name not in _SUPPORT_MODULES
    ]
    names = [scenario.name for scenario in found]
    assert len(set(names)) == len(names), f"two scenarios share a name: {sorted(names)}"
    return {scenario.name: scenario for scenario in sorted(found, key=lambda s: s.name)}


SCENARIOS: dict[str, Scenario] = _discover()

# Every name a page may ask for, whether or not its scenario can run in this checkout.
NAMES = tuple(SCENARIOS)


def runnable() -> list[str]:
    """Scenarios whose measured project code (snippets) is present."""
    return [name for name, scenario in SCENARIOS.items() if not scenario.missing_requirements()]
