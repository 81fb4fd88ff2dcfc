"""The GPU runner's job-started hook and the check of the results it uploads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verification.harness.codeblocks import ROOT

HOOK = ROOT / ".github" / "runner" / "job-started-hook.sh"
ACCEPT = ROOT / ".ci" / "accept_gpu_results.py"
MAIN = {
    "GITHUB_REPOSITORY": "tf-retracing-guide/tf-retracing-guide",
    "GITHUB_REF": "refs/heads/main",
}


def run_hook(**variables: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GITHUB_")}
    env.pop("GPU_RUNNER_ALLOWED_REPOSITORY", None)
    env.update(variables)
    # The runner starts the hook as `bash -e <file>`.
    return subprocess.run(
        ["bash", "-e", str(HOOK)], env=env, capture_output=True, text=True, timeout=30
    )


@pytest.mark.parametrize("event", ["schedule", "workflow_dispatch"])
def test_hook_accepts_the_benchmark_events_on_main(event):
    proc = run_hook(GITHUB_EVENT_NAME=event, **MAIN)
    assert proc.returncode == 0, proc.stderr
    assert f"accepted {event}" in proc.stdout


@pytest.mark.parametrize(
    "event",
    [
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
        "issue_comment",
        "workflow_run",
        "push",
        "merge_group",
        "repository_dispatch",
        "Schedule",
        "schedule ",
    ],
)
def test_hook_refuses_every_other_event(event):
    proc = run_hook(GITHUB_EVENT_NAME=event, **MAIN)
    assert proc.returncode != 0
    assert "refusing this job" in proc.stderr


def test_hook_refuses_when_the_event_is_unknown():
    proc = run_hook(**MAIN)
    assert proc.returncode != 0
    assert "GITHUB_EVENT_NAME is not set" in proc.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("GITHUB_REPOSITORY", "someone/fork-of-the-guide"),
        ("GITHUB_REF", "refs/heads/feature"),
        ("GITHUB_REF", "refs/pull/1/merge"),
    ],
)
def test_hook_refuses_other_repositories_and_refs(variable, value):
    proc = run_hook(GITHUB_EVENT_NAME="workflow_dispatch", **{**MAIN, variable: value})
    assert proc.returncode != 0
    assert value in proc.stderr


def test_a_fork_names_its_own_repository_in_the_runners_environment():
    fork = {**MAIN, "GITHUB_REPOSITORY": "someone/fork-of-the-guide"}
    allowed = {"GPU_RUNNER_ALLOWED_REPOSITORY": "someone/fork-of-the-guide"}
    assert run_hook(GITHUB_EVENT_NAME="schedule", **fork, **allowed).returncode == 0
    refused = run_hook(GITHUB_EVENT_NAME="schedule", **MAIN, **allowed)
    assert refused.returncode != 0 and "is not someone/fork-of-the-guide" in refused.stderr


def test_hook_is_executable():
    assert os.access(HOOK, os.X_OK)


# --- .ci/accept_gpu_results.py ---------------------------------------------------------


def accept(incoming: Path, results: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ACCEPT), str(incoming), str(results)],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_valid_results_are_copied(tmp_path):
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    (incoming / "gpu.json").write_text(json.dumps({"device": "gpu"}), "utf-8")
    proc = accept(incoming, tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "results" / "gpu.json").read_text()) == {"device": "gpu"}


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "must hold only gpu.json, found []"),
        ({"gpu.json": "{}", "extra.md": "x"}, "found ['extra.md', 'gpu.json']"),
        ({"gpu-other.json": "{}"}, "found ['gpu-other.json']"),
        ({"gpu.json": "{not json"}, "is not valid JSON"),
        ({"gpu.json": "[1, 2]"}, "must hold a JSON object, not list"),
        ({"gpu.json": ""}, "has 0 bytes"),
    ],
)
def test_bad_uploads_are_rejected_with_the_reason(tmp_path, files, message):
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    for name, text in files.items():
        (incoming / name).write_text(text, "utf-8")
    proc = accept(incoming, tmp_path / "results")
    assert proc.returncode == 1
    assert message in proc.stderr
    assert not (tmp_path / "results").exists(), "nothing may be written for rejected results"


def test_a_symlink_is_rejected(tmp_path):
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    (tmp_path / "elsewhere.json").write_text("{}", "utf-8")
    (incoming / "gpu.json").symlink_to(tmp_path / "elsewhere.json")
    proc = accept(incoming, tmp_path / "results")
    assert proc.returncode == 1
    assert "not a regular file" in proc.stderr
