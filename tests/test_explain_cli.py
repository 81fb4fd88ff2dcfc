"""``python -m tf_retracing.explain script.py`` ends as ``python script.py`` ends."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from verification.explainer_corpus.runner import run_environment
from verification.harness.preloaded_python import PreloadedPython

# Any folder but the test's own temporary one (the version matrix runs this file from a
# copy outside the repository, so not the repository's root).
ELSEWHERE = Path(__file__).resolve().parent

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
    # Exit statuses as the shell sees them: a bool is an int, and statuses wrap at 256.
    "exit-true": "import sys\nsys.exit(True)\n",
    "exit-263": "import sys\nsys.exit(263)\n",
    "exit-minus-1": "import sys\nsys.exit(-1)\n",
    "exit-beyond-a-c-long": "import sys\nsys.exit(2**70)\n",
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
# What python itself does with these, run through the explainer, must not change.
SCRIPTS |= {
    # An uncaught exception goes to the program's own sys.excepthook, as python hands it.
    "own-excepthook": textwrap.dedent(
        """
        import sys


        def hook(kind, error, tb):
            print("hook:", kind.__name__, error, tb.tb_frame.f_code.co_filename == __file__)


        sys.excepthook = hook
        raise RuntimeError("broken")
        """
    ),
    "excepthook-that-fails": textwrap.dedent(
        """
        import sys


        def hook(kind, error, tb):
            raise LookupError("the hook broke")


        sys.excepthook = hook
        raise RuntimeError("broken")
        """
    ),
    "excepthook-that-exits": "import sys\nsys.excepthook = lambda *a: sys.exit(4)\n1 / 0\n",
    "keyboard-interrupt": "print('working')\nraise KeyboardInterrupt\n",  # Ctrl-C: SIGINT
    "argv-file-and-path": "import sys\nprint(sys.argv, __file__, sys.path[0], __name__)\n",
    "not-utf-8": b"# no encoding declared\nname = 'caf\xe9'\n",
    "pickles-its-own-class": textwrap.dedent(
        """
        import pickle


        class Point:
            def __init__(self, x):
                self.x = x


        print(pickle.loads(pickle.dumps(Point(3))).x)
        """
    ),
}
TF_LOG_PREFIXES = ("I0000", "W0000", "E0000", "WARNING: All log messages", "To enable the")


RUN_ENV = run_environment()  # TensorFlow quiet, nothing of the repository on the path
# Most cases run in processes forked from one that has imported TensorFlow
# (verification.harness.preloaded_python), which spares them a TensorFlow start each (~4.5 CPU-s).
# These run in a new interpreter, as a reader's command does, and also forked, in a folder
# of their own: both runs must end alike, which keeps the forked runs honest.
IN_A_NEW_INTERPRETER = {"thread-outlives-main", "guard-raise"}
TIMINGS = re.compile(r"\d+\.\d+ +\d+\.\d+$", re.MULTILINE)  # the report's trace ms columns


def _run(args, cwd):
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=RUN_ENV, timeout=300
    )


@pytest.fixture
def python(preloaded_python) -> PreloadedPython:
    return preloaded_python  # tests/conftest.py: one per worker, in RUN_ENV


def _explain(case: str, args: list[str], cwd: Path, python: PreloadedPython):
    command = ["-m", "tf_retracing.explain", *args]
    if case not in IN_A_NEW_INTERPRETER:
        return python.run(command, cwd)
    twin = cwd.parent / f"{cwd.name}-forked"
    shutil.copytree(cwd, twin)  # before either run writes there
    fresh, forked = _run(command, cwd), python.run(command, twin)

    def outcome(done, folder):
        stderr = TIMINGS.sub("", _without_tf_logs(done.stderr)).replace(str(folder), "<cwd>")
        return done.returncode, done.stdout, stderr, sorted(p.name for p in folder.iterdir())

    assert outcome(forked, twin) == outcome(fresh, cwd)
    return fresh


def _without_tf_logs(text: str) -> str:
    return "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith(TF_LOG_PREFIXES)
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_explain_ends_like_plain_python(name, tmp_path, python):
    script = tmp_path / "script.py"
    source = SCRIPTS[name]
    script.write_bytes(source if isinstance(source, bytes) else source.encode())
    plain = _run(["script.py", "a", "b"], tmp_path)  # none of these imports TensorFlow
    watched = _explain(name, ["script.py", "a", "b"], tmp_path, python)
    assert watched.returncode == plain.returncode
    assert watched.stdout == plain.stdout
    stderr = _without_tf_logs(watched.stderr)
    report_at = stderr.index("\n== retracing report for script.py ==")
    assert stderr[:report_at] == plain.stderr
    assert "no tf.function was created" in stderr[report_at:]


@pytest.mark.slow
def test_a_script_run_through_a_symlink_imports_beside_its_real_file(tmp_path, python):
    real = tmp_path / "project"
    real.mkdir()
    (real / "helper.py").write_text("WHERE = 'beside the real file'\n")
    (real / "train.py").write_text("import helper\nprint(helper.WHERE)\n")
    (tmp_path / "train.py").symlink_to(real / "train.py")
    plain = python.run(["train.py"], tmp_path)
    watched = python.run(["-m", "tf_retracing.explain", "train.py"], tmp_path)
    assert plain.stdout == watched.stdout == "beside the real file\n", watched.stderr
    assert plain.returncode == watched.returncode == 0


@pytest.mark.slow
def test_dash_runs_standard_input_as_python_does(tmp_path):
    program = "import sys\nprint(sys.argv, __file__, repr(sys.path[0]), __name__)\n"

    def run(args):
        return subprocess.run(
            [sys.executable, *args, "-", "a"],
            input=program,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=RUN_ENV,
            timeout=300,
        )

    plain, watched = run([]), run(["-m", "tf_retracing.explain"])
    assert plain.stdout == watched.stdout == "['-', 'a'] <stdin> '' __main__\n", watched.stderr
    assert "== retracing report for - ==" in watched.stderr


@pytest.mark.slow
def test_a_script_that_ends_by_os_exit_leaves_no_file(tmp_path, python):
    (tmp_path / "script.py").write_text("import os\nprint('ran', flush=True)\nos._exit(3)\n")
    plain = python.run(["script.py"], tmp_path)
    watched = python.run(["-m", "tf_retracing.explain", "--json", "r.json", "script.py"], tmp_path)
    assert (plain.returncode, plain.stdout) == (watched.returncode, watched.stdout) == (3, "ran\n")
    assert [path.name for path in tmp_path.iterdir()] == ["script.py"]  # no temporary file


TERMINATED_SERVER = """\
import atexit, os, signal, time
import tensorflow as tf

atexit.register(print, "atexit ran")  # python, killed by SIGTERM, runs neither
serve = tf.function(lambda n: n)
serve(1)
serve(2)
print("serving", flush=True)
try:
    os.kill(os.getpid(), signal.SIGTERM)  # as docker stop sends it, while the server waits
    time.sleep(30)
finally:
    print("finally ran")
"""


@pytest.mark.slow
def test_sigterm_writes_every_report_then_ends_as_python_ends(tmp_path, python):
    (tmp_path / "script.py").write_text(TERMINATED_SERVER)
    plain = python.run(["script.py"], tmp_path)
    args = ["--json", "r.json", "--html", "r.html", "script.py"]
    watched = python.run(["-m", "tf_retracing.explain", *args], tmp_path)
    assert (plain.returncode, plain.stdout) == (-signal.SIGTERM, "serving\n")
    assert (watched.returncode, watched.stdout) == (plain.returncode, plain.stdout)
    assert "1 retrace for argument `n`: a Python value changed" in watched.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["exit_status"] == 143  # what a shell shows for a process SIGTERM ended
    assert report["functions"][0]["retraces"] == 1
    assert "a Python value changed</span>" in (tmp_path / "r.html").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.json", "script.py"]


def test_an_atexit_exit_status_is_not_claimed_as_the_recorded_one(tmp_path):
    # The report is written when the program's code has ended; an atexit handler runs
    # later and can change the status (os._exit): the report says which status it holds.
    (tmp_path / "script.py").write_text("import atexit, os\natexit.register(os._exit, 5)\n")
    plain = _run(["script.py"], tmp_path)
    args = ["--json", "r.json", "--html", "r.html", "script.py"]
    watched = _run(["-m", "tf_retracing.explain", *args], tmp_path)
    assert plain.returncode == watched.returncode == 5
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["exit_status"] == 0
    assert "the status the program's code ended with" in report["exit_status_note"]
    assert "atexit handlers run after this report" in report["exit_status_note"]
    page = (tmp_path / "r.html").read_text()
    assert "exit status 0 when the program&#x27;s code ended" in page
    assert "atexit handlers run after this report" in page


@pytest.mark.slow
def test_ctrl_c_ends_as_python_ends_and_the_report_is_written(tmp_path, python):
    (tmp_path / "script.py").write_text(SCRIPTS["keyboard-interrupt"])
    watched = python.run(["-m", "tf_retracing.explain", "--json", "r.json", "script.py"], tmp_path)
    assert watched.returncode == -signal.SIGINT  # a shell shows 130, as for python
    assert "KeyboardInterrupt" in watched.stderr
    assert json.loads((tmp_path / "r.json").read_text())["exit_status"] == 130


@pytest.mark.parametrize(
    ("target", "args", "message"),
    [
        ("script.py", [], "is the script itself"),
        ("data.csv", ["--input", "data.csv"], "is a file the script is given (its argument 2"),
        ("data.csv", ["--input=data.csv"], "is a file the script is given (its argument 1"),
    ],
)
def test_json_never_replaces_the_script_or_its_input(target, args, message, tmp_path, capsys):
    from tf_retracing.explain import main

    (tmp_path / "script.py").write_text("open('ran', 'w').close()\n")
    (tmp_path / "data.csv").write_text("a,b\n")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["--json", target, "script.py", *args]) == 2
    finally:
        os.chdir(here)
    assert message in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data.csv", "script.py"]
    assert (tmp_path / "data.csv").read_text() == "a,b\n"


def test_a_path_that_is_not_a_script_fails_like_python(tmp_path):
    plain = _run([str(tmp_path)], ELSEWHERE)  # a folder without __main__.py
    watched = _run(["-m", "tf_retracing.explain", str(tmp_path)], ELSEWHERE)
    assert watched.returncode == plain.returncode == 1
    assert plain.stderr.endswith(f"can't find '__main__' module in {str(tmp_path)!r}\n")
    assert watched.stderr.startswith(plain.stderr)
    missing = str(tmp_path / "missing.py")
    assert _run(["-m", "tf_retracing.explain", missing], ELSEWHERE).returncode == 2
    assert _run([missing], ELSEWHERE).returncode == 2
    assert watched.stdout == ""


FOLDER_MAIN = """\
import sys
print(sys.argv, __file__, sys.path[0], __name__, __spec__.name)
raise ValueError("from the folder's __main__")
"""


@pytest.mark.parametrize("form", ["app/", "app", "app.zip"])
def test_a_folder_or_zip_file_runs_its_main_module_as_python_runs_it(form, tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__main__.py").write_text(FOLDER_MAIN)
    with zipfile.ZipFile(tmp_path / "app.zip", "w") as archive:
        archive.write(tmp_path / "app" / "__main__.py", "__main__.py")
    plain = _run([form, "x"], tmp_path)
    watched = _run(["-m", "tf_retracing.explain", form, "x"], tmp_path)
    assert watched.returncode == plain.returncode == 1
    assert watched.stdout == plain.stdout and f"['{form}', 'x']" in plain.stdout
    report_at = watched.stderr.index(f"\n== retracing report for {form} ==")
    assert watched.stderr[:report_at] == plain.stderr  # python's traceback, frames and all
    assert "ValueError: from the folder's __main__" in plain.stderr


NO_TENSORFLOW = """\
import atexit, sys
# Runs after the explainer's report, so it sees what the whole run imported.
atexit.register(lambda: print("tensorflow imported:", "tensorflow" in sys.modules))
print("done")
"""


def test_a_program_that_never_imports_tensorflow_runs_without_it(tmp_path):
    (tmp_path / "script.py").write_text(NO_TENSORFLOW)
    started = time.monotonic()
    args = ["--json", "r.json", "--html", "r.html", "script.py"]
    watched = _run(["-m", "tf_retracing.explain", *args], tmp_path)
    took = time.monotonic() - started
    assert watched.stdout == "done\ntensorflow imported: False\n", watched.stderr
    assert watched.returncode == 0 and "no tf.function was created" in watched.stderr
    assert took < 3.0  # TensorFlow's import alone takes longer on this machine
    assert json.loads((tmp_path / "r.json").read_text())["versions"]["tensorflow"] is None


IMPORTS_TENSORFLOW_LATE = """\
import importlib.util
# A library probing for TensorFlow finds it without importing it: nothing starts yet.
assert importlib.util.find_spec("tensorflow") is not None
import keras  # imports TensorFlow while Keras itself is half imported: the explainer starts
import tensorflow as tf
print(type(tf.__loader__).__name__, type(tf.__spec__.loader).__name__)
total = tf.function(lambda x: tf.reduce_sum(x))
for n in (1, 2):
    total(tf.zeros([n]))
"""


@pytest.mark.slow
def test_a_program_that_imports_tensorflow_later_is_explained(tmp_path):
    (tmp_path / "script.py").write_text(IMPORTS_TENSORFLOW_LATE)
    watched = _run(["-m", "tf_retracing.explain", "script.py"], tmp_path)  # a new interpreter
    assert watched.returncode == 0, watched.stderr
    assert watched.stdout == "SourceFileLoader SourceFileLoader\n"  # its own loader
    assert "1 retrace for argument `x`: a tensor's shape changed" in watched.stderr
    assert "could not start" not in watched.stderr


# Options: the guard, its warm-up and the JSON report --------------------------------

RETRACING = textwrap.dedent(
    """
    import sys
    import threading

    import tensorflow as tf


    @tf.function
    def predict(x):
        return x * 2


    def serve(n):
        predict(tf.zeros(n))


    serve(1)  # warm-up
    worker = threading.Thread(target=serve, args=(2,))  # a retrace in another thread
    worker.start()
    worker.join()
    serve(3)  # a retrace in the main thread
    print("served", sys.argv[1:])
    """
)
LOGGED = "retrace after warm-up (logged once per function)"
RAISED = "RetracingBudgetExceeded: retrace after warm-up"

# name: (options, the script's own arguments, exit status, stdout, stderr must hold:
#        {text: times}, JSON file expected)
OPTION_CASES = {
    "json": (["--json", "report.json"], [], 0, "served []\n", {LOGGED: 0}, True),
    "guard-log": (["--guard", "log"], [], 0, "served []\n", {LOGGED: 1}, False),
    "guard-log-warmup-2": (
        ["--guard=log", "--warmup=2"],
        ["x"],
        0,
        "served ['x']\n",
        {LOGGED: 1, "1 retrace after warm-up": 1},
        False,
    ),
    # The thread's retrace raises in the thread (printed, as Python prints it), and the
    # main thread's raises in the main thread: the program fails as it would on any error.
    "guard-raise": (["--guard", "raise", "--json", "report.json"], [], 1, "", {RAISED: 2}, True),
    "guard-raise-after-warmup-3": (
        ["--guard", "raise", "--warmup", "3"],
        [],
        0,
        "served []\n",
        {RAISED: 0},
        False,
    ),
    "options-end-at-the-script": (
        ["--"],
        ["--json", "other.json", "--guard", "raise"],
        0,
        "served ['--json', 'other.json', '--guard', 'raise']\n",
        {RAISED: 0},
        False,
    ),
}


@functools.cache
def _plain_retracing_run(
    script_args: tuple[str, ...], python: PreloadedPython
) -> subprocess.CompletedProcess:
    """The retracing script without the explainer, run once per argument list (several
    cases share one)."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "script.py").write_text(RETRACING)
        return python.run(["script.py", *script_args], Path(folder))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(OPTION_CASES))
def test_explain_options_against_plain_python(name, tmp_path, python):
    options, script_args, status, stdout, counts, writes_json = OPTION_CASES[name]
    (tmp_path / "script.py").write_text(RETRACING)
    plain = _plain_retracing_run(tuple(script_args), python)
    assert plain.returncode == 0 and plain.stdout == f"served {script_args}\n"
    watched = _explain(name, [*options, "script.py", *script_args], tmp_path, python)
    stderr = _without_tf_logs(watched.stderr)
    assert (watched.returncode, watched.stdout) == (status, stdout), stderr
    for text, times in counts.items():
        assert stderr.count(text) == times, (text, stderr)
    assert "== retracing report for script.py ==" in stderr
    files = sorted(path.name for path in tmp_path.iterdir())
    assert files == sorted(["script.py", *(["report.json"] if writes_json else [])])
    if writes_json:
        report = json.loads((tmp_path / "report.json").read_text())
        assert report["schema_version"] == 1 and report["exit_status"] == status
        assert report["args"] == script_args
        (function,) = report["functions"]
        assert (function["function"], function["traces"]) == ("predict", 3)
        assert [r["cause"] for r in function["reasons"]] == ["TFR001", "TFR001"]
        guarded = report["guard"]
        assert (
            guarded is None
            if "--guard" not in options
            else len(guarded["retraces_after_warmup"]) == 2
        )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--json", "missing-folder/report.json"], "cannot write the JSON report to "),
        (["--json", "."], "is a directory; give a file path"),
        (["--json="], "--json needs a file path"),
        (["--guard", "maybe"], "--guard must be 'log' or 'raise', got 'maybe'"),
        (["--warmup", "2"], "--warmup needs --guard log or --guard raise"),
        (["--guard", "log", "--warmup", "-1"], "--warmup must be a whole number"),
        (["--guard", "log", "--guard", "raise"], "--guard given twice"),
        (["--verbose"], "unknown option '--verbose' (options go before the script)"),
    ],
)
def test_bad_options_stop_before_the_script_with_status_2(options, message, tmp_path, capsys):
    from tf_retracing.explain import main

    script = tmp_path / "script.py"
    script.write_text("open('ran', 'w').close()\n")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main([*options, "script.py"]) == 2
    finally:
        os.chdir(here)
    captured = capsys.readouterr()
    first_line = captured.err.splitlines()[0]
    assert first_line.startswith("python -m tf_retracing.explain: ") and message in first_line
    if "JSON" in message or "directory" in message or "file path" in message:
        assert captured.err.count("\n") == 1  # one line
    assert captured.out == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["script.py"]  # not run


def test_options_without_a_script_and_help(capsys):
    from tf_retracing.explain import main

    assert main(["--guard", "log"]) == 2
    assert "no script given" in capsys.readouterr().err
    assert main(["--", "--json"]) == 2  # after --, "--json" is the script's name
    assert "can't open file '--json'" in capsys.readouterr().err
    assert main(["--help"]) == 0
    help_text = capsys.readouterr().out
    assert "--guard log|raise" in help_text and "schema_version 1" in help_text


def test_help_bad_options_and_a_missing_script_answer_without_tensorflow(tmp_path):
    # Only running a script needs TensorFlow; these answer before its start-up cost.
    probe = textwrap.dedent(
        """
        import contextlib, io, sys
        from tf_retracing.explain import main
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            statuses = [main(["--help"]), main(["--guard", "maybe", "x.py"]), main(["x.py"])]
        print(statuses, "tensorflow" in sys.modules)
        """
    )
    done = _run(["-c", probe], tmp_path)
    assert done.stdout == "[0, 2, 2] False\n", done.stderr


@pytest.mark.slow
def test_html_report_shows_each_retrace_with_its_cause_change_advice_and_link(tmp_path, python):
    from tf_retracing.html_report import render_html

    (tmp_path / "script.py").write_text(RETRACING)
    args = ["--html", "report.html", "--json", "report.json", "script.py"]
    watched = python.run(["-m", "tf_retracing.explain", *args], tmp_path)
    assert watched.returncode == 0, watched.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    data = json.loads((tmp_path / "report.json").read_text())
    assert page == render_html(data)  # the page shows what the JSON report holds
    (function,) = data["functions"]
    assert page.count("<li>trace ") == function["traces"] == 3
    for reason in function["reasons"]:
        assert f'<a href="{reason["url"]}">{reason["cause"]}</a>' in page
        assert f"<code>{reason['before']}</code> → <code>{reason['after']}</code>" in page
        assert f"for argument <code>{reason['argument']}</code>" in page
    assert "<script" not in page and "<link" not in page and "src=" not in page  # offline
    assert 'name="viewport"' in page


def test_html_report_escapes_what_the_program_named():
    from tf_retracing.html_report import render_html

    reason = {
        "function": "f<x>",
        "trace": 2,
        "argument": 'batch["<ids>"]',
        "kind": "shape",
        "before": "(1,)",
        "after": "(2,)",
        "message": "changed <b> [TFR001] https://example.org/#tfr001",
        "cause": "TFR001",
        "url": "https://example.org/#tfr001",
        "trace_ms": 1.0,
    }
    function = {
        "function": "f<x>",
        "defined_at": "a.py:1",
        "tf_functions": 1,
        "traces": 2,
        "retraces": 1,
        "trace_ms": 2.0,
        "retrace_ms": 1.0,
        "reasons": [reason],
    }
    page = render_html({"script": "<s>.py", "exit_status": 0, "functions": [function]})
    assert "<s>" not in page and "<b>" not in page and "&lt;ids&gt;" in page
    assert "<p>changed &lt;b&gt;</p>" in page  # the link is shown apart, not repeated


# A report whose function, argument and value hold backticks, and a value too long for
# any screen's width (also read by tests/test_browser.py).
BACKTICKS_AND_A_LONG_VALUE = (
    Path(__file__).parent / "fixtures" / "explain" / ("backticks-and-a-long-value.json")
)


def test_html_report_keeps_backticks_in_names_inside_their_code():
    from tf_retracing.html_report import render_html

    page = render_html(json.loads(BACKTICKS_AND_A_LONG_VALUE.read_text()))
    advice = re.search(r"<p>(.*?)</p></li>", page).group(1)
    assert advice.startswith(
        "<code>f`g</code> traced again (trace 2): argument <code>batch[&quot;a`b&quot;]</code>"
        " is a Python str whose value changed from &#x27;c`d&#x27; to "
    )
    assert advice.endswith("Pass it as a tensor (<code>tf.constant</code>).")
    assert page.count("<code>") == page.count("</code>")
    assert "overflow-wrap: anywhere; }" in page.split("h1 {")[0]  # on the body: all text


@pytest.mark.slow
@pytest.mark.parametrize(("code", "status"), [("True", 1), ("263", 7), ("-1", 255)])
def test_the_json_report_records_the_status_the_shell_sees(code, status, tmp_path, python):
    (tmp_path / "script.py").write_text(f"import sys\nsys.exit({code})\n")
    done = python.run(["-m", "tf_retracing.explain", "--json", "r.json", "script.py"], tmp_path)
    assert done.returncode == status
    assert json.loads((tmp_path / "r.json").read_text())["exit_status"] == status


CLOSES_STDERR = """\
import io
import sys

import tensorflow as tf

shift = tf.function(lambda n: n)
for n in range(3):
    shift(n)
print("to stderr before closing it", file=sys.stderr)
sys.stderr.close()
sys.stderr = io.StringIO()
print("done")
"""


@pytest.mark.slow
def test_a_script_that_closes_stderr_still_gets_its_report_and_files(tmp_path, python):
    (tmp_path / "script.py").write_text(CLOSES_STDERR)
    plain = python.run(["script.py"], tmp_path)  # TensorFlow's import changes nothing here
    done = python.run(
        ["-m", "tf_retracing.explain", "--json", "r.json", "--html", "r.html", "script.py"],
        tmp_path,
    )
    assert (done.returncode, done.stdout) == (plain.returncode, plain.stdout) == (0, "done\n")
    stderr = _without_tf_logs(done.stderr)
    assert stderr.index("to stderr before closing it") < stderr.index("== retracing report")
    assert (
        "2 retraces for argument `n`: a Python value changed." in stderr
    )  # the report, on the original standard error
    assert json.loads((tmp_path / "r.json").read_text())["functions"][0]["retraces"] == 2
    assert "a Python value changed</span>" in (tmp_path / "r.html").read_text()


HOSTILE_VALUES = """\
import tensorflow as tf

check = tf.function(lambda s: tf.constant(1))
for s in ["\\x1b[31mred", "abc\\u202edef", "lone\\ud800", "x" * 200_000]:
    check(s)
"""


@pytest.mark.slow
def test_hostile_values_are_escaped_and_cut_in_every_report(tmp_path, python):
    (tmp_path / "script.py").write_text(HOSTILE_VALUES)
    args = ["-m", "tf_retracing.explain", "--json", "r.json", "--html", "r.html", "script.py"]
    done = python.run(args, tmp_path)  # its stderr read as UTF-8: a lone surrogate would fail
    assert done.returncode == 0
    stderr = done.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    texts = {"stderr": stderr, "html": html, "json": json.dumps(report, ensure_ascii=False)}
    for name, text in texts.items():
        assert "\x1b" not in text and "\u202e" not in text, name
        assert "\\x1b[31mred" in text or "\\\\x1b[31mred" in text, name  # shown escaped
        assert max(map(len, text.splitlines())) < 5_000, name  # the long value is cut
    assert "(200,002 characters)" in stderr


def test_the_console_command_names_itself_in_help_and_errors(capsys):
    from tf_retracing.cli import main as console

    assert console(["explain", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: tf-retracing explain [--guard")
    assert console(["explain", "--bogus", "script.py"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tf-retracing explain: unknown option '--bogus'")
    assert "python -m tf_retracing.explain" not in err
