"""``make serve`` and ``python -m verification.site_build serve`` stop cleanly: Ctrl-C
ends with one line and no traceback, and SIGTERM to the wrapper (or to make) stops the
``mkdocs serve`` it started, so that nothing is left listening on the port.

Each test serves a one-page site (``SERVE_OPTIONS=-f ...``) on a free port for real: a
new session stands for the terminal, its process group for the foreground job that
Ctrl-C signals. The guide's own site is not served here: building it executes every
notebook, which takes minutes."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from verification.harness.codeblocks import ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and groups")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def small_site(tmp_path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# A page\n", encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: a small site\n", encoding="utf-8")
    return config


def as_in_a_terminal() -> None:
    """In the server's process before it starts: Ctrl-C and SIGQUIT act as they do in a
    terminal. A suite started in the background by a shell without job control (``make
    test &`` in a script) inherits both as ignored, and so would every server it starts."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def serving(config: Path, port: int, through_make: bool) -> subprocess.Popen:
    """The server started as a reader starts it, once it says where it serves."""
    address = f"127.0.0.1:{port}"
    if through_make:
        args = ["make", "-s", "serve", f"SERVE_ADDR={address}", f"SERVE_OPTIONS=-f {config}"]
    else:
        args = [sys.executable, "-m", "verification.site_build", "serve", "-f", str(config),
                "--dev-addr", address]  # fmt: skip
    process = subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=as_in_a_terminal,
    )  # fmt: skip
    lines: queue.Queue = queue.Queue()
    threading.Thread(
        target=lambda: [lines.put(line) for line in process.stderr], daemon=True
    ).start()
    deadline, seen = time.monotonic() + 120, []
    while time.monotonic() < deadline:
        try:
            seen.append(lines.get(timeout=1))
        except queue.Empty:
            continue
        if "Serving on" in seen[-1]:
            process.after_serving = lines
            return process
    os.killpg(process.pid, signal.SIGKILL)
    raise AssertionError(f"the server never said it was serving in 120 s: {''.join(seen)}")


def iter_queue(lines: queue.Queue):
    while not lines.empty():
        yield lines.get()


def stopped(process: subprocess.Popen) -> tuple[int, str]:
    """Its exit status and what it printed after serving; the group is killed if any of
    it outlives the wrapper by 10 s (then the test fails)."""
    try:
        process.wait(timeout=60)
        time.sleep(0.5)  # the reader thread takes the last lines
        err = "".join(iter_queue(process.after_serving))
        deadline = time.monotonic() + 10
        while group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = group_alive(process.pid)
    finally:
        if group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert not left, "a process of the server outlived the wrapper"
    return process.returncode, err


@pytest.mark.parametrize("through_make", [False, True], ids=["wrapper", "make"])
def test_ctrl_c_ends_with_one_line_and_no_traceback(small_site, through_make):
    port = free_port()
    process = serving(small_site, port, through_make)
    assert listening(port)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground job
    status, err = stopped(process)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip().splitlines() == ["stopped: mkdocs serve ended on Ctrl-C"]
    # the wrapper exits 0; make, interrupted itself, ends by SIGINT as a shell expects (130)
    assert status == (-signal.SIGINT if through_make else 0)
    assert not listening(port)


@pytest.mark.parametrize("through_make", [False, True], ids=["wrapper", "make"])
def test_sigterm_to_the_wrapper_stops_mkdocs_serve(small_site, through_make):
    port = free_port()
    process = serving(small_site, port, through_make)
    os.kill(process.pid, signal.SIGTERM)  # docker stop, kill: the top process only
    status, err = stopped(process)
    assert "stopped: SIGTERM received, mkdocs serve stopped" in err
    assert "Traceback" not in err
    assert status == (-signal.SIGTERM if through_make else 128 + signal.SIGTERM)
    assert not listening(port)
