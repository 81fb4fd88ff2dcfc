"""Print the section of docs/changelog.md for one version: the release notes of its tag.

Usage: python .ci/changelog_section.py VERSION. Exits 1, naming the file, when the
changelog has no section for VERSION (a release is never published without its notes).
"""

from __future__ import annotations

import sys
from pathlib import Path

CHANGELOG = Path(__file__).resolve().parents[1] / "docs" / "changelog.md"


def section(text: str, version: str) -> str | None:
    """The body under the heading ``## VERSION (...)``, up to the next ``## `` heading."""
    lines = text.splitlines()
    for start, line in enumerate(lines):
        if line.startswith(f"## {version} (") or line == f"## {version}":
            end = next(
                (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                len(lines),
            )
            return "\n".join(lines[start + 1 : end]).strip() + "\n"
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python .ci/changelog_section.py VERSION", file=sys.stderr)
        return 2
    body = section(CHANGELOG.read_text(encoding="utf-8"), argv[1])
    if body is None:
        print(f"{CHANGELOG}: no section '## {argv[1]} (...)'", file=sys.stderr)
        return 1
    sys.stdout.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
