"""The one writer and the one safe reader of the results files the site renders
(benchmarks, version matrix, the explainer's and the linter's corpora): each is written
whole or not at all, and read without blocking on what is not a regular file."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path


def write_json_whole(path: Path, document: dict) -> None:
    """``document`` as JSON at ``path``: written to a temporary file beside it and renamed
    over it, so a reader never sees half a file; the temporary is removed on any failure.
    An existing file keeps its mode; a new one gets the umask's default, as any new file."""
    mode = path.stat().st_mode & 0o777 if path.exists() else _default_mode()
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(document, file, indent=1, ensure_ascii=False, allow_nan=False)
            file.write("\n")
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


class UnreadableFile(Exception):
    """A results file that cannot be read as text; the message names the file."""


def read_results_text(path: Path, max_bytes: int) -> str:
    """The text of the results file at ``path``. A FIFO, device or folder is refused
    without blocking on it, as is a file over ``max_bytes``, an empty one or one not UTF-8."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise UnreadableFile(f"{path}: cannot be read ({error.strerror})") from error
    try:
        info = os.fstat(descriptor)  # before fdopen, which refuses a folder with its own error
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{path}: not a regular file; a results file must be one")
        if info.st_size > max_bytes:
            raise UnreadableFile(
                f"{path}: {info.st_size} bytes; a results file has at most {max_bytes}"
            )
        with os.fdopen(os.dup(descriptor), "rb") as handle:
            raw = handle.read(max_bytes + 1)
    finally:
        os.close(descriptor)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableFile(
            f"{path}: not UTF-8 text (byte {error.start}: {error.reason})"
        ) from error
    if not text.strip():
        raise UnreadableFile(f"{path}: the file is empty")
    return text
