"""The blind corpus: real files from public repositories the linter was never tuned on,
their hazards marked (``blind_marks.json``) by someone who had not seen the linter's
output on them, then scored here against the linter.

``python -m verification.lint_corpus blind --mirror DIR`` reads each file at its commit
from the git mirrors (``DIR/<owner+name>/repo``), lints it, and writes
``blind_results.json``: per file, the marked hazards found and missed and the findings no
mark covers, with recall and precision, and the hash of the linter it measured.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tf_retracing.lint import lint_source
from tf_retracing.lint.engine import LintInputError, lint_notebook

from benchmarks.code_hash import code_hash
from benchmarks.files import write_json_whole
from verification.lint_corpus.runner import score_findings

HERE = Path(__file__).parent
MARKS = HERE / "blind_marks.json"
RESULTS = HERE / "blind_results.json"
MEASURED = ["snippets/tf_retracing/lint", "verification/lint_corpus/blind.py"]
RULE_FAMILIES = [f"TFL{n:03d}" for n in range(1, 12)]
# The blind corpora after the first (issue 52) are split in two: the linter may be tuned on
# the "tune" half; the "sealed" half is scored once before any tuning on it, and that first
# score is kept (docs/guide/lint/measured.md says when, corpus by corpus).
SPLIT_CORPORA = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
HALVES = ("tune", "sealed")


def split_marks_file(corpus: int = 2) -> Path:
    return HERE / f"blind{corpus}_marks.json"


def split_results_file(half: str, corpus: int = 2) -> Path:
    return HERE / f"blind{corpus}_{half}_results.json"


class MarksError(ValueError):
    """A marks file that cannot be scored; the message names the file and the field."""


@dataclass(frozen=True)
class MarkedFile:
    repository: str
    commit: str
    path: str
    kind: str
    hazards: frozenset[tuple[int, str, int | None]]  # (line, rule, notebook cell or None)
    half: str | None = None  # "tune" or "sealed" in a corpus split in two, else None
    # A snippet: code a user posted in a public issue thread, copied verbatim with its
    # address (``source``), scored from the marks file itself instead of a mirror.
    code: str | None = None
    source: str | None = None


def read_marks(path: Path = MARKS) -> tuple[dict, list[MarkedFile]]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise MarksError(f"{path}: cannot be read: {error}") from error
    files = []
    for index, entry in enumerate(document.get("files", [])):
        where = f"{path}: files[{index}]"
        snippet = "code" in entry
        needed = ("source", "code") if snippet else ("repository", "commit")
        for field in (*needed, "path", "kind", "hazards"):
            if field not in entry:
                raise MarksError(f"{where}: {field}: missing")
        if snippet and not str(entry["source"]).startswith("https://"):
            raise MarksError(
                f"{where}: source: a snippet names the https address it was copied from"
            )
        if entry["kind"] not in ("hazard", "clean"):
            raise MarksError(f"{where}: kind: {entry['kind']!r} is not hazard or clean")
        if entry.get("half") not in (None, *HALVES):
            raise MarksError(f"{where}: half: {entry['half']!r} is not tune or sealed")
        hazards = set()
        notebook = entry["path"].endswith(".ipynb")
        for number, hazard in enumerate(entry["hazards"]):
            if hazard.get("rule") not in RULE_FAMILIES or not isinstance(hazard.get("line"), int):
                raise MarksError(f"{where}: hazards[{number}]: needs a line and a rule TFL001-011")
            hazards.add((hazard["line"], hazard["rule"], _cell(hazard, notebook, where, number)))
        files.append(
            MarkedFile(
                entry.get("repository") or _thread_repository(entry["source"]),
                entry.get("commit", ""),
                entry["path"],
                entry["kind"],
                frozenset(hazards),
                entry.get("half"),
                entry.get("code"),
                entry.get("source"),
            )
        )
    return document, files


def _cell(hazard: dict, notebook: bool, where: str, number: int) -> int | None:
    """A notebook's hazard names its code cell (from 1) and its line in that cell, as the
    linter names findings there; a script's hazard names no cell."""
    cell = hazard.get("cell")
    if notebook and not (isinstance(cell, int) and cell >= 1):
        raise MarksError(f"{where}: hazards[{number}]: cell: a notebook's hazard needs one (>= 1)")
    if not notebook and cell is not None:
        raise MarksError(f"{where}: hazards[{number}]: cell: only a notebook's hazard has one")
    return cell


def _thread_repository(address: str) -> str:
    """owner/name of a GitHub thread's address (the address itself for another site)."""
    parts = address.removeprefix("https://github.com/").split("/")
    return "/".join(parts[:2]) if address.startswith("https://github.com/") else address


def source_of(marked: MarkedFile, mirror: Path) -> str:
    if marked.code is not None:
        return marked.code
    git_dir = mirror / marked.repository.replace("/", "+") / "repo"
    shown = subprocess.run(
        ["git", "-C", str(git_dir), "show", f"{marked.commit}:{marked.path}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if shown.returncode != 0:
        raise MarksError(f"{marked.repository}@{marked.commit[:12]}:{marked.path}: {shown.stderr}")
    return shown.stdout


def _findings(marked: MarkedFile, source: str) -> list:
    """A notebook is linted as one (its code cells, lines counted within each), as the
    linter's command does; read as Python, its JSON parses and holds nothing."""
    if marked.path.endswith(".ipynb"):
        return lint_notebook(source.encode("utf-8"), marked.path)[0]
    return lint_source(source, marked.path)


def score_file(marked: MarkedFile, source: str) -> dict:
    # A file the linter refuses (it cannot parse it) is scored with no finding, and says why.
    try:
        findings, refused = _findings(marked, source), None
    except LintInputError as error:
        findings, refused = [], str(error)
    found, unmarked = set(), []
    for cell in sorted({c for _, _, c in marked.hazards} | {f.cell for f in findings}, key=str):
        # Per notebook cell (a script is one cell, None): lines count within it.
        in_cell = [f for f in findings if f.cell == cell]
        hazards = frozenset((line, rule) for line, rule, c in marked.hazards if c == cell)
        covered, uncovered = score_findings(in_cell, hazards)
        found |= {(line, rule, cell) for line, rule in covered}
        unmarked += [_with_cell(u, cell) for u in uncovered]
    origin = {"source": marked.source} if marked.source else {"commit": marked.commit}
    return {
        "repository": marked.repository,
        **origin,
        "path": marked.path,
        "kind": marked.kind,
        "hazards": sorted(_listed(h) for h in marked.hazards),
        "missed": sorted(_listed(h) for h in marked.hazards - found),
        "unmarked_findings": unmarked,
        **({"refused": refused} if refused else {}),
    }


def _listed(hazard: tuple) -> list:
    """[line, rule] for a script, [line, rule, cell] in a notebook."""
    line, rule, cell = hazard
    return [line, rule] if cell is None else [line, rule, cell]


def _with_cell(uncovered: list, cell: int | None) -> list:
    return uncovered if cell is None else [*uncovered, f"cell {cell}"]


def summary(files: list[dict]) -> dict:
    hazards = sum(len(f["hazards"]) for f in files)
    missed = sum(len(f["missed"]) for f in files)
    unmarked = sum(len(f["unmarked_findings"]) for f in files)
    findings_true = hazards - missed
    by_rule = {}
    for rule in RULE_FAMILIES:
        marked = sum(1 for f in files for h in f["hazards"] if h[1] == rule)
        lost = sum(1 for f in files for h in f["missed"] if h[1] == rule)
        if marked:
            by_rule[rule] = {"marked": marked, "found": marked - lost}
    return {
        "files": len(files),
        "repositories": len({f["repository"] for f in files}),
        "clean_files": sum(1 for f in files if f["kind"] == "clean"),
        "hazards": hazards,
        "found": findings_true,
        "recall": round(findings_true / hazards, 3) if hazards else None,
        "unmarked_findings": unmarked,
        "refused_files": sum(1 for f in files if f.get("refused")),
        "precision": (
            round(findings_true / (findings_true + unmarked), 3)
            if findings_true + unmarked
            else None
        ),
        "by_rule": by_rule,
    }


def run(mirror: Path, marks: Path = MARKS, output: Path = RESULTS, half: str | None = None) -> dict:
    document, marked = read_marks(marks)
    if half is not None:
        marked = [m for m in marked if m.half == half]
        if not marked:
            raise MarksError(f"{marks}: no file has half = {half!r}")
    files = [score_file(m, source_of(m, mirror)) for m in marked]
    command = "python -m verification.lint_corpus blind --mirror DIR"
    corpus = next((c for c in SPLIT_CORPORA if split_marks_file(c) == marks), None)
    if corpus is not None and corpus != 2:
        command += f" --corpus {corpus}"
    if half is not None:
        command += f" --half {half}"
    results = {
        "schema_version": 1,
        "provenance": {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "marked_by": document.get("marked_by", ""),
            "method": document.get("method", ""),
            "measured": MEASURED,
            "code_hash": code_hash(MEASURED),
            "command": command,
            "marks": marks.name,
            "half": half,
        },
        "summary": summary(files),
        "files": files,
    }
    results["first_run"] = _first_run(output)
    write_json_whole(output, results)
    return results


def _first_run(output: Path) -> dict | None:
    """The score of the first run on these marks, kept by every later run: the only one
    made before anyone saw the linter's output on the corpus (later ones were made after
    changes to the linter prompted by it, so they are no longer blind)."""
    if not output.exists():
        return None
    previous = json.loads(output.read_text(encoding="utf-8"))
    if previous.get("first_run"):
        return previous["first_run"]
    return {"provenance": previous["provenance"], "summary": previous["summary"]}


# --- on the Lint page ---------------------------------------------------------------------

MARKER = "<!-- lint-blind-corpus -->"


def read_results(path: Path = RESULTS) -> dict:
    from verification.corpus_results import ResultsError

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path}: cannot be read: {error}") from error


def replace_marker(markdown: str, data: dict, source_link) -> str:
    return markdown.replace(MARKER, render(data, source_link))


def render(data: dict, source_link) -> str:
    """The first (blind) score and the latest, per rule, with the files missed."""
    first, latest = data["first_run"], data["summary"]
    rows = [
        "| Run | Linter (code hash) | Hazards found | Recall | Findings off the marks |",
        "|---|---|---:|---:|---:|",
    ]
    for label, run in (("first, blind", first), ("latest", data)):
        summary = run["summary"]
        rows.append(
            f"| {label}, {run['provenance']['date']} | `{run['provenance']['code_hash']}` | "
            f"{summary['found']} of {summary['hazards']} | {summary['recall']:.1%} | "
            f"{summary['unmarked_findings']} |"
        )
    missed = [
        f"- [`{f['repository']}` `{f['path']}`]({_github(f)}) {_place(missed)} ({missed[1]})"
        for f in data["files"]
        for missed in f["missed"]
    ]
    intro = (
        f"{latest['files']} files from {latest['repositories']} repositories "
        f"({latest['clean_files']} of them risky-looking clean code), marked by "
        f"{data['provenance']['marked_by']} "
        f"([marks]({source_link('verification/lint_corpus/blind_marks.json')}), "
        f"[results]({source_link('verification/lint_corpus/blind_results.json')}))."
    )
    return "\n".join([intro, "", *rows, "", "Hazards the latest linter misses:", "", *missed])


def _place(hazard: list) -> str:
    line, _, *cell = hazard
    return f"cell {cell[0]}, line {line}" if cell else f"line {line}"


def _github(entry: dict) -> str:
    if "source" in entry:  # a snippet: the thread it was copied from
        return entry["source"]
    return f"https://github.com/{entry['repository']}/blob/{entry['commit']}/{entry['path']}"
