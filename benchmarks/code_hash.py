"""The hash of the code a results file measured, so that a table cannot silently be older
than its code: a run records ``code_hash(paths)`` of what it measured (the package, the
scenario, the corpus's cases and runner), the build compares it with the code as it is
now, and a page shows when the two differ.

The hash is of file contents (path and contents of every file under the paths, in sorted
order; bytecode caches left out), not of a commit, so an unrelated commit leaves it alone
and an uncommitted edit changes it.

Two hashes are kept. ``code_hash`` is of the bytes of every file, as every run has
recorded since hashes were kept. ``code_ast_hash`` reads each Python file as its syntax
tree with comments and docstrings left out (``ast.dump`` of the parsed module, docstrings
removed), so that rewording a comment or a docstring does not mark a run stale while any
change the interpreter sees (a constant, a name, an operator, an import) does; other files
are hashed by their bytes in both. A run records both; ``freshness`` compares the syntax
tree hash when the run recorded one and the byte hash otherwise.

Why both, and not the new hash alone: a run recorded before the syntax tree hash existed
has only its byte hash, and nothing tells which code it measured except that hash. Its
syntax tree hash may be derived only when the byte hash still matches the code as it is
now (then the run provably measured this code): that is ``migrate`` below
(``python -m benchmarks.code_hash migrate FILE``). A run whose byte hash no longer matches
stays compared by bytes, and so stays stale until it is run again: deriving its syntax tree
hash from today's code would call it fresh without knowing that it is.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path

from benchmarks import ROOT

NO_HASH = "This run recorded no hash of the code it measured: it may be older than that code."
_SKIPPED_PARTS = {"__pycache__", ".pytest_cache"}


def measured_files(paths: Iterable[str], root: Path = ROOT) -> list[Path]:
    """Every file under ``paths`` (files or folders, relative to ``root``), sorted.
    Raises ``FileNotFoundError`` naming a path that does not exist."""
    files: set[Path] = set()
    for relative in paths:
        path = root / relative
        if "*" in relative:  # a pattern, such as folder/*.py
            files.update(found for found in root.glob(relative) if found.is_file())
        elif path.is_file():
            files.add(path)
        elif path.is_dir():
            files.update(
                found
                for found in path.rglob("*")
                if found.is_file()
                and not _SKIPPED_PARTS.intersection(found.relative_to(root).parts)
                and found.suffix != ".pyc"
            )
        else:
            raise FileNotFoundError(f"code_hash: {relative} does not exist under {root}")
    return sorted(files)


def code_hash(paths: Iterable[str], root: Path = ROOT) -> str:
    """12 hex digits of the SHA-256 of the files under ``paths``, byte for byte."""
    return _digest(paths, root, lambda path: path.read_bytes())


def code_ast_hash(paths: Iterable[str], root: Path = ROOT) -> str:
    """12 hex digits of the SHA-256 of the files under ``paths``, each Python file as its
    syntax tree without comments or docstrings (``normalised_source``)."""
    return _digest(paths, root, normalised_source)


def code_hashes(paths: Iterable[str], root: Path = ROOT) -> dict[str, str]:
    """Both hashes, as a run records them in its provenance."""
    paths = list(paths)
    return {"code_hash": code_hash(paths, root), "code_ast_hash": code_ast_hash(paths, root)}


def _digest(paths: Iterable[str], root: Path, contents) -> str:
    digest = hashlib.sha256()
    for path in measured_files(paths, root):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(contents(path))
        digest.update(b"\0")
    return digest.hexdigest()[:12]


def normalised_source(path: Path) -> bytes:
    """A Python file as ``ast.dump`` of its tree without docstrings (comments never reach
    the tree; line and column numbers are left out of the dump, so moving code down a line
    changes nothing); any other file, or a Python file that does not parse, as its bytes.

    The dump's layout belongs to the Python version that reads it: the same file can dump
    differently under another release. That can only make a run look stale, never fresh."""
    raw = path.read_bytes()
    if path.suffix != ".py":
        return raw
    return _normalised_python(raw)


# A build asks for the same files' trees dozens of times (each results table's freshness,
# each scenario's figures); keyed by the file's bytes, a cached tree cannot be stale.
@functools.lru_cache(maxsize=1024)
def _normalised_python(raw: bytes) -> bytes:
    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError):
        return raw
    for node in ast.walk(tree):
        _drop_docstring(node)
    return ast.dump(tree, annotate_fields=True, include_attributes=False).encode()


_WITH_DOCSTRING = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _drop_docstring(node: ast.AST) -> None:
    """Remove the string a module, class or function body starts with (its docstring).
    A body that was only a docstring becomes ``pass``, which behaves the same."""
    if not isinstance(node, _WITH_DOCSTRING) or not node.body:
        return
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        node.body = node.body[1:] or [ast.Pass()]


def freshness(provenance: dict, root: Path = ROOT) -> str | None:
    """None when the code a run recorded (its hash of ``measured``) is the code as it is
    now; otherwise a sentence saying what changed, for the page to show. The syntax tree
    hash is compared when the run recorded one, the byte hash otherwise (see the module's
    docstring for why a run keeps the hash it recorded)."""
    paths = provenance.get("measured")
    kind = "code_ast_hash" if provenance.get("code_ast_hash") else "code_hash"
    recorded = provenance.get(kind)
    if not recorded or not paths:
        return NO_HASH
    try:
        now = HASHES[kind](paths, root)
    except FileNotFoundError as error:
        return f"The code this run measured has moved since ({error})."
    if now == recorded:
        return None
    return (
        f"The code this run measured ({', '.join(f'`{p}`' for p in paths)}) has changed "
        f"since: hash `{recorded}` then, `{now}` now. Run it again to update this table."
    )


HASHES = {"code_hash": code_hash, "code_ast_hash": code_ast_hash}


def migrate(provenance: dict, root: Path = ROOT) -> bool:
    """Add ``code_ast_hash`` to a run that recorded only the byte hash, when that byte hash
    is the code's as it is now (so the run measured this very code); True when added. A
    run whose code has changed since is left as it is: it stays stale until run again."""
    paths = provenance.get("measured")
    if provenance.get("code_ast_hash") or not provenance.get("code_hash") or not paths:
        return False
    try:
        if code_hash(paths, root) != provenance["code_hash"]:
            return False
    except FileNotFoundError:
        return False
    provenance["code_ast_hash"] = code_ast_hash(paths, root)
    return True


def stale_admonition(provenance: dict, root: Path = ROOT) -> str:
    """A Markdown warning to put above a table whose run is older than its code; for a run
    that recorded no hash (made before hashes were kept), a plain sentence; else ''."""
    note = freshness(provenance, root)
    if note is None:
        return ""
    if note == NO_HASH:
        return f"{note}\n\n"
    return f'!!! warning "Older than its code"\n\n    {note}\n\n'


def _runs(document: dict) -> list[tuple[str, dict]]:
    """The places a results file keeps a run's hashes: each scenario of a benchmark file,
    or the ``provenance`` of a corpus file."""
    if isinstance(document.get("scenarios"), dict):
        return list(document["scenarios"].items())
    if isinstance(document.get("provenance"), dict):
        return [("provenance", document["provenance"])]
    return []


def migrate_file(path: Path, root: Path = ROOT) -> list[str]:
    """Migrate every run of a results file (``migrate``), rewrite it if one changed, and
    say what happened to each run, one line each."""
    document = json.loads(path.read_text(encoding="utf-8"))
    lines, changed = [], False
    for name, run in _runs(document):
        if migrate(run, root):
            changed = True
            lines.append(f"{path}: {name}: code_ast_hash {run['code_ast_hash']} added")
        elif run.get("code_ast_hash"):
            lines.append(f"{path}: {name}: already has a code_ast_hash")
        else:
            lines.append(f"{path}: {name}: left as it is ({freshness(run, root) or 'no hash'})")
    if changed:
        path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] != ["migrate"] or len(sys.argv) < 3:
        sys.exit("usage: python -m benchmarks.code_hash migrate RESULTS.json ...")
    for results_file in sys.argv[2:]:
        print("\n".join(migrate_file(Path(results_file))))
