"""Where and how a result was measured: versions, machine, date, commit, command."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib.metadata import version
from pathlib import Path

from benchmarks import ROOT


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _output(*command: str) -> str | None:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=30, cwd=ROOT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


# Changes to the results themselves do not make the measuring code differ from the commit.
MEASURING_CODE = (".", ":!benchmarks/results")


def git_commit(measuring_code: tuple[str, ...] = MEASURING_CODE) -> str:
    """HEAD's short commit, marked when the files (git pathspecs) that made a result have
    uncommitted changes."""
    commit = _output("git", "rev-parse", "--short=12", "HEAD") or "unknown"
    changes = _output("git", "status", "--porcelain", "--", *measuring_code)
    return f"{commit}+uncommitted-changes" if changes else commit


def gpu_details() -> dict[str, str] | None:
    """Name and driver of the first GPU TensorFlow sees, or None without one."""
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        return None
    details = tf.config.experimental.get_device_details(gpus[0])
    driver = _output("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader")
    return {
        "name": details.get("device_name", gpus[0].name),
        "driver": driver.splitlines()[0] if driver else "unknown",
    }


ONEDNN_SWITCH = "TF_ENABLE_ONEDNN_OPTS"


def onednn_state() -> str:
    """Whether this process's TensorFlow runs its oneDNN CPU kernels, and what decided it.
    TensorFlow turns them on by default only on CPUs with neural-network instructions, so
    two machines differ in what the same command measured unless this is recorded."""
    from tf_retracing._internals import onednn_enabled

    state = {True: "on", False: "off", None: "unknown"}[onednn_enabled()]
    switch = os.environ.get(ONEDNN_SWITCH)
    return f"{state} ({ONEDNN_SWITCH}={switch})" if switch is not None else f"{state} (default)"


def collect(profile: str, device: str, command: str) -> dict[str, object]:
    return {
        "profile": profile,
        "device": device,
        "tensorflow": version("tensorflow"),
        "keras": version("keras"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_model": cpu_model(),
        "cpu_cores": os.cpu_count() or 1,
        "gpu": gpu_details() if device == "gpu" else None,
        "onednn": onednn_state(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "git_commit": git_commit(),
        "command": command,
    }
