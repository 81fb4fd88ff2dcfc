"""Long jobs the test session starts once and every pytest worker waits for.

With pytest-xdist each worker is its own process, so a job (the site build, the pages run
in a reader's environment) cannot be a Popen object that one worker polls. A job here is a
folder shared by the workers: the first worker to claim it starts the command, detached,
through ``python -m verification.harness.background``, which writes the command's exit status to
``status`` when it ends; any worker can wait for a file the job writes, or for its end.
The session's main process stops what is still running when the session ends
(``stop_all``).

Usage: python -m verification.harness.background JOB_FOLDER NICENESS COMMAND...
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

LOG_TAIL_CHARS = 4000


class BackgroundJob:
    """One command run once per session, whichever worker asks first."""

    def __init__(
        self,
        folder: Path,
        command: list[str],
        cwd: Path,
        env: dict | None = None,
        niceness: int = 0,
    ):
        """``niceness`` is added to the command's: a job not needed until late in the
        session yields the cores to the work that is."""
        self.folder = folder
        self.niceness = niceness
        self.command = command
        self.cwd = cwd
        self.env = env
        self.log = folder / "log"
        self.status_file = folder / "status"

    def start(self) -> None:
        """Start the command unless a worker already has (an exclusive claim file)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            claim = os.open(self.folder / "claimed", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(claim)
        with self.log.open("w", encoding="utf-8") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "verification.harness.background",
                    str(self.folder),
                    str(self.niceness),
                    *self.command,
                ],
                cwd=self.cwd,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # stop_all ends the job and everything it started
            )
        (self.folder / "pid").write_text(str(process.pid), encoding="utf-8")

    def exit_status(self) -> int | None:
        """The command's exit status, or None while it runs."""
        try:
            return int(self.status_file.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None

    def wait_for(self, path: Path, timeout: float) -> Path:
        """Wait until the job has written `path`; fail with its log if it ended without."""
        self.start()
        deadline = time.monotonic() + timeout
        while not path.exists():
            status = self.exit_status()
            if status is not None and not path.exists():
                raise RuntimeError(
                    f"{self.describe()} ended ({status}) without {path.name}:\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.describe()} did not write {path.name} in {timeout} s")
            time.sleep(0.1)
        return path

    def wait(self, timeout: float) -> int:
        """Wait for the job to end and return its exit status."""
        return int(self.wait_for(self.status_file, timeout).read_text(encoding="utf-8"))

    def log_tail(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL_CHARS:]

    def describe(self) -> str:
        return " ".join(self.command[:4])


def stop_all(root: Path) -> None:
    """Stop every job under `root` that is still running (the session is over)."""
    for pid_file in root.glob("*/pid"):
        if (pid_file.parent / "status").exists():
            continue
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.killpg(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)


def _run(folder: Path, niceness: int, command: list[str]) -> int:
    os.nice(niceness)  # inherited by the command and everything it starts
    status = subprocess.run(command, check=False).returncode
    written = folder / "status.tmp"
    written.write_text(str(status), encoding="utf-8")
    written.replace(folder / "status")  # waiters never read a half-written status
    return status


if __name__ == "__main__":
    sys.exit(_run(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]))
