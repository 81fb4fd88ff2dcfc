"""A reader's fresh environment: the locked third-party packages, the wheel from the
built site, and no repository folder on the path; every page's blocks pass there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.harness.codeblocks import ROOT, documented_pages, output_mismatch, page_blocks

UV = ROOT / ".tools" / "bin" / "uv"


def _uv(*args: str, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [str(UV), *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True, **kwargs
    )


@pytest.fixture(scope="module")
def reader_python(tmp_path_factory, built_site) -> Path:
    if not UV.exists():
        pytest.fail(f"{UV} is missing: run `make env` first")
    work = tmp_path_factory.mktemp("reader")
    requirements = work / "requirements.txt"
    exported = _uv("export", "--frozen", "--no-emit-project", "--no-hashes", "--all-groups")
    requirements.write_text(exported.stdout)
    python = work / "venv" / "bin" / "python"
    interpreter = Path(os.path.realpath(ROOT / ".venv" / "bin" / "python"))
    _uv("venv", "--python", str(interpreter), str(work / "venv"))
    _uv("pip", "install", "--python", str(python), "-r", str(requirements))
    wheels = sorted((built_site / "downloads").glob("tf_retracing-*.whl"))
    assert len(wheels) == 1, wheels
    _uv("pip", "install", "--python", str(python), "--no-deps", str(wheels[0]))
    return python


@pytest.mark.slow
def test_every_page_passes_with_the_wheel_from_the_site(reader_python, tmp_path):
    pages = {str(page.relative_to(ROOT)): page_blocks(page) for page in documented_pages()}
    blocks_file = tmp_path / "blocks.json"
    blocks_file.write_text(json.dumps({n: [b.code for b in bs] for n, bs in pages.items()}))
    runner = tmp_path / "runner.py"
    shutil.copy(ROOT / "tests" / "harness" / "standalone_runner.py", runner)
    results_file = tmp_path / "results.json"
    subprocess.run(
        [str(reader_python), "-I", str(runner), str(blocks_file), str(results_file)],
        cwd=tmp_path,  # not the repository: nothing of it is importable
        check=True,
        env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
    )
    results = json.loads(results_file.read_text())
    problems = []
    for name, blocks in pages.items():
        ran = results[name]
        for block, result in zip(blocks, ran, strict=False):  # ran stops at a failure
            if result["status"] != "passed":
                problems.append(f"{block.label} {result['status']}:\n{result['error']}")
            elif (mismatch := output_mismatch(block, result["output"])) is not None:
                problems.append(mismatch)
        if len(ran) < len(blocks) and not problems:
            problems.append(f"{name}: only {len(ran)} of {len(blocks)} blocks ran")
    executed = sum(len(r) for r in results.values())
    assert not problems, "\n\n".join(problems[:5])
    assert executed == sum(len(b) for b in pages.values()) > 0


def test_the_reader_environment_cannot_see_the_repository(reader_python, tmp_path):
    probe = (
        "import importlib.util, tf_retracing; "
        "print(tf_retracing.__file__); "
        "print([m for m in ('snippets', 'benchmarks', 'tests') if importlib.util.find_spec(m)])"
    )
    out = subprocess.run(
        [str(reader_python), "-I", "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    location, visible = out.stdout.splitlines()[-2:]
    assert "site-packages" in location and str(ROOT) not in location
    assert visible == "[]"
