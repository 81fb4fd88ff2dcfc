"""Run every page of the site where a reader runs it: a fresh environment with the locked
third-party packages and the `tf_retracing` wheel, and no folder of this repository.

Usage: python -m verification.harness.reader_pages WORKDIR PAGE...

Started in the background at the beginning of the test session (tests/conftest.py). In
WORKDIR it writes, in this order: the pages' jobs; ``wheel.txt`` (the wheel built from
snippets/ with the backend the site build uses, byte-identical to the one the site
publishes, which a test checks); the environment, then ``python.txt`` (its interpreter);
then one results file per page, written by ``standalone_runner.py`` run there with ``-I``
from a folder outside the repository. A page whose blocks cannot be extracted gets its
error as its results.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from verification.harness.codeblocks import ROOT, HarnessError, page_blocks, page_environment

UV = ROOT / ".tools" / "bin" / "uv"
RUNNER = Path(__file__).with_name("standalone_runner.py")


def results_file(workdir: Path, index: int) -> Path:
    return workdir / f"page-{index}.json"


def page_jobs(pages: list[Path], workdir: Path) -> list[dict]:
    jobs = []
    for index, page in enumerate(pages):
        out = results_file(workdir, index)
        try:
            blocks = page_blocks(page)
            environment = page_environment(page)
        except HarnessError as error:
            out.write_text(json.dumps({"error": str(error), "blocks": []}), encoding="utf-8")
            continue
        jobs.append(
            {
                "name": str(page),
                "out": str(out),
                "blocks": [job_block(b) for b in blocks],
                "environment": environment,
            }
        )
    return jobs


def job_block(block) -> dict:
    return {
        "code": block.code,
        "filename": f"{block.page} [block {block.index}]",
        "not_run": block.not_run_reason,
    }


def build_wheel(workdir: Path) -> Path:
    """The site's own wheel builder (docs/hooks/package_wheel.py), loaded from its file."""
    spec = importlib.util.spec_from_file_location(
        "package_wheel", ROOT / "docs" / "hooks" / "package_wheel.py"
    )
    hook = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = hook  # its dataclasses look their module up there
    spec.loader.exec_module(hook)
    wheel = hook.build_wheel(ROOT)
    path = workdir / wheel.name
    path.write_bytes(wheel.content)
    return path


def _uv(*args: str) -> str:
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("VIRTUAL_ENV", None)
    proc = subprocess.run(
        [str(UV), *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"uv {' '.join(args)} failed:\n{proc.stderr}")
    return proc.stdout


def reader_environment(workdir: Path, wheel: Path) -> Path:
    """A new virtual environment: the lock's third-party packages, then the wheel alone."""
    if not UV.exists():
        raise RuntimeError(f"{UV} is missing: run `make env` first")
    requirements = workdir / "requirements.txt"
    requirements.write_text(
        _uv("export", "--frozen", "--no-emit-project", "--no-hashes", "--all-groups")
    )
    venv = workdir / "venv"
    interpreter = os.path.realpath(ROOT / ".venv" / "bin" / "python")
    _uv("venv", "--python", interpreter, str(venv))
    python = venv / "bin" / "python"
    _uv("pip", "install", "--python", str(python), "-r", str(requirements))
    _uv("pip", "install", "--python", str(python), "--no-deps", str(wheel))
    return python


def main(argv: list[str]) -> int:
    workdir = Path(argv[1])
    jobs = page_jobs([Path(p) for p in argv[2:]], workdir)
    wheel = build_wheel(workdir)
    (workdir / "wheel.txt").write_text(str(wheel), encoding="utf-8")
    python = reader_environment(workdir, wheel)
    (workdir / "python.txt").write_text(str(python), encoding="utf-8")
    outside = workdir / "cwd"  # not the repository: nothing of it is importable
    outside.mkdir()
    shutil.copy(RUNNER, outside / RUNNER.name)
    (outside / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    command = [str(python), "-I", RUNNER.name, "jobs.json"]
    return subprocess.run(command, cwd=outside, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
