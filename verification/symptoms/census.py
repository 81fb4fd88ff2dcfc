"""The census of the symptom index: every message that TensorFlow's and Keras's tracing
sources raise or log, each either in the index (messages.toml) or set aside with its reason
(set_aside.toml).

The index promises the messages a reader meets around ``tf.function`` and tracing. That
promise is checked here against the installed source rather than against what readers
happened to paste: each ``raise`` and each logged or ``warnings.warn`` warning of the files
in SOURCES whose text holds a string literal is a statement; a statement is indexed when
one of an index entry's literals (of the same file) is in its text, and set aside when a
set-aside entry of its file quotes a piece of it. A statement that is neither, and a
set-aside entry that matches nothing or matches an indexed statement, is an error naming
the file and line. A message built into a variable first (``msg = ...; raise E(msg)``)
holds no literal at its ``raise`` and is not counted: the census reads literals, not flow.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from verification.symptoms import REPOSITORIES, Message

SET_ASIDE = Path(__file__).resolve().parent / "set_aside.toml"
# The files that trace a Python function and reject what it does while tracing, as path ->
# package: TensorFlow's tf.function and its concrete functions, how arguments become trace
# types, the graph a trace builds, AutoGraph's conversion and operators, and a symbolic
# tensor and its shape (what a traced function's code receives); Keras 3's symbolic input
# (a KerasTensor) and the TensorFlow trainer that traces its steps. Paths are unique across
# the two packages (Keras 3's begin with src/).
SOURCES = {
    "python/eager/polymorphic_function/polymorphic_function.py": "tensorflow",
    "python/eager/polymorphic_function/concrete_function.py": "tensorflow",
    "python/eager/polymorphic_function/function_type_utils.py": "tensorflow",
    "python/eager/polymorphic_function/tracing_compilation.py": "tensorflow",
    "core/function/polymorphism/function_type.py": "tensorflow",
    "core/function/trace_type/default_types.py": "tensorflow",
    "core/function/trace_type/trace_type_builder.py": "tensorflow",
    "python/framework/func_graph.py": "tensorflow",
    "python/framework/tensor.py": "tensorflow",
    "python/framework/tensor_shape.py": "tensorflow",
    "python/autograph/impl/api.py": "tensorflow",
    "python/autograph/operators/control_flow.py": "tensorflow",
    "python/autograph/operators/py_builtins.py": "tensorflow",
    "python/autograph/pyct/parser.py": "tensorflow",
    "src/backend/common/keras_tensor.py": "keras",
    "src/backend/tensorflow/trainer.py": "keras",
}

# Why a statement is not in the index. Closed: a new reason is a decision about what the
# index promises, made here, not in an entry.
REASONS = {
    "internal": "a consistency check inside TensorFlow: reaching it is a TensorFlow bug, "
    "not something a reader's code does",
    "argument": "a wrong argument to an API, which the message names; how a function is "
    "traced does not change it",
    "tf1": "TensorFlow 1's sessions (`eval`, `Session`), which `tf.function` replaces",
    "experimental": "an experimental or internal API that this guide does not teach "
    "(parallel variables, compiler IR, trace-type serialization, AutoGraph's internals)",
    "eager": "raised the same by eager code, outside any `tf.function`: not a tracing error",
    "unreached": "not printed by the programs we wrote to reach it on this release",
    "keras-api": "about Keras's own API (compiling, `fit`'s arguments, deprecated methods), "
    "not about tracing",
    "backend": "raised only under another Keras backend (JAX)",
}

# A literal piece shorter than this is a connective ("calls to", " for "), not a message.
MIN_PIECE = 12
_LOGGERS = {"warning", "warn", "log_first_n", "error"}


@dataclass(frozen=True)
class Statement:
    package: str
    path: str
    line: int
    kind: str  # the exception's class, or warning:<the logging call>
    pieces: tuple[str, ...]  # the string literals of its text

    @property
    def text(self) -> str:
        return " ".join(self.pieces)

    def __str__(self) -> str:
        return f"{self.package}/{self.path}:{self.line} ({self.kind}) {self.text[:90]!r}"


@dataclass(frozen=True)
class SetAside:
    path: str
    says: str
    reason: str


def source_root(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.origin:
        raise RuntimeError(f"census: {package} is not installed")
    return Path(spec.origin).parent


def statements(path: str, source: str, package: str = "tensorflow") -> list[Statement]:
    """The raises and logged warnings of ``source`` (the file at ``path`` of ``package``)
    that hold a string literal."""
    found = []
    for node in ast.walk(ast.parse(source, filename=path)):
        said = _what_it_says(node)
        if said is None:
            continue
        kind, expression = said
        pieces = tuple(
            sub.value
            for sub in ast.walk(expression)
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str)
        )
        if any(len(piece.strip()) >= MIN_PIECE for piece in pieces):
            found.append(Statement(package, path, node.lineno, kind, pieces))
    return sorted(found, key=lambda statement: statement.line)


def _what_it_says(node: ast.AST) -> tuple[str, ast.AST] | None:
    if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
        function = node.exc.func
        name = getattr(function, "id", None) or getattr(function, "attr", "raise")
        return name, node.exc
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = getattr(node.func.value, "id", "")
        if node.func.attr in _LOGGERS and owner in {"logging", "tf_logging", "warnings"}:
            return f"warning:{owner}.{node.func.attr}", node
    return None


def load_set_aside(path: Path = SET_ASIDE, sources: dict[str, str] = SOURCES) -> list[SetAside]:
    """The set-aside entries; a missing field, an unknown reason or a file outside
    ``sources`` names the entry."""
    with path.open("rb") as handle:
        entries = tomllib.load(handle).get("statement", [])
    kept = []
    for number, entry in enumerate(entries, 1):
        missing = [name for name in ("path", "says", "reason") if not entry.get(name)]
        if missing or set(entry) - {"path", "says", "reason"}:
            raise ValueError(f"{path}: statement {number} needs exactly path, says and reason")
        if entry["reason"] not in REASONS:
            raise ValueError(
                f"{path}: statement {number} ({entry['says']!r}): reason must be one of "
                f"{sorted(REASONS)}, not {entry['reason']!r}"
            )
        if entry["path"] not in sources:
            raise ValueError(
                f"{path}: statement {number}: {entry['path']} is not one of the census's files"
            )
        kept.append(SetAside(**entry))
    return kept


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def indexed_by(statement: Statement, messages: Iterable[Message]) -> list[Message]:
    """The index entries of the statement's file one of whose literals is in its text."""
    text = _one_line("".join(statement.pieces))
    return [
        message
        for message in messages
        if message.package == statement.package
        and message.path == statement.path
        and not message.wheel  # an older release's text: another file's lines
        and any(
            len(literal.strip()) >= MIN_PIECE and _one_line(literal) in text
            for literal in message.literals
        )
    ]


@dataclass
class Census:
    indexed: dict[Statement, list[Message]]
    set_aside: dict[Statement, SetAside]
    unaccounted: list[Statement]
    unused: list[SetAside]  # set-aside entries that quote no statement
    doubled: list[tuple[Statement, SetAside]]  # indexed and set aside at once

    def errors(self) -> list[str]:
        return (
            [f"neither indexed nor set aside: {statement}" for statement in self.unaccounted]
            + [f"set aside, but no statement says it: {a.path} {a.says!r}" for a in self.unused]
            + [f"indexed and set aside: {s} ({a.says!r})" for s, a in self.doubled]
        )


def take(
    messages: list[Message],
    set_aside: list[SetAside],
    root: Path | None = None,
    sources: dict[str, str] = SOURCES,
) -> Census:
    """Reconcile the statements of ``sources`` (path -> package) with the index and the
    set-aside list; each file is read from its installed package, or under ``root``."""
    census = Census({}, {}, [], [], [])
    used: set[SetAside] = set()
    for path, package in sources.items():
        folder = root or source_root(package)
        text = (folder / path).read_text(encoding="utf-8")
        for statement in statements(path, text, package):
            answers = indexed_by(statement, messages)
            quoted = [a for a in set_aside if a.path == path and a.says in statement.text]
            used.update(quoted)
            if answers:
                census.indexed[statement] = answers
                census.doubled.extend((statement, a) for a in quoted)
            elif quoted:
                census.set_aside[statement] = quoted[0]
            else:
                census.unaccounted.append(statement)
    census.unused = [a for a in set_aside if a not in used]
    return census


MARKER = "<!-- symptom census -->"


def render(census: Census, versions: dict[str, str]) -> str:
    """The census as the index page shows it: how many messages the files hold, how many
    are here, and each one set aside with its reason and source line; ``versions`` maps
    each package to its installed version."""
    if census.errors():
        raise ValueError("symptom census: " + "; ".join(census.errors()))
    counts = {reason: 0 for reason in REASONS}
    for aside in census.set_aside.values():
        counts[aside.reason] += 1
    total = len(census.indexed) + len(census.set_aside)
    read = " and ".join(
        f"{REPOSITORIES[package][0]} {versions[package]}'s"
        for package in dict.fromkeys(SOURCES.values())
    )
    lines = [
        f"These messages were checked against {read} own source. The {len(SOURCES)} "
        "files that trace a function, build its graph, convert it with AutoGraph, hand it "
        "symbolic tensors or trace Keras's steps raise or log "
        f"{total} messages with text of their own: {len(census.indexed)} are on this page, "
        f"and the other {len(census.set_aside)} are left out for the reasons below. A test "
        "fails when these files gain a message that is neither here nor left out with its "
        "reason.",
        "",
        "| left out | because the message is | messages |",
        "|---|---|---:|",
        *(f"| {reason} | {REASONS[reason]} | {counts[reason]} |" for reason in REASONS),
        "",
        f'??? note "The {len(census.set_aside)} messages left out, each with its source line"',
        "",
    ]
    for statement, aside in sorted(census.set_aside.items(), key=lambda item: str(item[0])):
        url = REPOSITORIES[statement.package][1]
        where = url.format(version=versions[statement.package], path=statement.path)
        text = _one_line(statement.text).replace("`", "'")
        lines.append(
            f"    - `{text[:100]}` ([`{statement.path.rsplit('/', 1)[-1]}:{statement.line}`]"
            f"({where}#L{statement.line})): {aside.reason}"
        )
    return "\n".join(lines) + "\n"
