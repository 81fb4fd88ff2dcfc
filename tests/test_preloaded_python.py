"""The preloaded server ends each forked run as ``python script.py`` ends: same status,
same output, in the same order (message of sys.exit, threads, atexit, flushed streams),
though it skips the interpreter's module teardown."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from verification.harness.preloaded_python import PreloadedPython

SCRIPTS = {
    "returns": "print('done', end='')\n",  # unflushed output is flushed at exit
    "exit-status": "import sys\nprint('before')\nsys.exit(3)\n",
    "exit-none": "import sys\nsys.exit()\n",
    "exit-message": "import sys\nprint('out')\nsys.exit('stopped: bad input')\n",
    "exit-large": "import sys\nsys.exit(257)\n",
    "raises": "def inner():\n    raise ValueError('broken')\n\n\ninner()\n",
    "interrupted": "print('working')\nraise KeyboardInterrupt\n",  # ends by SIGINT
    "atexit-and-thread": textwrap.dedent(
        """
        import atexit, sys, threading, time

        atexit.register(lambda: print("atexit ran", file=sys.stderr))

        def late():
            time.sleep(0.2)
            print("thread done", file=sys.stderr)

        threading.Thread(target=late).start()
        sys.exit("main ends")
        """
    ),
    "daemon-thread-dropped": textwrap.dedent(
        """
        import threading, time

        threading.Thread(target=lambda: (time.sleep(5), print("never")), daemon=True).start()
        print("main")
        """
    ),
}
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": ""}


@pytest.fixture(scope="module")
def python():
    server = PreloadedPython(ENV)
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_forked_run_ends_as_python_ends(name, python, tmp_path):
    script = tmp_path / f"{name}.py"
    script.write_text(SCRIPTS[name], encoding="utf-8")
    fresh = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, env=ENV
    )
    forked = python.run([str(script)], tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode,
        fresh.stdout,
        fresh.stderr,
    )
