"""The package's layering: TensorFlow's private API is touched in ``_internals`` only, and
no module imports a name back from the package's ``__init__`` (only submodules)."""

from __future__ import annotations

import ast
import re
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
        "_functions",  # a FuncGraph's functions: the graphs of tf.cond's branches
    }
)
PRIVATE_MODULES = ("tensorflow.python", "tensorflow.core")
MODULES = sorted(
    p for p in PACKAGE.rglob("*.py") if "_internals" not in p.relative_to(PACKAGE).parts
)
# Entry points that use the package's public API as a reader does: the version gate in
# ``__init__`` picks the explainer or its counting fallback for them (the explain command
# runs a program as a reader's own would).
PUBLIC_API_CONSUMERS = frozenset({"pytest_plugin.py", "explain.py"})


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


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if p.name not in PUBLIC_API_CONSUMERS | {"__init__.py"}],
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_no_module_imports_the_package_itself(path):
    """``import tf_retracing`` in a submodule is an arrow back up to ``__init__``: import
    the submodule that holds the name instead."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    upward = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "tf_retracing"
    ]
    assert upward == []


# --- the tree's layering ----------------------------------------------------------------

ROOT = PACKAGE.parents[1]
# Who may import whom, top-level package by package: imports run downward only. The
# package readers install imports nothing of the repository; the site's tooling (benchmarks,
# verification, the MkDocs hooks) imports the package, the pages' snippets and the tooling
# below it; tests import anything, and nothing imports tests.
MAY_IMPORT = {
    "snippets/tf_retracing": {"tf_retracing"},
    "benchmarks": {"benchmarks", "tf_retracing", "snippets"},
    "verification": {"verification", "benchmarks", "tf_retracing", "snippets"},
    "docs/hooks": {"verification", "benchmarks", "tf_retracing", "snippets"},
}
REPOSITORY_PACKAGES = {"tf_retracing", "benchmarks", "verification", "tests", "snippets"}


def _repository_imports(path: Path) -> set[str]:
    """The repository's own top-level packages that ``path`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names & REPOSITORY_PACKAGES


@pytest.mark.parametrize("folder", sorted(MAY_IMPORT))
def test_imports_run_downward_and_nothing_outside_tests_imports_tests(folder):
    wrong = {
        path.relative_to(ROOT).as_posix(): sorted(imported - MAY_IMPORT[folder])
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "cases" not in path.relative_to(ROOT / folder).parts  # users' programs, as written
        for imported in [_repository_imports(path)]
        if imported - MAY_IMPORT[folder]
    }
    assert wrong == {}


def test_tests_hold_tests_only():
    """tests/ has test modules, its conftest and fixture data: no package of tooling."""
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir()} - {"__pycache__"}
    assert folders == {"fixtures"}
    helpers = [
        p.name
        for p in (ROOT / "tests").glob("*.py")
        if p.name != "conftest.py" and not p.name.startswith("test_")
    ]
    assert helpers == []


def test_every_public_name_is_on_the_api_reference_page():
    """The reference page documents each name of ``tf_retracing.__all__`` (through
    mkdocstrings, ``::: module.name``, or in its prose), so that none is left out."""
    import tf_retracing

    page = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    rendered = set(re.findall(r"^::: tf_retracing(?:\.\w+)*\.(\w+)$", page, re.MULTILINE))
    missing = [
        name
        for name in tf_retracing.__all__
        if name not in rendered and f"`tf_retracing.{name}`" not in page
    ]
    assert missing == []


def test_the_explainer_exports_what_the_package_re_exports_from_it():
    from tf_retracing import explainer
    from tf_retracing.explainer_types import EXPLAINER_NAMES

    assert set(EXPLAINER_NAMES) <= set(explainer.__all__)
    assert all(isinstance(name, str) for name in explainer.__all__)


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_no_module_is_over_800_lines(path):
    """A module that holds several concerns becomes a package whose files name them."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= 800
