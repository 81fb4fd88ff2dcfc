"""The package's layering: TensorFlow's private API is touched in ``_internals`` only, and
no module imports a name back from the package's ``__init__`` (only submodules)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "snippets" / "tf_retracing"
# TensorFlow's private attributes and modules the explainer relies on.
PRIVATE_ATTRIBUTES = frozenset(
    {
        "_python_function",
        "_function_cache",
        "_key_for_call_stats",
        "_variable_creation_config",
        "_no_variable_creation_config",
        "_decorate",
        "_function_type",
        "_jit_compile",
    }
)
PRIVATE_MODULES = ("tensorflow.python", "tensorflow.core")
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "_internals.py")
# Entry points that use the package's public API as a reader does: the version gate in
# ``__init__`` picks the explainer or its counting fallback for them.
PUBLIC_API_CONSUMERS = frozenset({"pytest_plugin.py"})


def _submodules() -> set[str]:
    return {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if p.is_dir()
    }


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_only_internals_touches_tensorflow_privates(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    touched = [
        (node.lineno, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in PRIVATE_ATTRIBUTES
    ]
    touched += [
        (node.lineno, node.module)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PRIVATE_MODULES)
    ]
    assert touched == []


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if p.name not in PUBLIC_API_CONSUMERS],
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_no_module_imports_a_name_from_the_package_init(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    upward = [
        (node.lineno, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "tf_retracing"
        for alias in node.names
        if alias.name not in _submodules()
    ]
    assert upward == []
