"""Every benchmark scenario runs its quick profile in the suite (issue 44): a change to a
scenario, or to the code it measures, is exercised before its next full run. A scenario
whose committed full results ran this very code in this environment is left to the
schedule (proven_by_committed_results): its full run already exercised it. Timings are
left to the benchmark; what is pinned is structural: which variants exist, how many times
each traced, that the results validate, and that they record the hash of the code they ran."""

from __future__ import annotations

import functools
import json
import platform
import subprocess
import sys
from importlib import metadata

import pytest

from benchmarks.cli import worker_env
from benchmarks.code_hash import code_ast_hash, code_hash, freshness
from benchmarks.scenarios import NAMES, SCENARIOS
from benchmarks.schema import RESULTS_DIR, ResultsError, load_results, write_results
from verification.harness.codeblocks import ROOT
from verification.harness.preloaded_python import PreloadedPython

# Per scenario, per variant: the traces of one quick run (the same on every run: the
# streams are fixed, and traces do not depend on timing).
TRACES = {
    "batch_size_stream": {"no_signature": 26, "input_signature": 1, "reduce_retracing": 2},
    "changing_dtypes": {"as_given": 5, "cast_first": 1},
    "explainer_at_scale": {"unwatched": 10, "watched": 10},
    "explainer_overhead": {"unwatched": 6, "watched": 6},
    "function_in_loop": {"function_per_call": 4, "model_per_call": 4, "created_once": 1},
    "loop_count": {"python_int": 10, "tensor": 1},
    "many_tenants": {"dedicated": 4, "lru": 4, "shared": 1},
    "predict_loop": {"predict": 1, "predict_on_batch": 1, "tf_function": 1},
    "sequence_lengths": {"no_signature": 25, "reduce_retracing": 2, "buckets": 4},
    "serving_architectures": {"dedicated": 2, "shared_graph": 1, "predict_on_batch": 0},
    "serving_without_onednn": {"dedicated": 2, "shared_graph": 1, "predict_on_batch": 0},
    "tenant_memory": {"dedicated": 4, "shared": 1},
    "tenants_as_weights": {"models": 1, "weights": 1},
    "trace_memory": {"per_shape": 12, "signature": 1},
    "weight_cache": {"dedicated": 10, "weight_swap": 1, "shared_graph": 1},
}


# Quick profiles that cannot take seconds: each of their figures needs a process of its
# own (a fresh interpreter, which imports TensorFlow, or a Ray cluster and its replicas),
# 15 to 35 CPU-seconds in all. They run in the weekly Scheduled checks (make
# test-scheduled) and with make bench-quick; the suite keeps the other scenarios' quick
# profiles and the benchmark command end to end (tests/test_benchmarks_cli.py).
OWN_PROCESSES = {
    "explainer_at_scale": "a pair of fresh interpreters per program size",
    "many_tenants": "a local Ray cluster with four Serve replicas",
    "tenant_memory": "a fresh interpreter per memory figure",
    "tenants_as_weights": "a fresh interpreter per memory figure",
    "trace_memory": "a fresh interpreter per number of traces",
    "serving_without_onednn": "a fresh interpreter started with oneDNN off, and its worker",
}


@functools.cache
def _committed_cpu_scenarios(results_dir) -> dict:
    """The CPU results file's scenarios, read and validated once per folder (collection
    asks for each scenario), or nothing when the folder holds no valid CPU results."""
    try:
        return load_results(results_dir)["cpu"].scenarios
    except (ResultsError, KeyError):
        return {}


def proven_by_committed_results(name: str, results_dir=RESULTS_DIR) -> bool:
    """Whether the committed CPU results of ``name`` ran this very code (the hash of the
    files it measures, compared as ``benchmarks stale`` compares it: comments and
    docstrings aside) with the installed TensorFlow, Keras and Python. The full profile
    then ran every code path the quick one runs, here, and make test leaves the quick
    profile to the schedule; a change to the scenario, to the code it measures or to the
    environment brings it back into make test before the next full run (issue 44)."""
    result = _committed_cpu_scenarios(results_dir).get(name)
    if result is None:
        return False
    provenance = result["provenance"]
    installed = {
        "tensorflow": metadata.version("tensorflow"),
        "keras": metadata.version("keras"),
        "python": platform.python_version(),
    }
    return (
        provenance.get("profile") == "full"
        and freshness(result) is None  # as python -m benchmarks stale decides
        and all(provenance.get(key) == value for key, value in installed.items())
    )


def quick_profiles() -> list:
    return [
        pytest.param(name, marks=pytest.mark.scheduled)
        if name in OWN_PROCESSES or proven_by_committed_results(name)
        else name
        for name in NAMES
    ]


def test_the_scenarios_left_to_the_schedule_are_those_that_start_processes():
    """Read from each scenario's module: a subprocess or a Ray cluster puts it in
    OWN_PROCESSES, and so does an environment set before TensorFlow's import (the benchmark
    command then runs the scenario in a fresh interpreter); nothing else does."""
    starting = set()
    for name in NAMES:
        source = (ROOT / "benchmarks" / "scenarios" / f"{name}.py").read_text("utf-8")
        if "subprocess.run(" in source or "ray.init(" in source or SCENARIOS[name].environment:
            starting.add(name)
    assert starting == set(OWN_PROCESSES)


def test_a_quick_profile_comes_back_when_its_code_or_environment_changes(tmp_path):
    """Results prove a scenario only for the code and the environment they ran: a different
    code hash, TensorFlow version or profile puts its quick profile back in make test, a
    scenario without results is never proven, and one run by this code here is."""
    committed = json.loads((RESULTS_DIR / "cpu.json").read_text("utf-8"))
    name = next(n for n in committed["scenarios"] if n not in OWN_PROCESSES)
    changes = {
        "code": lambda scenarios: scenarios[name].update(code_ast_hash="0" * 12),
        "tensorflow": lambda scenarios: scenarios[name]["provenance"].update(tensorflow="2.0.0"),
        "quick run": lambda scenarios: scenarios[name]["provenance"].update(profile="quick"),
        "missing": lambda scenarios: scenarios.pop(name),
    }
    for what, change in changes.items():
        copy = json.loads(json.dumps(committed))
        change(copy["scenarios"])
        folder = tmp_path / what
        folder.mkdir()
        (folder / "cpu.json").write_text(json.dumps(copy), encoding="utf-8")
        assert not proven_by_committed_results(name, folder), what
    proven = committed["scenarios"][name]  # as if run now, here, by this code
    proven.update(code_hash=code_hash(proven["measured"]))
    proven.update(code_ast_hash=code_ast_hash(proven["measured"]))
    proven["provenance"].update(
        profile="full",
        tensorflow=metadata.version("tensorflow"),
        keras=metadata.version("keras"),
        python=platform.python_version(),
    )
    folder = tmp_path / "this code, here"
    folder.mkdir()
    (folder / "cpu.json").write_text(json.dumps(committed), encoding="utf-8")
    assert proven_by_committed_results(name, folder)


@pytest.fixture(scope="module")
def preloaded_worker_python():
    """Interpreters forked from one that has imported TensorFlow, in the environment the
    benchmark command gives its workers: a scenario's worker then starts without
    TensorFlow's import (about 3.5 CPU-seconds each). The command itself, which starts a
    fresh interpreter per scenario, is run end to end by tests/test_benchmarks_cli.py."""
    server = PreloadedPython(worker_env("cpu"))
    yield server
    server.close()


def run_quick_profile(name: str, out, preloaded: PreloadedPython) -> None:
    """What ``python -m benchmarks run --quick --scenario NAME --device cpu --out OUT``
    does: the scenario's worker, then its result written (and validated) as the results
    file. A scenario that sets its environment before TensorFlow's import runs the command
    itself, in a fresh interpreter."""
    command = ["-m", "benchmarks", "run", "--quick", "--scenario", name, "--device", "cpu"]
    if SCENARIOS[name].environment:
        proc = subprocess.run(
            [sys.executable, *command, "--out", str(out)],
            cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        return
    worker_out = out.parent.parent / f"{name}.worker.json"  # beside the results folder
    worker = ["-m", "benchmarks.worker", name, "--profile", "quick", "--device", "cpu"]
    provenance = f"python {' '.join(command)}"
    done = preloaded.run([*worker, "--out", str(worker_out), "--command", provenance], ROOT, 900)
    assert done.returncode == 0, done.stderr[-3000:]
    write_results(out, "cpu", {name: json.loads(worker_out.read_text("utf-8"))})


@pytest.mark.slow
@pytest.mark.parametrize("name", quick_profiles())
def test_every_scenario_runs_its_quick_profile(name, tmp_path, preloaded_worker_python):
    out = tmp_path / "results" / "cpu.json"
    out.parent.mkdir()
    run_quick_profile(name, out, preloaded_worker_python)
    result = load_results(out.parent)["cpu"].scenarios[name]  # validated as it loads
    traces = {variant["name"]: variant["traces"] for variant in result["variants"]}
    assert traces == TRACES[name]
    assert result["code_hash"] == code_hash(result["measured"])
    assert result["code_ast_hash"] == code_ast_hash(result["measured"])
    assert f"--scenario {name}" in result["provenance"]["command"]
