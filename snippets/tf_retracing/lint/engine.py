"""Run the rules over files: find the files, parse them, apply suppressions and settings.

Bad input never stops the run: a missing path, a binary file or a file that does not
parse becomes one ``InputError`` (exit status 2), and the other files are still checked.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tf_retracing.lint.config import Config
from tf_retracing.lint.model import ModuleModel
from tf_retracing.lint.rules import RULES, RULES_BY_CODE, rule_url

# Folders never entered while walking a directory (a path given explicitly is still read).
SKIPPED_FOLDERS = frozenset(
    {"__pycache__", "node_modules", "site-packages", "venv", "build", "dist", "site"}
)
REPORT_URL = "https://github.com/tf-retracing-guide/tf-retracing-guide/issues"
_SUPPRESSION = re.compile(
    r"#\s*tf-retracing:\s*(?P<kind>ignore-file|ignore)\b(?:\[(?P<codes>[^\]]*)\])?"
)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int  # 1-based
    column: int  # 1-based, in characters
    end_line: int
    end_column: int
    rule: str
    name: str
    message: str
    url: str

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class InputError:
    path: str
    message: str


class LintInputError(Exception):
    """A file that cannot be linted: missing, binary, not decodable or not valid Python."""


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files_checked: int = 0

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
        tree = ast.parse(text, filename=path)
    except SyntaxError as error:
        raise LintInputError(f"cannot parse: {error.msg} (line {error.lineno})") from None
    except ValueError as error:  # e.g. a null byte the check above did not see
        raise LintInputError(f"cannot parse: {error}") from None
    return tree, text


def _character_column(lines: list[str], line: int, byte_offset: int) -> int:
    """AST columns count UTF-8 bytes; editors and SARIF count characters."""
    if not 0 < line <= len(lines):
        return byte_offset + 1
    prefix = lines[line - 1].encode("utf-8")[:byte_offset]
    return len(prefix.decode("utf-8", errors="replace")) + 1


def lint_source(source: str | bytes, path: str = "<string>", config: Config | None = None):
    """The findings in one module's source, in line order; LintInputError if it is not
    Python. Suppression comments and the configuration's rule selection apply."""
    config = config or Config()
    data = source.encode("utf-8") if isinstance(source, str) else source
    tree, text = parse(data, path)
    suppressions = read_suppressions(text)
    if suppressions.unknown:
        line, code = suppressions.unknown[0]
        raise LintInputError(f"line {line}: unknown rule {code!r} in a suppression comment")
    model = ModuleModel(tree)
    lines = text.splitlines()
    findings = []
    for rule in RULES:
        if not model.relevant or not config.enabled(rule.code, path):
            continue
        try:
            found = list(rule.check(model))
        except Exception as error:  # a bug in a rule must not pass as "no findings"
            raise LintInputError(
                f"internal error in rule {rule.code} ({type(error).__name__}: {error}); "
                f"please report it at {REPORT_URL}"
            ) from error
        for node, message in found:
            if suppressions.hides(node.lineno, rule.code):
                continue
            findings.append(
                Finding(
                    path=path,
                    line=node.lineno,
                    column=_character_column(lines, node.lineno, node.col_offset),
                    end_line=node.end_lineno or node.lineno,
                    end_column=_character_column(
                        lines, node.end_lineno or node.lineno, node.end_col_offset or 0
                    ),
                    rule=rule.code,
                    name=rule.name,
                    message=message,
                    url=rule_url(rule, config.site_url),
                )
            )
    return sorted(set(findings), key=lambda f: (f.line, f.column, f.rule))


def _python_files(folder: Path) -> Iterator[Path]:
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(
            d for d in folders if not d.startswith(".") and d not in SKIPPED_FOLDERS
        )
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(root) / name


def collect_files(paths: Iterable[str]) -> Iterator[Path | InputError]:
    """The files to lint, in the order given, with an InputError for a path that is none."""
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = list(_python_files(path))
        elif path.is_file():
            found = [path]
        else:
            problem = (
                "not a regular file or a folder" if path.exists() else "no such file or folder"
            )
            yield InputError(given, problem)
            continue
        for file in found:
            if file not in seen:
                seen.add(file)
                yield file


def lint_paths(paths: Iterable[str], config: Config | None = None) -> LintResult:
    """Lint files and folders (folders: every ``*.py`` below them); every readable file is
    checked even when others are missing or broken."""
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
            data = path.read_bytes()
        except OSError as error:
            result.errors.append(InputError(shown, f"cannot read: {error.strerror}"))
            continue
        try:
            result.findings.extend(lint_source(data, shown, config))
        except LintInputError as error:
            result.errors.append(InputError(shown, str(error)))
            continue
        result.files_checked += 1
    return result
