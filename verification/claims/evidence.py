"""Evidence a claim marker names, resolved: the output line, results figure or source.

An output line is looked up in the output the page shows under its executed blocks. The
block tests (``tests/test_docs_blocks.py``) fail unless that shown output is what the
block printed on the pinned release, so a line found here is a line TensorFlow printed.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from benchmarks.results_pages import FRESH, locate, run_state
from verification.claims.conditions import ConditionError, evaluate, expand_every, figure_keys
from verification.claims.markers import ClaimError, EvidenceRef
from verification.harness.codeblocks import DocBlock, HarnessError, page_blocks
from verification.matrix.render import current

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class OutputLine:
    page: str  # from docs/, e.g. guide/causes.md
    block: int  # 1-based among the page's Python blocks
    line: int  # 1-based within the block's shown output
    text: str

    @property
    def anchor(self) -> str:
        return output_anchor(self.block, self.line)


@dataclass(frozen=True)
class MatrixLine:
    entry: str  # a version matrix entry id, e.g. tf2.13
    page: str
    block: int
    text: str


@dataclass(frozen=True)
class ResultFigure:
    file: str
    key: str
    value: object
    # FRESH, or why the run that wrote it may be older than its code (changed since, or
    # no hash recorded): the page shows it beside the claim, the evidence page counts it.
    state: str = FRESH

    @property
    def stale(self) -> bool:
        return self.state != FRESH


@dataclass(frozen=True)
class Condition:
    """A condition on results figures that held when the page was built."""

    file: str
    condition: str  # as the marker writes it, figures in braces
    prefix: str  # the key path the braces' keys continue ("" for none)
    figures: tuple[ResultFigure, ...]

    @property
    def stale(self) -> bool:
        return any(figure.stale for figure in self.figures)


@dataclass(frozen=True)
class Source:
    address: str


Evidence = OutputLine | MatrixLine | ResultFigure | Condition | Source


def cited_result_figures(evidence: Evidence) -> tuple[ResultFigure, ...]:
    """The results figures a piece of evidence reads (none for an output line)."""
    if isinstance(evidence, ResultFigure):
        return (evidence,)
    if isinstance(evidence, Condition):
        return evidence.figures
    return ()


def output_anchor(block: int, line: int) -> str:
    """The HTML id the build gives a line of a block's shown output."""
    return f"output-{block}-{line}"


def resolve(
    ref: EvidenceRef, page: str, docs_dir: Path, where: str, matrix_doc: dict | None = None
) -> Evidence:
    """``ref``, written on ``page`` (a path from ``docs_dir``), as the evidence it names."""
    if ref.kind == "source":
        return Source(ref.text)
    target = (
        posixpath.normpath(posixpath.join(posixpath.dirname(page), ref.page)) if ref.page else page
    )
    if ref.kind == "matrix":
        return matrix_line(matrix_doc, ref.entry, target, docs_dir, ref.text, where)
    if ref.kind == "results":
        return result_figure(ref.file, ref.text, where)
    if ref.kind == "holds":
        return condition(ref, where)
    target = (
        posixpath.normpath(posixpath.join(posixpath.dirname(page), ref.page)) if ref.page else page
    )
    return output_line(target, docs_dir, ref.text, where)


def result_figure(file: str, key: str, where: str) -> ResultFigure:
    return ResultFigure(file, key, results_value(file, key, where), figure_state(file, key))


def condition(ref: EvidenceRef, where: str) -> Condition:
    """A ``holds`` marker's condition, evaluated on the figures it reads: ClaimError when it
    cannot be read or does not hold, naming each figure's value."""
    try:
        written, keys = condition_keys(ref, where)
        figures = tuple(result_figure(ref.file, key, where) for key in keys)
        holds = evaluate(written, ref.prefix, {f.key: f.value for f in figures})
    except ConditionError as error:
        raise ClaimError(f"{where}: holds {ref.file}: {error}") from error
    if not holds:
        values = ", ".join(f"{f.key} = {f.value}" for f in figures)
        raise ClaimError(
            f'{where}: "{ref.text}" does not hold in {ref.file} ({values}): the sentence '
            "says what these figures no longer show; reword it to what they show"
        )
    return Condition(ref.file, ref.text, ref.prefix, figures)


def condition_keys(ref: EvidenceRef, where: str) -> tuple[str, list[str]]:
    """A ``holds`` marker's condition with every ``{a/*/b}`` written out, and the full key
    of each figure it reads (ConditionError or ClaimError when it cannot be read)."""
    written = expand_every(ref.text, ref.prefix, lambda key: results_length(ref.file, key, where))
    return written, figure_keys(written, ref.prefix)


def output_line(page: str, docs_dir: Path, text: str, where: str) -> OutputLine:
    """The one line of ``page``'s shown output that contains ``text``."""
    path = docs_dir / page
    if not path.is_file():
        raise ClaimError(f'{where}: [[proof: ... "{text}"]] names {page}, which does not exist')
    found = [
        OutputLine(page, block, number, line)
        for block, lines in shown_outputs(path)
        for number, line in enumerate(lines, 1)
        if text in line
    ]
    found = _exact_if_several(found, text)
    if len(found) != 1:
        places = ", ".join(f"block {o.block} line {o.line}" for o in found) or "no line"
        raise ClaimError(
            f'{where}: evidence "{text}" must be in exactly one line of the output shown '
            f"under {page}'s executed blocks; it is in {places}"
        )
    return found[0]


def _exact_if_several(found: list, text: str) -> list:
    """Of several lines that contain ``text``, the one that is exactly ``text``, if one is:
    ``traces: 2`` names that line even where another says ``..., traces: 2``."""
    if len(found) < 2:
        return found
    exact = [line for line in found if line.text.strip() == text.strip()]
    return exact if len(exact) == 1 else found


def shown_outputs(path: Path) -> list[tuple[int, list[str]]]:
    """(block number, lines of its shown output) of each executed block with an output."""
    return [
        (b.index, b.expected_output.splitlines())
        for b in executed_blocks(path)
        if b.expected_output
    ]


def executed_blocks(path: Path) -> tuple[DocBlock, ...]:
    """The page's executed Python blocks."""
    return tuple(b for b in all_blocks(path) if b.not_run_reason is None)


def all_blocks(path: Path) -> tuple[DocBlock, ...]:
    """The page's Python blocks (read again when the file changes, for ``mkdocs serve``)."""
    return _blocks(path, path.stat().st_mtime_ns)


@cache
def _blocks(path: Path, _modified: int) -> tuple[DocBlock, ...]:
    try:
        return tuple(page_blocks(path))
    except HarnessError as error:
        raise ClaimError(str(error)) from error


# The version matrix's runs are tied to the code they ran by a digest of each block (a
# block changed since is shown as not run, ``verification.matrix.render.current``), and
# what a claim cites from it is a release's version; it records no code hash to compare.
MATRIX_RESULTS = "verification/matrix/results.json"


def figure_state(file: str, key: str) -> str:
    """Whether the run that wrote a results figure measured the code as it is now."""
    if file == MATRIX_RESULTS:
        return FRESH
    scenario, _ = locate(key)
    return _run_state(file, scenario or "", key if scenario is None else f"scenarios/{scenario}")


@cache
def _run_state(file: str, _scenario: str, key: str) -> str:
    # Hashing a run's code reads and parses every file it measured: once per run and per
    # build (the hook calls ``forget_results`` when a build starts), not once per figure.
    return run_state(_results_document(file), key, ROOT)


def forget_results() -> None:
    """Read results files and hash code again (a new build of ``mkdocs serve``)."""
    _run_state.cache_clear()
    _read_results.cache_clear()


@cache
def _read_results(path: Path, _modified: int) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def _results_document(file: str) -> object:
    """A results file, parsed once per version of it (``mkdocs serve`` sees a new run)."""
    path = ROOT / file
    return _read_results(path, path.stat().st_mtime_ns)


def results_value(file: str, key: str, where: str) -> object:
    """The figure at ``key`` (keys and list positions joined by ``/``) of a results file."""
    value = _results_at(file, key, where)
    if isinstance(value, (dict, list)) or value is None:
        raise ClaimError(f"{where}: {file}: {key} is not a figure (a number or a text)")
    return value


def results_length(file: str, key: str, where: str) -> int:
    """The number of items of the list at ``key`` of a results file."""
    value = _results_at(file, key, where)
    if not isinstance(value, list):
        raise ClaimError(f"{where}: {file}: {key} is not a list, so * cannot stand for its items")
    return len(value)


def _results_at(file: str, key: str, where: str) -> object:
    """Whatever the results file holds at ``key`` ("" for the whole file)."""
    try:
        value = _results_document(file)
    except (OSError, ValueError) as error:
        raise ClaimError(f"{where}: results file {file} cannot be read: {error}") from error
    for part in key.split("/") if key else ():
        value = _step(value, part, f"{where}: {file}: {key}")
    return value


def _step(value: object, part: str, where: str) -> object:
    if isinstance(value, dict) and part in value:
        return value[part]
    if isinstance(value, list) and part.isdigit() and int(part) < len(value):
        return value[int(part)]
    raise ClaimError(f"{where}: there is no {part!r} there")


def matrix_line(
    doc: dict | None, entry_id: str, page: str, docs_dir: Path, text: str, where: str
) -> MatrixLine:
    """The one line that a block of ``page``, as it is now, printed or raised on a setup
    of the version matrix."""
    if doc is None:
        raise ClaimError(f"{where}: evidence on {entry_id} needs the version matrix results")
    entry = next((e for e in doc["entries"] if e["id"] == entry_id), None)
    if entry is None or entry["environment"]["status"] != "ok":
        raise ClaimError(f"{where}: the version matrix has no entry {entry_id} that ran")
    name = f"docs/{page}"
    if not (docs_dir / page).is_file() or name not in entry["pages"]:
        raise ClaimError(f"{where}: {page} is not a page the version matrix ran")
    # A line printed several times by one block is one piece of evidence.
    found = list(
        dict.fromkeys(
            MatrixLine(entry_id, page, index, line)
            for index in _current_blocks(doc, name, docs_dir / page)
            for line in _printed(entry["pages"][name]["blocks"][index - 1]).splitlines()
            if text in line
        )
    )
    found = _exact_if_several(found, text)
    if len(found) != 1:
        places = ", ".join(f"block {m.block}" for m in found) or "no line"
        raise ClaimError(
            f'{where}: evidence "{text}" on {entry_id} must be in exactly one line that a '
            f"block of {page}, as it is now, printed there; it is in {places}"
        )
    return found[0]


def _current_blocks(doc: dict, name: str, path: Path) -> list[int]:
    blocks = all_blocks(path)
    return [b.index for b, ok in zip(blocks, current(doc, name, blocks), strict=True) if ok]


def _printed(result: dict) -> str:
    return result["output"] + ("\n" + result["error"] if result["status"] == "failed" else "")
