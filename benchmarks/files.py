"""The one writer of the results files the site renders (benchmarks, version matrix, the
explainer's and the linter's corpora): each is written whole or not at all."""

from __future__ import annotations

import json
import os
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
