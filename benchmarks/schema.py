"""The results file format: writing, merging, loading and validating it.

A results file holds one device's results, one entry per scenario, each with its own
provenance (scenarios may be re-run one at a time). Loading checks every field and fails
with the file and the field's path, e.g. ``cpu.json: scenarios.loop_count.repetitions``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.scenarios.base import COLD, STEADY

SCHEMA_VERSION = 1
DEVICES = ("cpu", "gpu")
PROFILES = ("quick", "full")
RESULTS_DIR = Path(__file__).parent / "results"


class ResultsError(Exception):
    """A results file is missing or malformed; the message names the file and the field."""


@dataclass(frozen=True)
class ResultsFile:
    path: Path
    device: str
    scenarios: dict[str, dict[str, Any]]


def _known_names() -> tuple[str, ...]:
    from benchmarks.scenarios import NAMES

    return NAMES


# --- field checks: each returns an error message, or None when the value is fine ---------

Check = Callable[[Any], str | None]


def number(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"expected a number, found {json.dumps(value)}"
    if not math.isfinite(value):
        return f"expected a finite number, found {value}"
    return None


def positive(value: Any) -> str | None:
    return number(value) or (None if value > 0 else f"expected a positive number, found {value}")


def count(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return f"expected a whole number >= 0, found {json.dumps(value)}"
    return None


def text(value: Any) -> str | None:
    return None if isinstance(value, str) and value else f"expected text, found {json.dumps(value)}"


def optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def one_of(*allowed: Any) -> Check:
    return lambda value: (
        None if value in allowed else f"expected one of {list(allowed)}, found {json.dumps(value)}"
    )


def flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, found {json.dumps(value)}"


SUMMARY = {
    "median": positive,
    "p5": number,
    "p25": number,
    "p75": number,
    "p95": number,
    "n": count,
}
PROVENANCE = {
    "profile": one_of(*PROFILES),
    "device": one_of(*DEVICES),
    "tensorflow": text,
    "keras": text,
    "python": text,
    "platform": text,
    "cpu_model": text,
    "cpu_cores": count,
    "gpu": None,  # null, or an object checked below
    "date": text,
    "git_commit": text,
    "command": text,
}
VARIANT = {
    "name": text,
    "label": text,
    "traces": count,
    "traces_min": count,
    "retraces_per_1000_calls": number,
    "steady_pass_traces": count,
    "first_call_ms": positive,
    "cold_ms_per_call": SUMMARY,
    "steady_ms_per_call": SUMMARY,
    "cold_throughput_per_s": positive,
    "steady_throughput_per_s": positive,
    "rss_growth_mb": number,
    "peak_gpu_mb": optional(number),
}
RATIO = {
    "variant": text,
    "baseline": text,
    "pass": one_of(COLD, STEADY),
    "headline": flag,
    "median": positive,
    "ci_low": positive,
    "ci_high": positive,
    "repetitions": count,
}
SCENARIO = {
    "provenance": PROVENANCE,
    "title": text,
    "question": text,
    "baseline": text,
    "calls_per_pass": count,
    "repetitions": count,
    "parameters": None,  # an object of text values, checked below
    "variants": [VARIANT],
    "ratios": [RATIO],
    "peak_rss_mb": positive,
    "seconds": positive,
    "extra": None,  # scenario-specific: EXTRA below, or null
}
# Measurements of a scenario beyond its variants, by scenario name; others have null.
EXTRA = {
    "weight_cache": {
        "memory": [
            {
                "models": count,
                "shared_mb": number,
                "dedicated_mb": number,
                "shared_traces": count,
                "dedicated_traces": count,
            }
        ],
        "wrong_outputs": [
            {"variant": text, "label": text, "wrong": count, "calls": count, "threads": count}
        ],
    },
    "serving_architectures": {
        "architectures": [
            {
                "architecture": text,
                "variables": count,
                "batch": count,
                "route": text,
                "shared_traces": count,
                "dedicated_traces": count,
                "shared_us": positive,
                "dedicated_us": positive,
                "predict_on_batch_us": positive,
                "speedup_median": positive,
                "speedup_ci_low": positive,
                "speedup_ci_high": positive,
                "rounds": count,
            }
        ],
    },
    "trace_memory": {
        "memory": [
            {
                "operations": count,
                "traces": count,
                "grown_mb": number,
                "kb_per_trace": number,
                "after_del_grown_mb": number,
                "signature_traces": count,
                "signature_grown_mb": number,
            }
        ],
    },
}


def _check(value: Any, spec: Any, where: str, errors: list[str]) -> None:
    if spec is None:
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            errors.append(f"{where}: expected an object, found {json.dumps(value)[:60]}")
            return
        for key, inner in spec.items():
            if key not in value:
                errors.append(f"{where}.{key}: missing field")
            else:
                _check(value[key], inner, f"{where}.{key}", errors)
    elif isinstance(spec, list):
        if not isinstance(value, list) or not value:
            errors.append(f"{where}: expected a non-empty list")
            return
        for index, item in enumerate(value):
            _check(item, spec[0], f"{where}[{index}]", errors)
    else:
        problem = spec(value)
        if problem:
            errors.append(f"{where}: {problem}")


def _non_finite(value: Any, where: str, errors: list[str]) -> None:
    """NaN or infinity anywhere, including free-form parts such as ``extra``."""
    if isinstance(value, float) and not math.isfinite(value):
        errors.append(f"{where}: expected a finite number, found {value}")
    elif isinstance(value, dict):
        for key, inner in value.items():
            _non_finite(inner, f"{where}.{key}", errors)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _non_finite(inner, f"{where}[{index}]", errors)


def _check_scenario(name: str, result: Any, device: str) -> list[str]:
    where = f"scenarios.{name}"
    if name not in _known_names():
        return [f"{where}: unknown scenario (known: {', '.join(_known_names())})"]
    errors: list[str] = []
    _check(result, SCENARIO, where, errors)
    if errors:
        return errors  # the checks below rely on the fields above
    provenance = result["provenance"]
    if provenance["device"] != device:
        errors.append(f"{where}.provenance.device: {provenance['device']!r} in a {device} file")
    extra_spec = EXTRA.get(name)
    if extra_spec is None and result["extra"] is not None:
        errors.append(f"{where}.extra: expected null for this scenario")
    if extra_spec is not None:
        _check(result["extra"], extra_spec, f"{where}.extra", errors)
    gpu = provenance["gpu"]
    if gpu is not None:
        _check(gpu, {"name": text, "driver": text}, f"{where}.provenance.gpu", errors)
    if not all(isinstance(v, str) for v in result["parameters"].values()):
        errors.append(f"{where}.parameters: expected an object of text values")
    variants = [variant["name"] for variant in result["variants"]]
    if result["baseline"] not in variants:
        errors.append(f"{where}.baseline: {result['baseline']!r} is not one of {variants}")
    for index, ratio in enumerate(result["ratios"]):
        if ratio["variant"] not in variants:
            errors.append(f"{where}.ratios[{index}].variant: {ratio['variant']!r} not measured")
        if not ratio["ci_low"] <= ratio["median"] <= ratio["ci_high"]:
            errors.append(f"{where}.ratios[{index}]: median outside its interval")
    return errors


def validate(data: Any) -> list[str]:
    """Every problem with a parsed results document, each as 'field.path: problem'."""
    if not isinstance(data, dict):
        return ["(top level): expected an object"]
    errors: list[str] = []
    _non_finite(data, "(top level)", errors)
    if errors:
        return [error.replace("(top level).", "") for error in errors]
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        return [f"schema_version: expected {SCHEMA_VERSION}, found {json.dumps(version)}"]
    _check(data, {"device": one_of(*DEVICES), "scenarios": None}, "(top level)", errors)
    scenarios = data.get("scenarios")
    if not isinstance(scenarios, dict) or not scenarios:
        errors.append("scenarios: expected a non-empty object of scenario results")
    if errors:
        return [error.replace("(top level).", "") for error in errors]
    for name, result in scenarios.items():
        errors += _check_scenario(name, result, data["device"])
    return errors


def load_file(path: Path) -> ResultsFile:
    try:
        raw = path.read_text("utf-8")
    except OSError as error:
        raise ResultsError(f"{path}: cannot read: {error.strerror}") from error
    if not raw.strip():
        raise ResultsError(f"{path}: the file is empty")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ResultsError(
            f"{path}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from error
    errors = validate(data)
    if errors:
        raise ResultsError(f"{path}: " + f"\n{path}: ".join(errors))
    return ResultsFile(path=path, device=data["device"], scenarios=data["scenarios"])


def load_results(directory: Path = RESULTS_DIR) -> dict[str, ResultsFile]:
    """Every results file in the folder, by device; fails on the first malformed file."""
    if not directory.is_dir():
        raise ResultsError(f"{directory}: results folder not found; run `python -m benchmarks run`")
    paths = sorted(directory.glob("*.json"))
    if not paths:
        raise ResultsError(
            f"{directory}: no results files (*.json); run `python -m benchmarks run`"
        )
    loaded: dict[str, ResultsFile] = {}
    for path in paths:
        results = load_file(path)
        if results.device in loaded:
            raise ResultsError(
                f"{path}: device: a second {results.device} results file "
                f"(the first is {loaded[results.device].path.name})"
            )
        loaded[results.device] = results
    return loaded


def write_results(path: Path, device: str, scenarios: dict[str, dict[str, Any]]) -> None:
    """Write (or update) the device's results file atomically; other scenarios are kept.

    A lock on its folder serialises writers, so two runs updating different scenarios
    both land; the file keeps its mode (a new one gets the umask's default).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        merged: dict[str, dict[str, Any]] = {}
        if path.exists():
            previous = load_file(path)
            if previous.device != device:
                raise ResultsError(f"{path}: device: holds {previous.device} results, not {device}")
            merged.update(previous.scenarios)
        merged.update(scenarios)
        document = {"schema_version": SCHEMA_VERSION, "device": device, "scenarios": merged}
        problems = validate(document)
        if problems:
            raise ResultsError(f"{path}: refusing to write invalid results: " + "; ".join(problems))
        mode = path.stat().st_mode & 0o777 if path.exists() else _default_mode()
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, suffix=".tmp", delete=False, encoding="utf-8"
        ) as handle:
            json.dump(document, handle, indent=1, allow_nan=False)
            handle.write("\n")
        os.chmod(handle.name, mode)
        os.replace(handle.name, path)


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on the file's folder: no lock file is left behind."""
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)  # closing releases the lock


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
