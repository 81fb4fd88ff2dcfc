"""Run the corpus: each case wrapped (its ``watch`` calls are ``explain_retracing``) and
whole-program (``python -m tf_retracing.explain --json``), and its fix; score each run
against what the case expects."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import tempfile
from pathlib import Path

from verification.explainer_corpus.cases import Case
from verification.harness.preloaded_python import PreloadedPython

WRAPPED_RUNNER = Path(__file__).resolve().parent / "wrapped.py"
RUN_TIMEOUT_SECONDS = 180


def run_environment(package_path: str | None = None) -> dict[str, str]:
    """What every run reads: TensorFlow quiet, and (to score an older explainer) the
    folder its ``tf_retracing`` is imported from first."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": package_path or ""}
    env.pop("TF_RETRACING_ALLOW_UNTESTED", None)
    return env


@dataclasses.dataclass
class Run:
    """One run of a script and what the explainer reported in it."""

    exit_status: int | None  # None: killed at the timeout
    reported: list[tuple]  # distinct (function, argument, kind), in report order
    messages: list[str]
    stderr_tail: str

    def as_dict(self) -> dict:
        return {
            "exit_status": self.exit_status,
            "reported": [list(entry) for entry in self.reported],
            "messages": self.messages,
            "stderr_tail": self.stderr_tail,
        }


def run_wrapped(python: PreloadedPython, case: Case, folder: Path) -> Run:
    output = folder / "wrapped.json"
    done = _run(python, [str(WRAPPED_RUNNER), str(output), str(case.path)], folder)
    reasons = _read(output).get("reasons", [])
    return _scored(done, reasons)


def run_whole_program(python: PreloadedPython, script: Path, folder: Path) -> Run:
    output = folder / "report.json"
    args = ["-m", "tf_retracing.explain", "--json", str(output), str(script)]
    done = _run(python, args, folder)
    report = _read(output)
    reasons = [reason for function in report.get("functions", []) for reason in function["reasons"]]
    # Functions TensorFlow warned about that the run did not watch count as reported,
    # with the kind "unwatched"; their message is what the report says of them.
    reasons += [
        {
            "function": item["function"],
            "argument": None,
            "kind": "unwatched",
            "message": item["advice"],
        }
        for item in report.get("unwatched", [])
    ]
    return _scored(done, reasons)


def _run(python: PreloadedPython, args: list[str], folder: Path):
    try:
        return python.run(args, folder, timeout=RUN_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, None, "", f"killed after {RUN_TIMEOUT_SECONDS} s")


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _scored(done, reasons: list[dict]) -> Run:
    reported: list[tuple] = []
    for reason in reasons:
        entry = (reason["function"], reason["argument"], reason["kind"])
        if entry not in reported:
            reported.append(entry)
    tail = "\n".join(done.stderr.strip().splitlines()[-15:])
    return Run(done.returncode, reported, [reason["message"] for reason in reasons], tail)


def score(case: Case, run: Run) -> dict:
    """What a run got right: missing and false reports against the case's expectation."""
    reported = set(run.reported)
    missing = sorted(case.expect - reported, key=str)
    false = [entry for entry in run.reported if entry not in case.expect]
    return {
        **run.as_dict(),
        "missing": [list(entry) for entry in missing],
        "false": [list(entry) for entry in false],
        "passed": run.exit_status == 0 and not missing and not false,
    }


def run_case(python: PreloadedPython, case: Case) -> dict:
    """Every run of one case, scored."""
    result: dict = {
        "id": case.id,
        "source": case.source,
        "summary": case.summary,
        "expect": sorted([list(entry) for entry in case.expect], key=str),
    }
    with tempfile.TemporaryDirectory(prefix=f"corpus-{case.id}-") as temporary:
        folder = Path(temporary)
        result["whole_program"] = score(case, run_whole_program(python, case.path, folder))
        result["wrapped"] = score(case, run_wrapped(python, case, folder)) if case.wrapped else None
        result["fix"] = _fix(python, case, folder, result["whole_program"]) if case.fixed else None
    result["passed"] = all(
        part is None or part["passed"] for part in (result["whole_program"], result["wrapped"])
    ) and (result["fix"] is None or result["fix"]["passed"])
    return result


def _fix(python: PreloadedPython, case: Case, folder: Path, original: dict) -> dict:
    """The fix runs, retraces nothing, and applies advice the original's report gave."""
    run = run_whole_program(python, case.fixed, folder)
    advised = any(case.advice in message for message in original["messages"])
    return {
        "exit_status": run.exit_status,
        "advice": case.advice,
        "advice_printed": advised,
        "retraces": [list(entry) for entry in run.reported],
        "stderr_tail": run.stderr_tail,
        "passed": run.exit_status == 0 and not run.reported and advised,
    }
