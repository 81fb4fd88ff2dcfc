"""The corpus's cases: scripts reduced from real retracing reports, and what each expects.

A case is ``cases/<id>.py``: a script that runs on CPU as ``python <id>.py``, with, at
module level, literal assignments read here without running it:

- ``SOURCE``: the public report it reproduces (issue or Q&A thread URL);
- ``SUMMARY``: one line, what the reporter saw;
- ``EXPECT``: every distinct ``(function, argument, kind)`` the explainer must report,
  ``function`` as reports name it, ``argument`` an argument path or None (where several
  arguments changed at once, the first, the reason listing the rest as ``others``),
  ``kind`` one of ``tf_retracing.KINDS`` or ``unwatched`` (a function made without
  tf.function, inside TensorFlow, that TensorFlow warned about: the report must name it
  among the functions it did not watch); an empty list for a case that must report
  nothing;
- ``WRAPPED``: False when a reader could not wrap the function (Keras builds it inside
  ``fit``); the case then runs in whole-program mode only. Default True.

A case's fix is ``cases/<id>_fixed.py``, the case with the explainer's advice applied
literally, and ``ADVICE``: the words of the advice it applies, which the case's report
must contain. The fix must run and must not retrace.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

CASES_FOLDER = Path(__file__).resolve().parent / "cases"
KINDS = ("shape", "dtype", "python-value", "object", "structure", "new-argument", "context")
KINDS += ("unknown", "unwatched")
Expected = tuple[str, "str | None", str]


class CaseError(Exception):
    """A case file that does not say what it expects, named with the field."""


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    path: Path
    source: str
    summary: str
    expect: frozenset[Expected]
    wrapped: bool
    fixed: Path | None
    advice: str | None


def all_cases(folder: Path = CASES_FOLDER) -> list[Case]:
    paths = sorted(folder.glob("*.py"))
    return [
        read_case(path)
        for path in paths
        if not path.stem.endswith("_fixed") and path.stem != "corpus_watch"
    ]


def read_case(path: Path) -> Case:
    fields = _literal_assignments(path)
    where = f"{path.name}"

    def field(name, kind, default=...):
        if name not in fields:
            if default is ...:
                raise CaseError(f"{where}: no {name} = ... at module level")
            return default
        value = fields[name]
        if not isinstance(value, kind):
            raise CaseError(f"{where}: {name} must be a {kind.__name__}, got {value!r}")
        return value

    source = field("SOURCE", str)
    if not source.startswith("https://"):
        raise CaseError(f"{where}: SOURCE must be the report's https URL, got {source!r}")
    fixed_path = path.with_name(f"{path.stem}_fixed.py")
    advice = None
    if fixed_path.exists():
        advice = _literal_assignments(fixed_path).get("ADVICE")
        if not isinstance(advice, str) or not advice:
            raise CaseError(f"{fixed_path.name}: ADVICE must quote the advice it applies")
    return Case(
        id=path.stem,
        path=path,
        source=source,
        summary=field("SUMMARY", str),
        expect=frozenset(_expected(where, field("EXPECT", list))),
        wrapped=field("WRAPPED", bool, True),
        fixed=fixed_path if fixed_path.exists() else None,
        advice=advice,
    )


def _expected(where: str, entries: list) -> list[Expected]:
    for entry in entries:
        if not (
            isinstance(entry, tuple)
            and len(entry) == 3
            and isinstance(entry[0], str)
            and (entry[1] is None or isinstance(entry[1], str))
            and entry[2] in KINDS
        ):
            raise CaseError(
                f"{where}: each EXPECT entry is (function, argument or None, kind), kind one"
                f" of {', '.join(KINDS)}; got {entry!r}"
            )
    return entries


def _literal_assignments(path: Path) -> dict:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise CaseError(f"{path.name}: cannot be read as Python: {error}") from None
    fields = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.isupper()
        ):
            try:
                fields[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # a constant the script computes: not one of ours
    return fields
