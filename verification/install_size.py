"""What ``make build`` and ``make test`` download: the wheels of their dependency groups.

``python -m verification.install_size record`` writes ``install_size.json`` beside this file
from ``uv.lock``: per set of groups, the wheels ``uv`` would install on this machine's
platform (the best match of each locked package for its tags) and their bytes as the lock
records them. The README cites the rounded figures; ``tests/test_install_size.py`` checks
that the file matches the lock and the README matches the file.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).with_name("install_size.json")
UV = ROOT / ".tools" / "bin" / "uv"
# What each make target syncs (.ci/bootstrap's arguments in the Makefile).
GROUPS = {
    "build": ["--no-default-groups", "--group", "docs"],  # make serve, make build
    "test": [],  # make test: the default groups (site, dev)
}


def lock_hash() -> str:
    return hashlib.sha256((ROOT / "uv.lock").read_bytes()).hexdigest()[:12]


def wheels(groups: list[str]) -> list[tuple[str, int]]:
    """(file name, bytes) of the wheel this platform installs for each locked package."""
    from packaging.markers import Marker
    from packaging.tags import sys_tags
    from packaging.utils import parse_wheel_filename

    exported = subprocess.run(
        [
            str(UV),
            "export",
            "--quiet",
            "--frozen",
            "--format",
            "pylock.toml",
            "--no-emit-project",
            *groups,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    preference = {tag: rank for rank, tag in enumerate(sys_tags())}
    chosen = []
    for package in tomllib.loads(exported)["packages"]:
        if "marker" in package and not Marker(package["marker"]).evaluate({"extra": ""}):
            continue
        fitting = [
            (min(preference[t] for t in tags if t in preference), wheel)
            for wheel in package.get("wheels", [])
            if (tags := parse_wheel_filename(_file_name(wheel))[3]) & preference.keys()
        ]
        if not fitting:
            raise LookupError(f"uv.lock: no wheel of {package['name']} fits this platform")
        wheel = min(fitting, key=lambda pair: pair[0])[1]
        chosen.append((_file_name(wheel), wheel["size"]))
    return chosen


def _file_name(wheel: dict) -> str:
    return wheel.get("name") or wheel["url"].rsplit("/", 1)[1]


def measure() -> dict:
    import platform

    return {
        "lock": lock_hash(),
        "platform": f"{platform.system()} {platform.machine()}, CPython "
        f"{sys.version_info.major}.{sys.version_info.minor}",
        "targets": {
            target: {
                "packages": len(found := wheels(groups)),
                "megabytes": round(sum(size for _, size in found) / 1e6),
                "tensorflow_megabytes": round(
                    sum(size for name, size in found if name.startswith("tensorflow-")) / 1e6
                ),
            }
            for target, groups in GROUPS.items()
        },
    }


def rounded(megabytes: int) -> int:
    """The figure the README gives: to the nearest 10 MB."""
    return round(megabytes, -1)


def main(argv: list[str]) -> int:
    if argv != ["record"]:
        print("usage: python -m verification.install_size record", file=sys.stderr)
        return 2
    RESULTS.write_text(json.dumps(measure(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
