"""The linter's recall corpus: files reduced from real retracing reports, with the hazards
a reader of the file alone can be certain of marked on their lines.

Two sets of files are read: ``verification/lint_corpus/cases/*.py``, written for the linter,
and the explainer's corpus ``verification/explainer_corpus/cases/*.py`` (the same kind of
reduction, of other reports). Each file has ``SOURCE`` (the public report's URL) and
``SUMMARY``; a line whose hazard a rule should report ends with ``# hazard: TFL003``
(several codes comma-separated). A file without markers (a fixed form, a near miss) must
give no finding. The explainer's harness lines (``f = watch(f)``) are blanked before
linting: a reader's program does not have them."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

from verification.explainer_corpus.cases import CASES_FOLDER as EXPLAINER_CASES

ROOT = Path(__file__).resolve().parents[2]
LINT_CASES = Path(__file__).resolve().parent / "cases"
_MARKER = re.compile(r"#\s*hazard:\s*(?P<codes>TFL\d{3}(?:\s*,\s*TFL\d{3})*)\s*$")
_WATCH_CALL = re.compile(r"\bwatch\(((?:[^()]|\([^()]*\))*)\)")


class CaseError(Exception):
    """A case file that does not say where it comes from, or marks a line wrongly."""


@dataclasses.dataclass(frozen=True)
class LintCase:
    id: str
    path: str  # relative to the repository
    source: str
    summary: str
    text: str  # what is linted
    hazards: frozenset[tuple[int, str]]  # (line, rule code)


def all_cases() -> list[LintCase]:
    files = sorted(LINT_CASES.glob("*.py")) + sorted(
        path for path in EXPLAINER_CASES.glob("*.py") if path.stem != "corpus_watch"
    )
    return [read_case(path) for path in files]


def read_case(path: Path) -> LintCase:
    relative = path.relative_to(ROOT).as_posix()
    original = path.read_text(encoding="utf-8")
    base = path.with_name(path.name.replace("_fixed.py", ".py"))
    if path.stem.endswith("_fixed") and base.exists():  # the explainer's fix of a case
        fields = _string_fields(base.read_text(encoding="utf-8"), relative)
        fields["SUMMARY"] = f"the fix of: {fields['SUMMARY']}"
    else:
        fields = _string_fields(original, relative)
    lines = [_without_harness(line) for line in original.splitlines()]
    hazards = set()
    for number, line in enumerate(lines, start=1):
        match = _MARKER.search(line)
        if match is not None:
            hazards |= {(number, code.strip()) for code in match.group("codes").split(",")}
    prefix = "explainer/" if path.parent == EXPLAINER_CASES else ""
    return LintCase(
        id=prefix + path.stem,
        path=relative,
        source=fields["SOURCE"],
        summary=fields["SUMMARY"],
        text="\n".join(lines) + "\n",
        hazards=frozenset(hazards),
    )


def _without_harness(line: str) -> str:
    """The explainer's harness taken out of a case's line, as the reader's program has it:
    ``f = watch(f)`` is no line at all, ``step = watch(make_step())`` is
    ``step = make_step()``. (``@watch`` decorators stay: an unknown decorator.)"""
    if line.startswith("from corpus_watch import"):
        return ""
    if "watch(" not in line or "=" not in line:
        return line
    unwrapped = _WATCH_CALL.sub(r"\1", line)
    left, _, right = unwrapped.partition("=")
    if [p.strip() for p in left.split(",")] == [p.strip() for p in right.split(",")]:
        return ""
    return unwrapped


def _string_fields(text: str, where: str) -> dict[str, str]:
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise CaseError(f"{where}: not Python: {error.msg} (line {error.lineno})") from None
    fields = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in {"SOURCE", "SUMMARY"}:
                try:
                    fields[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    raise CaseError(f"{where}: {target.id} must be a literal string") from None
    for name in ("SOURCE", "SUMMARY"):
        if not isinstance(fields.get(name), str) or not fields[name]:
            raise CaseError(f"{where}: lacks {name}, a literal string")
    if not fields["SOURCE"].startswith("https://"):
        raise CaseError(f"{where}: SOURCE must be the https:// address of a public report")
    return fields
