"""``python -m verification.site_build build|serve [mkdocs options]``: MkDocs with --strict,
its output passed through except MkDocs's INFO lines (serve keeps those of its progress) and
the start-up log of the kernels that execute the notebooks (TensorFlow's info lines and
CUDA probe, absl's pre-init notice, ipykernel's transport warning), which TensorFlow 2.21
prints whatever TF_CPP_MIN_LOG_LEVEL says (the environment is the tests' build's, so that
the notebooks run as they do there). Every other line, warnings and errors included,
reaches the terminal; the exit status is MkDocs's. A build that succeeds ends with one line
saying where the site is.

Stopping it: Ctrl-C (SIGINT to the terminal's process group, MkDocs included) waits for
MkDocs to stop, says so in one line and exits 0; SIGTERM or SIGHUP to this wrapper alone
(``docker stop``, ``kill``, a closed terminal; ``make`` passes its SIGTERM on) stops MkDocs
first, so that no server is left on the port, and exits 128 + the signal's number."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

from verification.harness.processes import build_environment

# Lines a notebook kernel prints as it starts, on every build, that say nothing about it.
KERNEL_START_UP = re.compile(
    r"^(?:I0000 \d\d:\d\d:\S+ +\d+ \S+\] "  # TensorFlow's info log (oneDNN, CUDA probe, CPU)
    r"|E0000 \d\d:\d\d:\S+ +\d+ cuda_platform\.cc:\d+\] failed call to cuInit"
    r"|WARNING: All log messages before absl::InitializeLog\(\) is called"
    r"|To enable the following instructions: "  # the CPU-feature line's continuation
    r"|\[IPKernelApp\] WARNING \| Kernel is running over TCP without encryption)"
)


# Not --quiet: it would also silence the warnings that --strict counts, and pass them.
MKDOCS_INFO = re.compile(r"^INFO    -  ")
# What ``serve`` keeps of MkDocs's INFO lines: the build's progress and the address, not
# plugins' notes (mkdocstrings' "Formatting signatures requires either Black or Ruff").
SERVE_PROGRESS = re.compile(
    r"^INFO    -  (Building documentation|Documentation built in|Serving on|"
    r"\[\d\d:\d\d:\d\d\] (Serving on|Detected file changes|Reloading|Browser connected))"
)


def is_start_up_noise(line: str) -> bool:
    return KERNEL_START_UP.match(line) is not None


def is_shown(line: str, action: str) -> bool:
    """Whether ``line`` of MkDocs's output reaches the terminal: warnings and errors
    always; of its INFO lines, none for a build, the progress for serve."""
    if is_start_up_noise(line):
        return False
    if MKDOCS_INFO.match(line):
        return action == "serve" and SERVE_PROGRESS.match(line) is not None
    return True


# How long MkDocs gets to stop after Ctrl-C or a forwarded signal before it is killed.
STOP_SECONDS = 10


class _Stopped(Exception):
    """SIGTERM or SIGHUP reached this wrapper: stop MkDocs, then exit."""

    def __init__(self, number: int):
        super().__init__(number)
        self.number = number


def _raise_stopped(number: int, frame) -> None:
    raise _Stopped(number)


def _stop(process: subprocess.Popen, number: int | None) -> None:
    """Pass ``number`` on to MkDocs (None: it had the signal already, from the terminal),
    wait for it, and kill it if it has not stopped in time."""
    if number is not None and process.poll() is None:
        process.send_signal(number)
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def command(action: str, options: list[str]) -> list[str]:
    return [sys.executable, "-m", "mkdocs", action, "--strict", *options]


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("build", "serve"):
        print(
            "usage: python -m verification.site_build build|serve [mkdocs options]", file=sys.stderr
        )
        return 2
    action, options = argv[0], argv[1:]
    started = time.monotonic()
    handled = (signal.SIGTERM, signal.SIGHUP)
    previous = {number: signal.signal(number, _raise_stopped) for number in handled}
    process = subprocess.Popen(
        command(action, options),
        env=build_environment(),
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    try:
        for line in process.stderr:
            if is_shown(line, action):
                sys.stderr.write(line)
        process.wait()
    except KeyboardInterrupt:  # Ctrl-C: MkDocs, in the same process group, had it too
        _stop(process, None)
        print(f"stopped: mkdocs {action} ended on Ctrl-C", file=sys.stderr)
        return 0
    except _Stopped as stopped:
        _stop(process, stopped.number)
        name = signal.Signals(stopped.number).name
        print(f"stopped: {name} received, mkdocs {action} stopped", file=sys.stderr)
        return 128 + stopped.number
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        process.stderr.close()
    if process.returncode == 0 and action == "build":
        site = options[options.index("--site-dir") + 1] if "--site-dir" in options else "site"
        print(f"built the site into {site}/ in {time.monotonic() - started:.0f} s")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
