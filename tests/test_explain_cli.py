"""``python -m tf_retracing.explain script.py`` ends as ``python script.py`` ends."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.harness.codeblocks import ROOT

SCRIPTS = {
    "prints-and-exits-0": "import sys\nprint('out', sys.argv[1:])\n",
    "exit-status-3": "import sys\nprint('before')\nsys.exit(3)\n",
    "exit-message": "import sys\nsys.exit('stopped: bad input')\n",
    "raises": textwrap.dedent(
        """
        def inner():
            raise ValueError("broken")


        inner()
        """
    ),
    "syntax-error": "def broken(:\n    pass\n",
    "main-returns-none": "import sys\n\n\ndef main():\n    print('ran')\n\n\nsys.exit(main())\n",
    "thread-outlives-main": textwrap.dedent(
        """
        import sys
        import threading
        import time


        def late():
            time.sleep(0.5)
            print("thread done", file=sys.stderr)  # before the report, as in plain Python


        threading.Thread(target=late).start()
        print("main done")
        """
    ),
}
TF_LOG_PREFIXES = ("I0000", "W0000", "E0000", "WARNING: All log messages", "To enable the")


def _run(args, cwd):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": ""}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=300
    )


def _without_tf_logs(text: str) -> str:
    return "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith(TF_LOG_PREFIXES)
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_explain_ends_like_plain_python(name, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPTS[name])
    plain = _run(["script.py", "a", "b"], tmp_path)
    watched = _run(["-m", "tf_retracing.explain", "script.py", "a", "b"], tmp_path)
    assert watched.returncode == plain.returncode
    assert watched.stdout == plain.stdout
    stderr = _without_tf_logs(watched.stderr)
    report_at = stderr.index("\n== retracing report for script.py ==")
    assert stderr[:report_at] == plain.stderr
    assert "no tf.function was created" in stderr[report_at:]


def test_a_path_that_is_not_a_script_fails_like_python(tmp_path):
    plain = _run([str(tmp_path)], ROOT)
    watched = _run(["-m", "tf_retracing.explain", str(tmp_path)], ROOT)
    assert watched.returncode == plain.returncode == 1
    assert "is a directory" in watched.stderr
    missing = str(tmp_path / "missing.py")
    assert _run(["-m", "tf_retracing.explain", missing], ROOT).returncode == 2
    assert _run([missing], ROOT).returncode == 2
    assert watched.stdout == ""
