"""Messages of older releases: read from the published wheel each entry names, recorded.

An entry of messages.toml with a ``wheel`` field quotes a release that is not installed
(TensorFlow 2.13 words an error differently from 2.21). The test cannot read that release,
so this reads it once from the wheel, a file anyone can fetch from the package index and
check by its SHA-256, and records where each literal stands in the cited file. The record
(wheels.json) is what tests/test_symptom_index.py reconciles the entries with.

    pip download tensorflow-cpu==2.13.1 --no-deps --python-version 3.11 \\
        --only-binary=:all: -d /tmp/wheels
    python -m verification.symptoms.wheels /tmp/wheels/tensorflow_cpu-2.13.1-*.whl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import zipfile
from pathlib import Path

from verification.symptoms import Message, load

RECORD = Path(__file__).with_name("wheels.json")


def read_wheel(wheel: Path, messages: list[Message]) -> dict:
    """The record of ``wheel`` for the entries that name it: its SHA-256 and, per cited
    file, the file's SHA-256 and the line each literal starts on. A literal the file does
    not hold is an error naming the entry."""
    entries = [message for message in messages if message.wheel == wheel.name]
    if not entries:
        raise ValueError(f"{wheel.name}: no entry of messages.toml names this wheel")
    files: dict[str, dict] = {}
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for message in entries:
            member = _member(message, names)
            if member is None:
                raise ValueError(
                    f"{message.title!r}: {wheel.name} has no {message.package}/{message.path}"
                )
            text = archive.read(member).decode("utf-8")
            found = files.setdefault(
                message.path,
                {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "literals": {}},
            )
            for literal in message.literals:
                at = text.find(literal)
                if at < 0:
                    raise ValueError(f"{message.title!r}: {literal!r} is not in {member}")
                found["literals"][literal] = text.count("\n", 0, at) + 1
    return {"sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(), "files": files}


def _member(message: Message, names: set[str]) -> str | None:
    """The wheel's file for the path the entry cites. TensorFlow 2.0 and 2.1 wheels hold the
    package's files in tensorflow_core/ (the repository's tensorflow/, which ``path`` and
    the source link follow)."""
    for folder in (message.package, f"{message.package}_core"):
        if f"{folder}/{message.path}" in names:
            return f"{folder}/{message.path}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verification.symptoms.wheels")
    parser.add_argument("wheels", nargs="+", type=Path, help="wheels named by messages.toml")
    args = parser.parse_args(argv)
    messages = load()
    record = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}
    try:
        read = {wheel.name: read_wheel(wheel, messages) for wheel in args.wheels}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        print(f"wheels: {error}", file=sys.stderr)
        return 2
    record.update(read)
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wheels: recorded {len(read)} wheel(s) in {RECORD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
