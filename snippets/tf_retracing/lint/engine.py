"""Run the rules over files: find the files, read them safely, parse them, apply
suppressions and settings.

Bad input never stops the run: a missing path, a FIFO or device, a binary file, a file
that does not parse or is nested too deeply becomes one ``InputError`` (exit status 2),
and the other files are still checked. A rule that fails on a file is reported the same
way, and the other rules' findings on that file are kept.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import io
import json
import os
import re
import stat
import tokenize
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tf_retracing.lint.config import Config
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.notebooks import (
    Notebook,
    NotebookError,
    NotPythonNotebook,
    read_notebook,
    without_ipython_lines,
)
from tf_retracing.lint.rules import RULES, RULES_BY_CODE, rule_url

# Folders never entered while walking a directory (a path given explicitly is still read).
SKIPPED_FOLDERS = frozenset(
    {"__pycache__", "node_modules", "site-packages", "venv", "build", "dist"}
)
SUFFIXES = (".py", ".ipynb")
MAX_BYTES = 16 * 1024 * 1024  # larger "source" is not source: refused, never read whole
REPORT_URL = "https://github.com/tf-retracing-guide/tf-retracing-guide/issues"
_SUPPRESSION = re.compile(
    r"#\s*tf-retracing:\s*(?P<kind>ignore-file|ignore)\b(?:\[(?P<codes>[^\]]*)\])?"
)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int  # 1-based; in a notebook, in the cell
    column: int  # 1-based, in characters
    end_line: int
    end_column: int
    rule: str
    name: str
    message: str
    url: str
    cell: int | None = None  # a notebook's code cell, 1-based
    # Lines of the file's own code a finding at a loop's call reaches (the predict a
    # wrapper method runs), first to last; not mapped into a notebook's cells.
    via: tuple[int, ...] = ()
    # Where the finding is in the file itself (a notebook's JSON), for SARIF regions.
    file_region: tuple[int, int, int, int] | None = None

    def as_dict(self) -> dict[str, object]:
        found = dict(self.__dict__)
        if self.cell is None:
            del found["cell"], found["file_region"]
        if self.via:
            found["via"] = list(self.via)
        else:
            del found["via"]
        return found


@dataclass(frozen=True)
class InputError:
    path: str
    message: str


class SkippedFile(Exception):
    """A file left out on purpose, for a reason the report states (a notebook in R)."""


class LintInputError(Exception):
    """A file that cannot be linted: missing, not a regular file, binary, not decodable or
    not valid Python; or a rule that failed on it (``findings``: the other rules')."""

    def __init__(self, message: str, findings: list[Finding] | None = None):
        super().__init__(message)
        self.findings = findings or []


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files_checked: int = 0
    # Files left out on purpose, each with why (a note, not an error: exit status as is).
    skipped: list[InputError] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        """Like ruff: 2 for bad input or usage, 1 for findings, 0 when clean."""
        if self.errors:
            return 2
        return 1 if self.findings else 0


@dataclass(frozen=True)
class Suppressions:
    lines: dict[int, frozenset[str] | None]  # line -> codes, or None for every rule
    file: frozenset[str] | None  # codes ignored in the whole file; None: none
    whole_file: bool = False
    unknown: tuple[tuple[int, str], ...] = ()

    def hides(self, line: int, code: str) -> bool:
        if self.whole_file or (self.file is not None and code in self.file):
            return True
        if line not in self.lines:
            return False
        codes = self.lines[line]
        return codes is None or code in codes


def read_suppressions(text: str) -> Suppressions:
    """``# tf-retracing: ignore[TFL003]`` on a finding's first line, or
    ``# tf-retracing: ignore-file[TFL003]`` anywhere; without ``[...]``: every rule."""
    lines: dict[int, frozenset[str] | None] = {}
    file_codes: set[str] = set()
    whole_file = False
    unknown = []
    if "tf-retracing" not in text:
        return Suppressions(lines, None)  # tokenizing costs as much as the analysis
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        match = _SUPPRESSION.search(token.string)
        if match is None:
            continue
        line = token.start[0]
        raw = match.group("codes")
        codes = None if raw is None else frozenset(c.strip() for c in raw.split(",") if c.strip())
        unknown += [(line, code) for code in sorted(codes or ()) if code not in RULES_BY_CODE]
        if match.group("kind") == "ignore-file":
            if codes is None:
                whole_file = True
            else:
                file_codes |= codes
        else:
            lines[line] = codes
    return Suppressions(lines, frozenset(file_codes) or None, whole_file, tuple(unknown))


def parse(data: bytes, path: str) -> tuple[ast.Module, str]:
    """The module's tree and text, or a LintInputError saying why it cannot be read."""
    if b"\0" in data:
        raise LintInputError("binary file, not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        raise LintInputError(f"cannot decode: {error}") from None
    try:
        return parse_text(text, path), text
    except LintInputError as error:
        python = without_ipython_lines(text)  # a notebook exported as a script
        if python is None:
            raise
        try:
            return parse_text(python, path), python
        except LintInputError:
            raise error from None


def parse_text(text: str, path: str) -> ast.Module:
    try:
        with warnings.catch_warnings():  # the file's own SyntaxWarnings are not ours to print
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=path)
    except SyntaxError as error:
        raise LintInputError(f"cannot parse: {error.msg} (line {error.lineno})") from None
    except ValueError as error:  # e.g. a null byte the check above did not see
        raise LintInputError(f"cannot parse: {error}") from None
    except (RecursionError, MemoryError):
        raise LintInputError("cannot parse: nested too deeply for Python's parser") from None


def _character_column(lines: list[str], line: int, byte_offset: int) -> int:
    """AST columns count UTF-8 bytes; editors and SARIF count characters."""
    if not 0 < line <= len(lines):
        return byte_offset + 1
    prefix = lines[line - 1].encode("utf-8")[:byte_offset]
    return len(prefix.decode("utf-8", errors="replace")) + 1


def run_rules(tree: ast.Module, path: str, config: Config) -> tuple[list, list[str]]:
    """(node, rule, message, via) for each finding (``via``: the nodes of the file's own
    code it reached, if any), and a message per rule that failed: one rule's failure
    never drops another rule's findings."""
    facts = ModuleFacts(tree)
    found, failures = [], []
    for rule in RULES:
        if not config.enabled(rule.code, path):
            continue
        try:
            found += [(hit[0], rule, hit[1], hit[2:]) for hit in rule.check(facts)]
        except Exception as error:
            failures.append(
                f"internal error in rule {rule.code} ({type(error).__name__}: {error}); "
                f"its findings on this file are missing, the other rules' are shown; "
                f"please report it at {REPORT_URL}"
            )
    return found, failures


def _findings(text: str, tree: ast.Module, path: str, config: Config, notebook=None):
    suppressions = read_suppressions(text)
    if suppressions.unknown:
        line, code = suppressions.unknown[0]
        where = _place(notebook, line)
        raise LintInputError(f"{where}: unknown rule {code!r} in a suppression comment")
    try:
        found, failures = run_rules(tree, path, config)
    except RecursionError:
        raise LintInputError("cannot analyse: nested too deeply") from None
    lines = text.splitlines()
    findings = []
    for node, rule, message, via in found:
        if suppressions.hides(node.lineno, rule.code):
            continue
        end_line = node.end_lineno or node.lineno
        finding = Finding(
            path=path,
            line=node.lineno,
            column=_character_column(lines, node.lineno, node.col_offset),
            end_line=end_line,
            end_column=_character_column(lines, end_line, node.end_col_offset or 0),
            rule=rule.code,
            name=rule.name,
            message=message,
            url=rule_url(rule, config.site_url),
            via=tuple(n.lineno for n in via[0]) if via else (),
        )
        findings.append(_in_cell(finding, notebook, lines) if notebook else finding)
    return sorted(set(findings), key=_order), failures


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The analysis makes many small objects while a large tree is alive: the cyclic
    garbage collector would rescan that tree again and again (a third of the time on a
    30,000-line file). Nothing it makes is cyclic garbage, so collection waits."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _order(finding: Finding) -> tuple:
    return (finding.cell or 0, finding.line, finding.column, finding.rule)


def _place(notebook: Notebook | None, line: int) -> str:
    origin = notebook.origin(line) if notebook else None
    return f"line {line}" if origin is None else f"cell {origin.cell}, line {origin.line}"


def _in_cell(finding: Finding, notebook: Notebook, lines: list[str]) -> Finding:
    """The finding placed in its notebook cell, with its region in the .ipynb file."""
    start = notebook.origin(finding.line)
    end_index, end_column = finding.end_line, finding.end_column
    end = notebook.origin(end_index)
    if end is None or end.cell != start.cell:  # clipped to the cell's line
        end_index, end, end_column = finding.line, start, len(lines[finding.line - 1]) + 1
    region = None
    if start.file_line is not None and end.file_line is not None:
        region = (
            start.file_line,
            start.file_column + _escaped_length(lines[finding.line - 1][: finding.column - 1]),
            end.file_line,
            end.file_column + _escaped_length(lines[end_index - 1][: end_column - 1]),
        )
    return Finding(
        **{
            **finding.__dict__,
            "line": start.line,
            "end_line": end.line,
            "end_column": end_column,
            "cell": start.cell,
            "file_region": region,
            "via": (),
        }
    )


def _escaped_length(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False)) - 2


def lint_source(source: str | bytes, path: str = "<string>", config: Config | None = None):
    """The findings in one module's source, in line order. LintInputError if it is not
    Python, or if a rule failed on it (the error carries the other rules' findings).
    Suppression comments and the configuration's rule selection apply."""
    config = config or Config()
    data = source.encode("utf-8") if isinstance(source, str) else source
    with _collector_paused():
        tree, text = parse(data, path)
        findings, failures = _findings(text, tree, path, config)
    if failures:
        raise LintInputError(failures[0], findings)
    return findings


def lint_notebook(data: bytes, path: str, config: Config | None = None):
    """The findings in a notebook's code cells, and one message per cell left out."""
    config = config or Config()
    try:
        notebook = read_notebook(data)
    except NotebookError as error:
        raise LintInputError(str(error)) from None
    except NotPythonNotebook as error:
        raise SkippedFile(str(error)) from None
    problems = [
        f"cell {cell}: {why}; the other cells are checked" for cell, why in notebook.skipped
    ]
    with _collector_paused():
        tree = parse_text(notebook.text, path)
        findings, failures = _findings(notebook.text, tree, path, config, notebook)
    return findings, problems + failures


def read_source(path: Path) -> bytes:
    """The bytes of a regular file; a FIFO, a device or a socket (or a link to one) is
    refused without being opened for reading, and so is a file over MAX_BYTES."""
    try:
        status = os.stat(path)
    except OSError as error:
        raise LintInputError(f"cannot read: {error.strerror}") from None
    if not stat.S_ISREG(status.st_mode):
        raise LintInputError("not a regular file (a FIFO, a device or a socket): not read")
    if status.st_size > MAX_BYTES:
        raise LintInputError(f"larger than {MAX_BYTES // 2**20} MB: not read as source")
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as error:
        raise LintInputError(f"cannot read: {error.strerror}") from None
    if len(data) > MAX_BYTES:
        raise LintInputError(f"larger than {MAX_BYTES // 2**20} MB: not read as source")
    return data


def _source_files(folder: Path) -> Iterator[Path]:
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(
            d for d in folders if not d.startswith(".") and d not in SKIPPED_FOLDERS
        )
        for name in sorted(files):
            if name.endswith(SUFFIXES):
                yield Path(root) / name


def collect_files(paths: Iterable[str]) -> Iterator[Path | InputError]:
    """The files to lint, in the order given, with an InputError for a path that is none."""
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = list(_source_files(path))
        elif path.exists() or path.is_symlink():
            found = [path]  # read_source says what is wrong with it, if anything
        else:
            yield InputError(given, "no such file or folder")
            continue
        for file in found:
            if file not in seen:
                seen.add(file)
                yield file


def lint_file(path: Path, config: Config) -> tuple[list[Finding], list[str]]:
    """The findings in one file, and its problems; LintInputError when it is unreadable."""
    data = read_source(path)
    shown = path.as_posix()
    if path.suffix == ".ipynb":
        return lint_notebook(data, shown, config)
    try:
        return lint_source(data, shown, config), []
    except LintInputError as error:
        if not error.findings:
            raise
        return error.findings, [str(error)]


def lint_paths(paths: Iterable[str], config: Config | None = None) -> LintResult:
    """Lint files and folders (folders: every ``*.py`` and ``*.ipynb`` below them); every
    readable file is checked even when others are missing or broken."""
    config = config or Config()
    result = LintResult()
    for path in collect_files(paths):
        if isinstance(path, InputError):
            result.errors.append(path)
            continue
        shown = path.as_posix()
        if config.excluded(shown):
            continue
        try:
            findings, problems = lint_file(path, config)
        except LintInputError as error:
            result.errors.append(InputError(shown, str(error)))
            continue
        except SkippedFile as error:
            result.skipped.append(InputError(shown, str(error)))
            continue
        result.findings.extend(findings)
        result.errors.extend(InputError(shown, problem) for problem in problems)
        result.files_checked += 1
    return result
