"""`python script.py ARGS` and `python -m MODULE ARGS` without TensorFlow's start-up: each
run is a process forked from one that has already imported TensorFlow (about 4.5
CPU-seconds a start on this machine).

The server (this file, run as a script, so that nothing of the repository is on its
path) imports TensorFlow, then reads one JSON request per line on standard input:
{"args", "cwd", "stdout", "stderr", "timeout"}, ``args`` being what follows ``python`` on
its command line. For each it forks; the child takes the request's folder and files, puts
first on ``sys.path`` what Python would (the script's folder, or for ``-m`` the current
one), runs the script or module as ``__main__`` in a fresh namespace, and exits as the
interpreter exits (threads joined, atexit handlers run, the exit status of ``sys.exit``,
or 1 after a traceback). The child does what the interpreter does at exit
(``exit_like_python``), then ends with ``os._exit``: the module teardown it
skips took 0.8 s a run with TensorFlow loaded. (An object whose ``__del__`` prints at
teardown would not print here; the runs the tests compare with a fresh interpreter keep
that honest.) The server answers each request with one line: the exit status, or
``null`` if the child was killed at its timeout.

The tests use it through ``PreloadedPython``; they still run some cases in a fresh
interpreter, which is what covers the start-up itself.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def serve() -> dict | None:
    """Answer requests until standard input closes; return the request in a child."""
    import tensorflow  # noqa: F401 - the state every run starts from

    # What the import made, its garbage collected first, is moved out of the collector's
    # reach: a child's gc.collect() then walks only what the child made (0.13 s less a call
    # with TensorFlow loaded; the benchmark runner calls it before every repetition, and the
    # suite's quick profiles took 22.5 CPU-s instead of 31.0), and does not copy the
    # parent's memory by touching it.
    gc.collect()
    gc.freeze()
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            return request
        print(json.dumps(_wait(pid, request["timeout"])), flush=True)
    return None


def _wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def run_as_main(request: dict) -> None:
    """In the child: become `python ARGS` run in the request's folder."""
    import runpy

    os.chdir(request["cwd"])
    for fd, path, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
    ):
        opened = os.open(path, flags, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = open(0, closefd=False)  # not the server's, which has read ahead  # noqa: SIM115
    args = request["args"]
    if args[0] == "-m":
        sys.path[0] = os.getcwd()  # in place of this file's folder
        sys.argv = args[1:]  # run_module sets argv[0] to the module's file
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.path[0] = os.path.dirname(os.path.realpath(args[0]))  # as CPython: symlinks resolved
        sys.argv = list(args)
        runpy.run_path(args[0], run_name="__main__")


def exit_like_python(ending: BaseException | None) -> None:
    """End the child as the interpreter ends after the main module returns or raises:
    the message of ``sys.exit("...")`` or the traceback of an uncaught exception (without
    this server's frames), then non-daemon threads joined, atexit handlers, standard
    streams flushed (status 120 if that fails, as CPython), then exit without the module
    teardown; after a KeyboardInterrupt, by SIGINT, as Python does."""
    import atexit
    import threading

    status = 0
    if isinstance(ending, SystemExit):
        code = ending.code
        if code is None or isinstance(code, int):
            status = code or 0
        else:
            print(code, file=sys.stderr)
            status = 1
    elif ending is not None:
        _print_traceback(ending)
        status = 1
    threading._shutdown()  # what the interpreter calls to wait for non-daemon threads
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # CPython's exit status when flushing stdout fails
            status = status or 120
    if isinstance(ending, KeyboardInterrupt):
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(status & 0xFF)


def _print_traceback(error: BaseException) -> None:
    """The traceback as Python prints it for the script: from its first frame that is
    neither this server's nor runpy's."""
    import traceback

    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, "<frozen runpy>"):
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb, file=sys.stderr)


class PreloadedPython:
    """A server started with ``env`` (every run shares it: TensorFlow has read it)."""

    def __init__(self, env: dict[str, str]):
        self._server = subprocess.Popen(
            [sys.executable, __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )

    def run(self, args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
        """Like ``subprocess.run([python, *args], cwd=cwd, capture_output=True, text=True)``."""
        with tempfile.TemporaryDirectory() as folder:
            out, err = Path(folder, "stdout"), Path(folder, "stderr")
            request = {"args": args, "cwd": str(cwd), "timeout": timeout}
            request |= {"stdout": str(out), "stderr": str(err)}
            self._server.stdin.write(json.dumps(request) + "\n")
            self._server.stdin.flush()
            answer = self._server.stdout.readline()
            if not answer:
                raise RuntimeError(f"the preloaded server died (exit {self._server.wait()})")
            status = json.loads(answer)
            if status is None:
                raise subprocess.TimeoutExpired(args, timeout)
            return subprocess.CompletedProcess(args, status, out.read_text(), err.read_text())

    def close(self) -> None:
        self._server.stdin.close()
        self._server.wait(timeout=60)


if __name__ == "__main__":
    child_request = serve()
    if child_request is not None:
        try:
            run_as_main(child_request)
        except BaseException as ending:  # SystemExit, or what Python would print
            exit_like_python(ending)
        exit_like_python(None)
