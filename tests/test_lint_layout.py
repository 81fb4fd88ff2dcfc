"""The linter's layout, read from its source with ``ast``: one module per rule code, and
imports that run one way: rules on top of the facts they share, never the reverse, and
no cycle, counting the imports made inside functions."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from tf_retracing.lint import RULES

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"
LINT = SNIPPETS / "tf_retracing" / "lint"
RULES_PAGE = ROOT / "docs" / "guide" / "lint" / "rules.md"
RULE_MODULE = re.compile(r"tfl(\d{3})_[a-z0-9_]+")


def _name(path: Path) -> str:
    parts = path.relative_to(SNIPPETS).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


TREES = {_name(path): ast.parse(path.read_text(encoding="utf-8")) for path in LINT.rglob("*.py")}
PACKAGES = {_name(path) for path in LINT.rglob("__init__.py")}
RULE_MODULES = sorted(m for m in TREES if RULE_MODULE.fullmatch(m.rsplit(".", 1)[-1]))


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The lint modules an import statement names (``from package import module`` counts
    as the module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in TREES]
    source = _absolute(module, node)
    names = [f"{source}.{alias.name}" for alias in node.names]
    return [n if n in TREES else source for n in names if n in TREES or source in TREES]


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` reads from, its leading dots resolved."""
    if not node.level:
        return node.module or ""
    package = module if module in PACKAGES else module.rsplit(".", 1)[0]
    base = package.rsplit(".", node.level - 1)[0]
    return f"{base}.{node.module}" if node.module else base


# Every import, including those inside functions: a lazy import is still an arrow.
IMPORTS = {
    module: {
        target
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for target in _imported(module, node)
    }
    for module, tree in TREES.items()
}


def _below(module: str) -> set[str]:
    """What ``module`` imports, directly or through other lint modules."""
    seen: set[str] = set()
    pending = list(IMPORTS[module])
    while pending:
        current = pending.pop()
        if current not in seen:
            seen.add(current)
            pending.extend(IMPORTS[current])
    return seen


def _codes(tree: ast.Module) -> list[str]:
    """The codes of the ``Rule(code=...)`` a module defines."""
    return [
        keyword.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rule"
        for keyword in node.keywords
        if keyword.arg == "code" and isinstance(keyword.value, ast.Constant)
    ]


def test_the_layout_is_read():
    assert "tf_retracing.lint.facts" in TREES
    assert len(RULE_MODULES) >= 11
    assert "tf_retracing.lint.syntax" in IMPORTS["tf_retracing.lint.facts"]


@pytest.mark.parametrize("module", RULE_MODULES, ids=lambda m: m.rsplit(".", 1)[-1])
def test_each_rule_module_defines_exactly_its_own_code(module):
    number = RULE_MODULE.fullmatch(module.rsplit(".", 1)[-1]).group(1)
    assert _codes(TREES[module]) == [f"TFL{number}"]


def test_every_rule_code_has_exactly_one_module():
    defined = [code for tree in TREES.values() for code in _codes(tree)]
    assert sorted(defined) == sorted(set(defined)), "a code defined twice"
    on_the_page = set(re.findall(r"^## `(TFL\d{3})`", RULES_PAGE.read_text(), re.MULTILINE))
    registered = {rule.code for rule in RULES}
    assert set(defined) == on_the_page == registered
    assert len(RULE_MODULES) == len(defined)


def test_no_import_cycle_among_lint_modules():
    cycles = sorted(module for module in TREES if module in _below(module))
    assert not cycles, f"modules that import themselves through others: {cycles}"


@pytest.mark.parametrize("module", RULE_MODULES, ids=lambda m: m.rsplit(".", 1)[-1])
def test_nothing_below_a_rule_imports_a_rule(module):
    """What a rule builds on (facts, varying, models, syntax...) knows no rule, and no rule
    imports another: what two rules share lives in a module below both."""
    below = _below(module)
    assert not below & set(RULE_MODULES), f"{module} reaches {sorted(below & set(RULE_MODULES))}"
    for lower in below - {"tf_retracing.lint.rule"}:
        assert not IMPORTS[lower] & {"tf_retracing.lint.rules", "tf_retracing.lint.rule"}, lower
