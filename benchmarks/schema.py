"""The results file format: writing, merging, loading and validating it.

A results file holds one device's results, one entry per scenario, each with its own
provenance (scenarios may be re-run one at a time). Loading checks every field, and every
cross-reference the renderer and the claims rely on, and fails with the file and the
field's path, e.g. ``cpu.json: scenarios.loop_count.repetitions``. A file that loads can
be rendered: nothing is left to fail half-way through a build.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import math
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.claims import variants_claims_use
from benchmarks.files import UnreadableFile, read_results_text, write_json_whole
from benchmarks.json_schema import (
    ANYTHING,
    FLAG,
    fields,
    list_of,
    mapping_of,
    one_of,
    optional,
    problems,
    shown,
)
from benchmarks.scenarios import NAMES, SCENARIOS
from benchmarks.scenarios.base import COLD, STEADY

SCHEMA_VERSION = 1
DEVICES = ("cpu", "gpu")
PROFILES = ("quick", "full")
RESULTS_DIR = Path(__file__).parent / "results"

# Limits far above any real results file, so that a hostile or broken one is refused with
# a message instead of exhausting the parser, the renderer or the build's time.
MAX_BYTES = 2_000_000  # the full CPU file is about 45 kB
MAX_DEPTH = 12  # the format nests 6 levels deep
MAX_INTEGER_DIGITS = 15
MAX_ERRORS_SHOWN = 20


class ResultsError(Exception):
    """A results file is missing or malformed; the message names the file and the field."""


@dataclass(frozen=True)
class ResultsFile:
    path: Path
    device: str
    scenarios: dict[str, dict[str, Any]]


# --- the fields, as JSON Schema (benchmarks/json_schema.py) -----------------------------


def record(required: dict) -> dict:
    """An object with these fields; others are let through."""
    return fields(required, closed=False)


NUMBER = {"type": "number", "plausible": True, "expected": "a number"}
POSITIVE = {**NUMBER, "exclusiveMinimum": 0, "expected": "a positive number"}
COUNT = {"type": "integer", "minimum": 0, "plausible": True, "expected": "a whole number >= 0"}
TEXT = {"type": "string", "minLength": 1, "expected": "text"}
TEXT_VALUES = mapping_of({"type": "string", "expected": "a string"})
TEXT_VALUES["expected"] = "an object of text values"  # a scenario's parameters

SUMMARY = record(
    {"median": POSITIVE, "p5": NUMBER, "p25": NUMBER, "p75": NUMBER, "p95": NUMBER, "n": COUNT}
)
PROVENANCE = fields(
    {
        "profile": one_of(*PROFILES),
        "device": one_of(*DEVICES),
        **dict.fromkeys(("tensorflow", "keras", "python", "platform", "cpu_model"), TEXT),
        "cpu_cores": COUNT,
        "gpu": ANYTHING,  # null in a CPU file, an object in a GPU file: checked below
        **dict.fromkeys(("date", "git_commit", "command"), TEXT),
    },
    # Whether TensorFlow ran its oneDNN CPU kernels: recorded since runs were made on CPUs
    # where the default differs, absent from the runs before.
    optional={"onednn": TEXT},
    closed=False,
)
GPU = record({"name": TEXT, "driver": TEXT})
VARIANT = record(
    {
        "name": TEXT,
        "label": TEXT,
        "traces": COUNT,
        "traces_min": COUNT,
        "retraces_per_1000_calls": NUMBER,
        "steady_pass_traces": COUNT,
        "first_call_ms": POSITIVE,
        "cold_ms_per_call": SUMMARY,
        "steady_ms_per_call": SUMMARY,
        "cold_throughput_per_s": POSITIVE,
        "steady_throughput_per_s": POSITIVE,
        "rss_growth_mb": NUMBER,
        "peak_gpu_mb": optional(NUMBER),
    }
)
RATIO = record(
    {
        "variant": TEXT,
        "baseline": TEXT,
        "pass": one_of(COLD, STEADY),
        "headline": FLAG,
        "median": POSITIVE,
        "ci_low": POSITIVE,
        "ci_high": POSITIVE,
        "repetitions": COUNT,
    }
)
SCENARIO = record(
    {
        "provenance": PROVENANCE,
        "title": TEXT,
        "question": TEXT,
        "baseline": TEXT,
        "calls_per_pass": COUNT,
        "repetitions": COUNT,
        "parameters": TEXT_VALUES,
        "variants": list_of(VARIANT, non_empty=True),
        "ratios": list_of(RATIO, non_empty=True),
        "peak_rss_mb": POSITIVE,
        "seconds": POSITIVE,
        "extra": ANYTHING,  # scenario-specific: EXTRA below, or null
    }
)


def rows(row: dict) -> dict:
    """A non-empty list of objects with these fields."""
    return list_of(record(row), non_empty=True)


# Per architecture and batch: times per call, speedups of the shared graph with intervals.
SERVING_ARCHITECTURES = record(
    {
        "architectures": list_of(
            fields(
                {
                    "architecture": TEXT,
                    **dict.fromkeys(("variables", "batch"), COUNT),
                    "route": TEXT,
                    **dict.fromkeys(("shared_traces", "dedicated_traces", "rounds"), COUNT),
                    **dict.fromkeys(
                        ("shared_us", "dedicated_us", "graph_us", "predict_on_batch_us"),
                        POSITIVE,
                    ),
                    **dict.fromkeys(
                        (
                            f"{prefix}speedup_{part}"
                            for prefix in ("", "graph_")
                            for part in ("median", "ci_low", "ci_high")
                        ),
                        POSITIVE,
                    ),
                },
                # With choose_xla=True (results from before it have none of these).
                optional={
                    "xla_choice": TEXT,
                    **dict.fromkeys(
                        (
                            "xla_trial_plain_us",
                            "xla_trial_xla_us",
                            "shared_xla_us",
                            *(f"xla_speedup_{p}" for p in ("median", "ci_low", "ci_high")),
                            # the A/A comparison (results from before it have none)
                            *(f"aa_speedup_{p}" for p in ("median", "ci_low", "ci_high")),
                        ),
                        POSITIVE,
                    ),
                },
                closed=False,
            ),
            non_empty=True,
        ),
    }
)

# A percentile of request times with its bootstrap interval.
PERCENTILE = record(dict.fromkeys(("value", "ci_low", "ci_high"), POSITIVE))

# Measurements of a scenario beyond its variants, by scenario name; others have null.
EXTRA = {
    "weight_cache": record(
        {
            "memory": rows(
                {
                    "models": COUNT,
                    **dict.fromkeys(("shared_mb", "dedicated_mb"), NUMBER),
                    **dict.fromkeys(("shared_traces", "dedicated_traces"), COUNT),
                }
            ),
            "wrong_outputs": rows(
                {
                    "variant": TEXT,
                    "label": TEXT,
                    **dict.fromkeys(("wrong", "calls", "threads"), COUNT),
                }
            ),
        }
    ),
    "serving_architectures": SERVING_ARCHITECTURES,
    "serving_without_onednn": SERVING_ARCHITECTURES,  # the same measurement
    "explainer_at_scale": record(
        {
            "scale": list_of(
                fields(
                    {
                        **dict.fromkeys(("retraces", "rounds"), COUNT),
                        **dict.fromkeys(
                            ("plain_s", "watched_s", "plain_ms_per_retrace", "own_ms_per_retrace"),
                            POSITIVE,
                        ),
                        **dict.fromkeys(("extra_percent", "extra_ms_per_retrace"), NUMBER),
                    },
                    # Each round's pair of runs; absent from runs made before it was kept.
                    optional={"extra_percent_runs": list_of(NUMBER, non_empty=True)},
                    closed=False,
                ),
                non_empty=True,
            ),
        }
    ),
    "many_tenants": record(
        {
            "tenants": rows(
                {
                    **dict.fromkeys(("architecture", "variant", "label", "popularity"), TEXT),
                    **dict.fromkeys(("tenants", "requests", "first_pass_traces"), COUNT),
                    **dict.fromkeys(("p50_ms", "p99_ms"), PERCENTILE),
                    **dict.fromkeys(("weights_kb", "first_request_ms"), POSITIVE),
                    "traces_per_1000": NUMBER,
                }
            ),
            "ray_serve": rows(
                {
                    "variant": TEXT,
                    **dict.fromkeys(("tenants", "requests", "wrong", "replicas"), COUNT),
                    **dict.fromkeys(("p50_ms", "p99_ms"), PERCENTILE),
                    "traces_per_1000": NUMBER,
                    "replica_rss_mb": POSITIVE,
                }
            ),
        }
    ),
    "tenant_memory": record(
        {
            "memory": rows(
                {
                    **dict.fromkeys(("architecture", "variant", "label"), TEXT),
                    **dict.fromkeys(("tenants", "traces"), COUNT),
                    "weights_kb": POSITIVE,
                    **dict.fromkeys(("models_mb", "serving_mb"), NUMBER),
                }
            ),
        }
    ),
    "tenants_as_weights": record(
        {
            "latency": rows(
                {
                    **dict.fromkeys(("architecture", "popularity"), TEXT),
                    **dict.fromkeys(("tenants", "requests", "stream_traces", "traces"), COUNT),
                    **dict.fromkeys(("p50_ms", "p99_ms"), PERCENTILE),
                    **dict.fromkeys(("weights_kb", "first_request_ms"), POSITIVE),
                }
            ),
            "memory": rows(
                {
                    "architecture": TEXT,
                    **dict.fromkeys(("tenants", "traces"), COUNT),
                    "weights_kb": POSITIVE,
                    "added_mb": NUMBER,
                }
            ),
            "first_request": rows(
                {
                    "architecture": TEXT,
                    **dict.fromkeys(("files", "traces"), COUNT),
                    **dict.fromkeys(("load_weights_ms", "call_ms", "first_request_ms"), POSITIVE),
                }
            ),
            # Tenants held as weights also record loads_per_1000 and tenants_held_min.
            "ray_serve": rows(
                {
                    **dict.fromkeys(("design", "label"), TEXT),
                    **dict.fromkeys(
                        ("tenants", "warm_up_requests", "requests", "wrong", "replicas"), COUNT
                    ),
                    **dict.fromkeys(("p50_ms", "p99_ms"), PERCENTILE),
                    "traces_per_1000": NUMBER,
                    **dict.fromkeys(("replica_rss_mb_min", "replica_rss_mb_max"), POSITIVE),
                }
            ),
        }
    ),
    "trace_memory": record(
        {
            "memory": rows(
                {
                    **dict.fromkeys(("operations", "traces", "signature_traces"), COUNT),
                    **dict.fromkeys(("grown_mb", "kb_per_trace", "after_del_grown_mb"), NUMBER),
                    "signature_grown_mb": NUMBER,
                }
            ),
        }
    ),
}
TOP = record(
    {
        "device": one_of(*DEVICES),
        "scenarios": {
            "type": "object",
            "minProperties": 1,
            "expected": "a non-empty object of scenario results",
        },
    }
)


# --- parsing: JSON's own looseness, turned into named problems --------------------------


class _RepeatedKeys(dict):
    """A JSON object whose text gave some key twice (``json`` would keep the last)."""

    repeated: tuple[str, ...] = ()


class _LongInteger:
    """An integer literal too long to be a measurement (Python refuses > 4300 digits)."""

    def __init__(self, literal: str):
        self.digits = len(literal.lstrip("-"))


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    repeated = tuple(key for key, times in Counter(key for key, _ in pairs).items() if times > 1)
    if not repeated:
        return dict(pairs)
    found = _RepeatedKeys(pairs)
    found.repeated = repeated
    return found


def _integer(literal: str) -> int | _LongInteger:
    return _LongInteger(literal) if len(literal) > MAX_INTEGER_DIGITS else int(literal)


def parse(raw: str) -> Any:
    """The JSON document; ``ValueError`` names where the text stops being JSON."""
    try:
        return json.loads(raw, object_pairs_hook=_object, parse_int=_integer)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from error
    except RecursionError as error:
        raise ValueError(
            f"invalid results: arrays or objects nested deeper than {MAX_DEPTH} levels"
        ) from error


def _parsed_problems(value: Any, where: str, errors: list[str], depth: int = 0) -> None:
    """What parsing let through, anywhere in the document (``extra`` included): repeated
    keys, over-long integers, NaN or infinity, and nesting deeper than the format's."""
    if depth > MAX_DEPTH:
        errors.append(f"{where}: nested deeper than {MAX_DEPTH} levels")
    elif isinstance(value, _LongInteger):
        errors.append(
            f"{where}: an integer of {value.digits} digits (at most {MAX_INTEGER_DIGITS})"
        )
    elif isinstance(value, float) and not math.isfinite(value):
        errors.append(f"{where}: expected a finite number, found {value}")
    elif isinstance(value, dict):
        for key in getattr(value, "repeated", ()):
            errors.append(f"{where}.{key}: the key appears more than once in one object")
        for key, inner in value.items():
            _parsed_problems(inner, f"{where}.{key}", errors, depth + 1)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _parsed_problems(inner, f"{where}[{index}]", errors, depth + 1)


# --- consistency inside a scenario: what the renderer and the claims rely on -------------


def _check_provenance(provenance: dict[str, Any], device: str, where: str) -> list[str]:
    errors = []
    if provenance["device"] != device:
        errors.append(f"{where}.device: {provenance['device']!r} in a {device} file")
    gpu = provenance["gpu"]
    if device == "cpu" and gpu is not None:
        errors.append(f"{where}.gpu: a CPU result names a GPU ({shown(gpu)}); expected null")
    elif device == "gpu" and gpu is None:
        errors.append(f"{where}.gpu: a GPU result must name its GPU, found null")
    elif gpu is not None:
        errors += problems(GPU, gpu, f"{where}.gpu")
    return errors


def _check_percentiles(variants: list[dict[str, Any]], where: str) -> list[str]:
    errors = []
    order = ("p5", "p25", "median", "p75", "p95")
    for index, variant in enumerate(variants):
        for field in ("cold_ms_per_call", "steady_ms_per_call"):
            summary = variant[field]
            for lower, upper in itertools.pairwise(order):
                if summary[lower] > summary[upper]:
                    errors.append(
                        f"{where}[{index}].{field}.{lower}: {summary[lower]} is above "
                        f"{upper} {summary[upper]}"
                    )
    return errors


def _check_variant_names(result: dict[str, Any], name: str, where: str) -> list[str]:
    names = [variant["name"] for variant in result["variants"]]
    errors = [
        f"{where}.variants: the name {repeated!r} is given to more than one variant"
        for repeated, times in Counter(names).items()
        if times > 1
    ]
    expected = SCENARIOS[name].baseline
    if result["baseline"] != expected:
        errors.append(f"{where}.baseline: expected {expected!r}, found {result['baseline']!r}")
    if result["baseline"] not in names:
        errors.append(f"{where}.baseline: {result['baseline']!r} is not one of {names}")
    for missing in sorted(variants_claims_use(name) - set(names)):
        errors.append(
            f"{where}.variants: no variant named {missing!r}, which the claims table compares"
        )
    return errors


def _check_ratios(result: dict[str, Any], name: str, where: str) -> list[str]:
    """One cold and one steady ratio per variant against the baseline, one headline."""
    errors = []
    baseline = result["baseline"]
    others = [v["name"] for v in result["variants"] if v["name"] != baseline]
    seen: Counter[tuple[str, str]] = Counter()
    for index, ratio in enumerate(result["ratios"]):
        at = f"{where}.ratios[{index}]"
        if ratio["variant"] not in others:
            errors.append(f"{at}.variant: {ratio['variant']!r} is not a measured variant {others}")
        if ratio["baseline"] != baseline:
            errors.append(f"{at}.baseline: expected {baseline!r}, found {ratio['baseline']!r}")
        if not ratio["ci_low"] <= ratio["median"] <= ratio["ci_high"]:
            errors.append(f"{at}: median outside its interval")
        seen[ratio["variant"], ratio["pass"]] += 1
    for variant in others:
        for which in (COLD, STEADY):
            if seen[variant, which] != 1:
                found = "no" if not seen[variant, which] else f"{seen[variant, which]}"
                errors.append(
                    f"{where}.ratios: {found} {which} ratio for variant {variant!r}; expected one"
                )
    headlines = [(r["variant"], r["pass"]) for r in result["ratios"] if r["headline"]]
    scenario = SCENARIOS[name]
    expected = (scenario.headline, scenario.headline_pass)
    if headlines != [expected]:
        errors.append(
            f"{where}.ratios: expected one headline ratio, the {expected[1]} ratio of "
            f"{expected[0]!r}; found {len(headlines)}: {headlines}"
        )
    return errors


def _check_scenario(name: str, result: Any, device: str) -> list[str]:
    where = f"scenarios.{name}"
    if name not in NAMES:
        return [f"{where}: unknown scenario (known: {', '.join(NAMES)})"]
    errors = problems(SCENARIO, result, where)
    if errors:
        return errors  # the checks below rely on the fields above
    if name in EXTRA:
        errors += problems(EXTRA[name], result["extra"], f"{where}.extra")
    elif result["extra"] is not None:
        errors.append(f"{where}.extra: expected null for this scenario")
    errors += _check_provenance(result["provenance"], device, f"{where}.provenance")
    errors += _check_percentiles(result["variants"], f"{where}.variants")
    errors += _check_variant_names(result, name, where)
    errors += _check_ratios(result, name, where)
    return errors


def validate(data: Any) -> list[str]:
    """Every problem with a parsed results document, each as 'field.path: problem'."""
    if not isinstance(data, dict):
        return ["(top level): expected an object"]
    errors: list[str] = []
    _parsed_problems(data, "(top level)", errors)
    if errors:
        return [error.replace("(top level).", "") for error in errors]
    version = data.get("schema_version")
    if type(version) is not int or version != SCHEMA_VERSION:  # true == 1 in Python
        return [f"schema_version: expected {SCHEMA_VERSION}, found {shown(version)}"]
    errors = problems(TOP, data)
    if errors:
        return errors
    for name, result in data["scenarios"].items():
        errors += _check_scenario(name, result, data["device"])
    return errors


# --- files ------------------------------------------------------------------------------


def _parsed_file(path: Path) -> Any:
    """The file's JSON, parsed but not validated; unreadable or malformed text names the file."""
    try:
        raw = read_results_text(path, MAX_BYTES)
    except UnreadableFile as error:
        raise ResultsError(str(error)) from error
    try:
        return parse(raw)
    except ValueError as error:
        raise ResultsError(f"{path}: {error}") from error


def load_file(path: Path) -> ResultsFile:
    data = _parsed_file(path)
    errors = validate(data)
    if len(errors) > MAX_ERRORS_SHOWN:
        errors = [*errors[:MAX_ERRORS_SHOWN], f"... and {len(errors) - MAX_ERRORS_SHOWN} more"]
    if errors:
        raise ResultsError(f"{path}: " + f"\n{path}: ".join(errors))
    return ResultsFile(path=path, device=data["device"], scenarios=data["scenarios"])


def load_results(directory: Path = RESULTS_DIR) -> dict[str, ResultsFile]:
    """Every results file in the folder, by device; fails naming every malformed file.

    The folder holds one file per device, named after it (``cpu.json``, ``gpu.json``).
    """
    if not directory.is_dir():
        raise ResultsError(f"{directory}: results folder not found; run `python -m benchmarks run`")
    paths = sorted(directory.glob("*.json"))
    if not paths:
        raise ResultsError(
            f"{directory}: no results files (*.json); run `python -m benchmarks run`"
        )
    loaded: dict[str, ResultsFile] = {}
    problems: list[str] = []  # every file is checked, so one build names every bad file
    for path in paths:
        try:
            loaded[path.stem] = _load_named(path)
        except ResultsError as error:
            problems.append(str(error))
    if problems:
        raise ResultsError("\n".join(problems))
    return loaded


def _load_named(path: Path) -> ResultsFile:
    if path.stem not in DEVICES:
        raise ResultsError(
            f"{path}: not a results file name; the folder holds "
            f"{' and '.join(f'{d}.json' for d in DEVICES)} only"
        )
    results = load_file(path)
    if results.device != path.stem:
        raise ResultsError(f"{path}: device: {results.device!r} results in {path.name}")
    return results


def write_results(path: Path, device: str, scenarios: dict[str, dict[str, Any]]) -> None:
    """Write (or update) the device's results file atomically; other scenarios are kept.

    A lock on its folder serialises writers, so two runs updating different scenarios
    both land; the file keeps its mode (a new one gets the umask's default).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        merged = _kept_scenarios(path, device) if path.exists() else {}
        merged.update(scenarios)
        document = {"schema_version": SCHEMA_VERSION, "device": device, "scenarios": merged}
        errors = validate(document)
        if errors:
            raise ResultsError(f"{path}: refusing to write invalid results: " + "; ".join(errors))
        write_json_whole(path, document)


def _kept_scenarios(path: Path, device: str) -> dict[str, Any]:
    """The scenarios of the file being updated. They are checked once merged with the new
    ones, not before: a re-run replaces a result the schema has since outgrown (a field
    added to its scenario) instead of failing on it, and a kept one must still be valid."""
    data = _parsed_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), dict):
        raise ResultsError(f"{path}: scenarios: expected an object of scenario results")
    if data.get("device") != device:
        raise ResultsError(f"{path}: device: holds {data.get('device')} results, not {device}")
    return dict(data["scenarios"])


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on the file's folder: no lock file is left behind."""
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)  # closing releases the lock
