"""Jupyter and Colab notebooks as Python: the code cells in order, IPython's magics and
shell lines left out, and a map from each line back to its cell and to the ``.ipynb``
file's own lines (for SARIF regions that code-scanning tools show on the file)."""

from __future__ import annotations

import ast
import json
import re
import textwrap
import warnings
from dataclasses import dataclass, field

# Cell magics whose body is still Python; any other (%%bash, %%writefile...) is not.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "tensorflow"})
_SHELL_OR_MAGIC = re.compile(r"^\s*(?:[!%?]|\w[\w.]*\?\??\s*$)")
_ASSIGNED_FROM_SHELL = re.compile(r"^\s*[\w.\[\], ]+=\s*[!%]")


class NotebookError(Exception):
    """A file that is not a notebook this module can read."""


class NotPythonNotebook(Exception):
    """A notebook whose kernel runs another language (R, Julia...): not linted."""


def notebook_language(document: dict) -> str | None:
    """The language the notebook's metadata names (``kernelspec.language``, else
    ``language_info.name``); None when it names none."""
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return None
    for table, key in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(table, {}).get(key) if isinstance(metadata.get(table), dict) else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


@dataclass(frozen=True)
class Origin:
    cell: int  # 1-based, counting code cells only
    line: int  # 1-based, in the cell
    file_line: int | None = None  # 1-based, in the .ipynb file, when found
    file_column: int | None = None  # 1-based column of the line's first character there


@dataclass
class Notebook:
    text: str  # the code cells, joined
    origins: list[Origin] = field(default_factory=list)  # per line of ``text``
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (cell, why): unreadable

    def origin(self, line: int) -> Origin | None:
        return self.origins[line - 1] if 0 < line <= len(self.origins) else None


def read_notebook(data: bytes) -> Notebook:
    try:
        raw = data.decode("utf-8")
        document = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as error:
        raise NotebookError(f"not a notebook: invalid JSON ({error})") from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("not a notebook: no 'cells' list")
    language = notebook_language(document)
    if language is not None and language.lower() not in ("python", "python3", "ipython"):
        raise NotPythonNotebook(
            f"not linted: a notebook in {language} (its metadata names that language), not Python"
        )
    locator = _FileLocator(raw)
    notebook = Notebook("")
    lines: list[str] = []
    number = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", "")
        entries = source if isinstance(source, list) else [source]
        if not all(isinstance(entry, str) for entry in entries):
            notebook.skipped.append((number, "its source is not text"))
            continue
        code_lines = "".join(entries).splitlines()
        positions = locator.line_starts_of(entries)
        if len(positions) != len(code_lines):  # a line break JSON and Python count apart
            positions = []  # no place in the file rather than a wrong one
        # IPython runs a cell whose lines share an indent as if it had none
        python = _as_python(textwrap.dedent("\n".join(code_lines)).split("\n"))
        if python is None:
            continue  # %%bash, %%writefile...: not Python, and not an error

        problem = _parse_problem("\n".join(python))
        if problem is not None:
            notebook.skipped.append((number, problem))
            continue
        for index, line in enumerate(python):
            place = positions[index] if index < len(positions) else None
            notebook.origins.append(Origin(number, index + 1, *(place or (None, None))))
            lines.append(line)
    notebook.text = "\n".join(lines) + ("\n" if lines else "")
    return notebook


def _as_python(lines: list[str]) -> list[str] | None:
    """The cell's lines with magics and shell lines replaced by ``pass`` (same line
    count, same indentation); None for a cell magic whose body is not Python."""
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split(maxsplit=1)
        if not magic or magic[0] not in _PYTHON_CELL_MAGICS:
            return None
        lines = ["", *lines[1:]]
    python = []
    continued = False  # a shell line ending in a backslash goes on on the next line
    inside = _Open()  # brackets, strings and backslashes the Python lines left open
    for line in lines:
        starts_a_statement = not inside.open()
        if continued or (
            starts_a_statement and (_SHELL_OR_MAGIC.match(line) or _ASSIGNED_FROM_SHELL.match(line))
        ):
            indent = "" if continued else line[: len(line) - len(line.lstrip())]
            python.append(f"{indent}pass" if not continued else "")
            continued = line.rstrip().endswith("\\")
        else:
            python.append(line)
            inside.read(line)
    return python


class _Open:
    """What a run of Python lines leaves open: bracket depth, a triple-quoted string, a
    backslash at the end. A line that starts inside one of them continues a statement:
    a "% (a, b)" there is Python's string formatting, not a magic."""

    def __init__(self):
        self.depth = 0
        self.quote = ""  # the triple quote of a string still open
        self.backslash = False

    def open(self) -> bool:
        return self.depth > 0 or bool(self.quote) or self.backslash

    def read(self, line: str) -> None:
        i, self.backslash = 0, False
        while i < len(line):
            if self.quote:
                end = line.find(self.quote, i)
                if end < 0:
                    return
                self.quote, i = "", end + 3
                continue
            char = line[i]
            if char == "#":
                return
            if line.startswith(('"""', "'''"), i):
                self.quote, i = line[i : i + 3], i + 3
            elif char in "\"'":
                i = _string_end(line, i)
            else:
                self.depth += (char in "([{") - (char in ")]}")
                self.depth = max(self.depth, 0)
                i += 1
        self.backslash = line.rstrip().endswith("\\")


def _string_end(line: str, start: int) -> int:
    """Where a one-line string that opens at ``start`` ends (past its closing quote)."""
    quote, i = line[start], start + 1
    while i < len(line) and line[i] != quote:
        i += 2 if line[i] == "\\" else 1
    return i + 1


def without_ipython_lines(text: str) -> str | None:
    """A script exported from a notebook (Colab's "Download .py" keeps ``!pip install``
    and ``%matplotlib`` lines) with those lines read as a cell's are: ``pass``, same line
    numbers. None when no line is one."""
    lines = text.split("\n")
    python = _as_python(["", *lines])  # a first line of "%%" is not the cell's magic here
    if python is None or python[1:] == lines:
        return None
    return "\n".join(python[1:])


def _parse_problem(text: str) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as error:
        return f"cannot parse: {error.msg} (line {error.lineno})"
    except (ValueError, RecursionError, MemoryError) as error:
        return f"cannot parse: {type(error).__name__}"
    return None


class _FileLocator:
    """Finds each source line's JSON string in the file, in order (one forward scan)."""

    def __init__(self, raw: str):
        self.raw = raw
        self.offset = 0
        self.line_starts = [0]
        for index, character in enumerate(raw):
            if character == "\n":
                self.line_starts.append(index + 1)

    def line_starts_of(self, entries: list[str]) -> list[tuple[int, int] | None]:
        """Where each line of a cell starts in the file, (line, column), or None where
        its string was not found. A cell's source is a list of strings, usually one per
        line, or one string holding every line (both are valid notebooks)."""
        starts: list[tuple[int, int] | None] = []
        at_line_start = True
        for entry in entries:
            found = self._find(entry)
            for start in _line_offsets(entry):
                if start == 0 and not at_line_start:
                    continue  # this entry goes on with the previous entry's line
                if found is None:
                    starts.append(None)
                    continue
                offset, ascii_only = found
                escaped = json.dumps(entry[:start], ensure_ascii=ascii_only)[1:-1]
                starts.append(self._line_and_column(offset + 1 + len(escaped)))
            at_line_start = entry.endswith("\n")
        return starts

    def _find(self, entry: str) -> tuple[int, bool] | None:
        """The offset of the entry's JSON string (its opening quote) after the last one
        found, and whether it was written with non-ASCII characters escaped."""
        for ascii_only in (False, True):
            encoded = json.dumps(entry, ensure_ascii=ascii_only)
            found = self.raw.find(encoded, self.offset)
            if found >= 0:
                self.offset = found + len(encoded)
                return found, ascii_only
        return None

    def _line_and_column(self, offset: int) -> tuple[int, int]:
        low, high = 0, len(self.line_starts) - 1
        while low < high:  # the last line start at or before offset
            middle = (low + high + 1) // 2
            if self.line_starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low + 1, offset - self.line_starts[low] + 1


def _line_offsets(entry: str) -> list[int]:
    """The offsets in ``entry`` where a line starts: 0, and after each line break that
    is not the entry's last character."""
    return [0] + [i + 1 for i, c in enumerate(entry) if c == "\n" and i + 1 < len(entry)]
