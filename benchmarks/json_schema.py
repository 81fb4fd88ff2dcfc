"""The results files' shapes as JSON Schema, checked with the jsonschema library, each
problem named ``<field path>: <what is wrong>``, e.g.
``entries[0].package.tests.passed: expected a whole number, found true``.

A schema that can fail says what it expects (``"expected": "a whole number"``), which the
message quotes. Two keywords are this project's: ``plausible`` (a measurement: 0, or of a
size from ``SMALLEST`` to ``LARGEST``) and ``closed`` (no field but those named), which
names each unknown field as ``required`` names each missing one. A number is finite and an
integer never ``1.0`` nor ``true`` here, whatever JSON Schema or Python allow.
"""

from __future__ import annotations

import json
import math
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators

# Measurements are times, ratios, sizes, rates and counts: anything nonzero smaller than
# SMALLEST or larger than LARGEST is a broken file, and would overflow when inverted or
# formatted (1 / 1e-320 is infinite).
SMALLEST = 1e-9
LARGEST = 1e12


def shown(value: Any) -> str:
    """A value as JSON, cut short: messages quote what they found."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _required(_validator, required, instance, _schema):
    if isinstance(instance, dict):
        for key in required:
            if key not in instance:
                yield ValidationError("missing field", path=[key])


def _closed(_validator, closed, instance, schema):
    if closed and isinstance(instance, dict):
        for key in instance.keys() - schema["properties"].keys():
            yield ValidationError("unknown field", path=[key])


def _plausible(_validator, _on, value, _schema):
    if isinstance(value, int | float) and value != 0 and not SMALLEST <= abs(value) <= LARGEST:
        yield ValidationError(
            f"{value!r} is not a plausible measurement (0, or {SMALLEST:g} to {LARGEST:g})"
        )


_Validator = validators.extend(
    Draft202012Validator,
    validators={
        "required": _required,
        "closed": _closed,
        "plausible": _plausible,
    },
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many(
        {
            "integer": lambda _, v: isinstance(v, int) and not isinstance(v, bool),
            "number": lambda _, v: (
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            ),
        }
    ),
)
_OWN_MESSAGES = ("required", "closed", "plausible")


def problems(schema: dict, value: Any, where: str = "") -> list[str]:
    """Every way ``value`` differs from ``schema``, each as ``<field path>: <problem>``;
    ``where`` is the path of ``value`` in its document."""
    found = []
    for error in _Validator(schema).iter_errors(value):
        path = where + "".join(
            f"[{step}]" if isinstance(step, int) else f".{step}" for step in error.absolute_path
        )
        if error.validator in _OWN_MESSAGES:
            message = error.message
        elif error.validator in ("enum", "pattern"):  # text, but not an allowed word
            message = f"expected {error.schema['expected']}, found {error.instance!r}"
        else:
            message = f"expected {error.schema['expected']}, found {shown(error.instance)}"
        found.append(f"{path.removeprefix('.') or '(top level)'}: {message}")
    return found


def fields(required: dict, optional: dict | None = None, closed: bool = True) -> dict:
    """An object with these fields (each a schema); ``closed``: no other field."""
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
        "closed": closed,
        "expected": "an object",
    }


def list_of(item: dict, non_empty: bool = False) -> dict:
    expected = "a non-empty list" if non_empty else "a list"
    return {"type": "array", "items": item, "minItems": int(non_empty), "expected": expected}


def mapping_of(value: dict) -> dict:
    """An object of any keys, each value of the schema ``value``."""
    return {"type": "object", "additionalProperties": value, "expected": "an object"}


def one_of(*allowed: str) -> dict:
    return {"enum": list(allowed), "expected": f"one of {', '.join(allowed)}"}


def optional(schema: dict) -> dict:
    """``schema``, or null."""
    return {**schema, "type": [schema["type"], "null"], "expected": f"{schema['expected']} or null"}


ANYTHING: dict = {}
FLAG = {"type": "boolean", "expected": "true or false"}
