"""``python -m verification.site_build build|serve [mkdocs options]``: MkDocs with --strict,
its output passed through except MkDocs's INFO lines (serve keeps those of its progress) and
the start-up log of the kernels that execute the notebooks (TensorFlow's info lines and
CUDA probe, absl's pre-init notice, ipykernel's transport warning), which TensorFlow 2.21
prints whatever TF_CPP_MIN_LOG_LEVEL says (the environment is the tests' build's, so that
the notebooks run as they do there). Every other line, warnings and errors included,
reaches the terminal; the exit status is MkDocs's. A build that succeeds ends with one line
saying where the site is."""

from __future__ import annotations

import re
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
    with subprocess.Popen(
        command(action, options),
        env=build_environment(),
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    ) as process:
        for line in process.stderr:
            if is_shown(line, action):
                sys.stderr.write(line)
    if process.returncode == 0 and action == "build":
        site = options[options.index("--site-dir") + 1] if "--site-dir" in options else "site"
        print(f"built the site into {site}/ in {time.monotonic() - started:.0f} s")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
