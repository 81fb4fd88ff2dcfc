"""Names for the reports: where a function is defined, the user's line that made it,
the library a function belongs to, and TensorFlow's key for its Python code."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable

from tf_retracing import _internals
from tf_retracing._internals import PolymorphicFunction
from tf_retracing.explainer_types import innermost

# Frames of these packages are library code; the first other frame is the user's line.
_LIBRARY_PACKAGES = frozenset(
    [
        "tensorflow",
        "keras",
        "tf_keras",
        "tf_retracing",
        "contextlib",
        "functools",
        "runpy",
        "logging",
        "absl",
    ]
)


def _library_of(python_function) -> str | None:
    """The library that defines ``python_function`` ("keras"), or None for user code."""
    package = (getattr(innermost(python_function), "__module__", None) or "").split(".")[0]
    return package if package in _LIBRARY_PACKAGES else None


def _purpose(python_function) -> tuple:
    """What a library's function is made for, read from the functions its closure holds:
    Keras's ``one_step_on_data`` holds ``train_step`` for the train function and
    ``test_step`` for the test function. Objects other than functions (the model) do not
    count: the same step made for a new model is the same purpose."""
    closure = getattr(innermost(python_function), "__closure__", None) or ()
    names = []
    for cell in closure:
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        if inspect.ismethod(value) or inspect.isfunction(value):
            names.append(getattr(value, "__qualname__", ""))
    return tuple(names)


def _first_user_frame() -> str | None:
    """``file.py:line`` of the innermost caller outside TensorFlow, Keras and this package."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__") or ""
        if module.split(".")[0] not in _LIBRARY_PACKAGES:
            return _location(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return None


def _where(python_function) -> str:
    code = getattr(innermost(python_function), "__code__", None)
    if code is None:
        return type(innermost(python_function)).__qualname__
    return _location(code.co_filename, code.co_firstlineno)


# Names a place in the user's code; None to leave it as ``file.py:line`` (a notebook names
# its cells, whose file names are the kernel's own). Set with set_location_namer.
_location_namer: Callable[[str, int], str | None] | None = None


def set_location_namer(namer: Callable[[str, int], str | None] | None):
    """Use ``namer(filename, line)`` to name places in reports; return the one it replaces."""
    global _location_namer
    previous, _location_namer = _location_namer, namer
    return previous


def _location(filename: str, line: int) -> str:
    """``file.py:line``, or what the location namer calls it."""
    if _location_namer is not None:
        try:
            named = _location_namer(filename, line)
        except Exception:  # a namer that fails leaves the plain name, never the report
            named = None
        if named:
            return named
    return f"{filename.rsplit('/', 1)[-1]}:{line}"


def _code(function: PolymorphicFunction):
    """TensorFlow's own key for 'the same Python function' (used by its warning too)."""
    return _internals.call_stats_key(function)
