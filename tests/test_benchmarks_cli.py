"""The command line: clear errors for bad arguments, and one real scenario end to end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.cli import main
from benchmarks.schema import load_results
from verification.harness.codeblocks import ROOT


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["run", "--scenario", "warp_drive"], "unknown scenario 'warp_drive'; choose from:"),
        (["run", "--device", "tpu"], "argument --device: invalid choice: 'tpu'"),
    ],
)
def test_bad_arguments_are_rejected(argv, expected, capsys):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert expected in capsys.readouterr().err


def test_list_names_every_scenario(capsys):
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    for name in ("predict_loop", "sequence_lengths", "weight_cache", "explainer_overhead"):
        assert name in listed


@pytest.mark.slow
def test_smallest_scenario_end_to_end(tmp_path):
    out = tmp_path / "results" / "cpu.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "run", "--quick", "--scenario", "changing_dtypes",
         "--device", "cpu", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = load_results(out.parent)["cpu"].scenarios["changing_dtypes"]
    variants = {v["name"]: v for v in result["variants"]}
    assert variants["as_given"]["traces"] == 5  # one trace per dtype in the stream
    assert variants["cast_first"]["traces"] == 1
    assert result["provenance"]["profile"] == "quick"
    assert "--scenario changing_dtypes" in result["provenance"]["command"]


@pytest.mark.parametrize(
    ("out", "expected"),
    [
        ("results.txt", "a results file must end in .json"),
        ("{results}/cpu-second.json", "the results folder holds one file per device"),
        ("{tmp}/a-file.json/cpu.json", "is not a folder"),
        ("{tmp}", "must end in .json"),
        ("{tmp}/folder.json", "exists and is not a regular file"),
    ],
)
def test_a_bad_out_is_refused_before_anything_runs(out, expected, tmp_path, capsys):
    from benchmarks.schema import RESULTS_DIR

    (tmp_path / "a-file.json").write_text("{}")
    (tmp_path / "folder.json").mkdir()
    out = out.format(results=RESULTS_DIR, tmp=tmp_path)
    with pytest.raises(SystemExit) as caught:
        main(["run", "--scenario", "changing_dtypes", "--device", "cpu", "--out", out])
    assert caught.value.code == 2
    assert expected in capsys.readouterr().err


def _worker_pids(marker: str) -> list[int]:
    """Processes running benchmarks.worker whose command line mentions ``marker``."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
        if "benchmarks.worker" in command and marker in command:
            pids.append(int(entry.name))
    return pids


@pytest.mark.slow
def test_sigterm_stops_the_worker_removes_its_folder_and_keeps_the_results(tmp_path):
    temp = tmp_path / "temp"  # the run's temporary folder is made here (TMPDIR)
    temp.mkdir()
    out = tmp_path / "results" / "cpu.json"
    out.parent.mkdir()
    out.write_text("earlier results\n")
    cli = subprocess.Popen(
        [sys.executable, "-m", "benchmarks", "run", "--quick", "--scenario", "changing_dtypes",
         "--device", "cpu", "--out", str(out)],
        cwd=ROOT, env={**os.environ, "TMPDIR": str(temp)}, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not (workers := _worker_pids(str(temp))) and time.monotonic() < deadline:
        assert cli.poll() is None, cli.stderr.read()
        time.sleep(0.05)
    assert workers, "the worker never started"
    cli.send_signal(signal.SIGTERM)
    _, stderr = cli.communicate(timeout=120)
    assert cli.returncode == 143, stderr
    assert "the results file was not changed" in stderr
    assert _worker_pids(str(temp)) == []  # the worker went with it
    assert list(temp.iterdir()) == []  # and so did the temporary folder
    assert out.read_text() == "earlier results\n"


def test_a_worker_starts_with_the_environment_its_scenario_names():
    from benchmarks.cli import worker_env
    from benchmarks.scenarios import SCENARIOS

    scenario = SCENARIOS["serving_without_onednn"]
    assert scenario.environment == (("TF_ENABLE_ONEDNN_OPTS", "0"),)
    assert worker_env("cpu", scenario.environment)["TF_ENABLE_ONEDNN_OPTS"] == "0"
    # A scenario that names none leaves the switch as the caller's environment has it.
    unchanged = worker_env("cpu", SCENARIOS["serving_architectures"].environment)
    assert unchanged.get("TF_ENABLE_ONEDNN_OPTS") == os.environ.get("TF_ENABLE_ONEDNN_OPTS")


def test_a_worker_started_without_its_scenarios_environment_refuses_to_run(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TF_ENABLE_ONEDNN_OPTS"}
    out = tmp_path / "result.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.worker", "serving_without_onednn", "--profile",
         "quick", "--device", "cpu", "--out", str(out), "--command", "by hand"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 1
    assert (
        "scenario serving_without_onednn runs with TF_ENABLE_ONEDNN_OPTS=0 in its environment"
        in proc.stderr
    )
    assert not out.exists()


def test_results_that_cannot_be_written_are_kept_and_named(tmp_path, monkeypatch, capsys):
    import json

    from benchmarks import cli

    measured = {"provenance": {"device": "cpu"}, "seconds": 1.0}
    monkeypatch.setattr(cli, "run_worker", lambda *args: measured)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(cli.tempfile, "tempdir", None)  # read TMPDIR again
    out = tmp_path / "results" / "cpu.json"
    assert main(["run", "--scenario", "changing_dtypes", "--device", "cpu", "--out", str(out)]) == 1
    error = capsys.readouterr().err
    assert "refusing to write invalid results" in error
    kept = Path(error.split("the measurements are kept in ")[1].strip())
    assert kept.parent == tmp_path
    assert json.loads(kept.read_text("utf-8")) == {"changing_dtypes": measured}
    assert not out.exists()


def test_the_serving_scenarios_record_whether_onednn_ran(tmp_path):
    # TensorFlow decides at import; a process started with the switch off must say "off".
    probe = "from benchmarks.scenarios.serving_architectures import onednn_state as s; print(s())"
    env = {**os.environ, "TF_ENABLE_ONEDNN_OPTS": "0", "TF_CPP_MIN_LOG_LEVEL": "2"}
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "off"
