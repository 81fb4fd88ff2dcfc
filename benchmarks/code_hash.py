"""The hash of the code a results file measured, so that a table cannot silently be older
than its code: a run records ``code_hash(paths)`` of what it measured (the package, the
scenario, the corpus's cases and runner), the build compares it with the code as it is
now, and a page shows when the two differ.

The hash is of file contents (path and bytes of every file under the paths, in sorted
order; bytecode caches left out), not of a commit, so an unrelated commit leaves it alone
and an uncommitted edit changes it.
"""

from __future__ import annotations

import hashlib
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
    """12 hex digits of the SHA-256 of the files under ``paths``."""
    digest = hashlib.sha256()
    for path in measured_files(paths, root):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:12]


def freshness(provenance: dict, root: Path = ROOT) -> str | None:
    """None when the code a run recorded (``code_hash`` of ``measured``) is the code as it
    is now; otherwise a sentence saying what changed, for the page to show."""
    recorded, paths = provenance.get("code_hash"), provenance.get("measured")
    if not recorded or not paths:
        return NO_HASH
    try:
        now = code_hash(paths, root)
    except FileNotFoundError as error:
        return f"The code this run measured has moved since ({error})."
    if now == recorded:
        return None
    return (
        f"The code this run measured ({', '.join(f'`{p}`' for p in paths)}) has changed "
        f"since: hash `{recorded}` then, `{now}` now. Run it again to update this table."
    )


def stale_admonition(provenance: dict, root: Path = ROOT) -> str:
    """A Markdown warning to put above a table whose run is older than its code; for a run
    that recorded no hash (made before hashes were kept), a plain sentence; else ''."""
    note = freshness(provenance, root)
    if note is None:
        return ""
    if note == NO_HASH:
        return f"{note}\n\n"
    return f'!!! warning "Older than its code"\n\n    {note}\n\n'
