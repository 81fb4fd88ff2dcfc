"""``%load_ext tf_retracing``: the explainer in a notebook. Run in a real Jupyter kernel
(ipykernel through nbclient) in the reader's environment, which has the locked packages
and the site's wheel and no repository folder; and, for the parts that need no kernel,
with a stand-in for IPython's shell."""

from __future__ import annotations

import json
import linecache
import logging
import subprocess
import sys
import textwrap
import threading

import pytest
import tensorflow as tf
import tf_retracing
from tf_retracing import explainer, notebook
from tf_retracing.html_report import render_fragment, scoped

CELLS = [
    "import tensorflow as tf\n\nearly = tf.function(lambda x: x * 2)\n_ = early(tf.zeros([1]))",
    "%load_ext tf_retracing",
    "@tf.function\ndef total(x):\n    return tf.reduce_sum(x)",
    "for n in range(1, 4):\n    total(tf.zeros([n]))\nprint('ran')",
    "total(tf.zeros([2]))  # a shape seen before: no retrace",
    "for n in range(2, 9):\n    early(tf.zeros([n]))  # made before %load_ext: TF warns",
    "%retracing",
    "%unload_ext tf_retracing",
    "total(tf.zeros([7]))  # traces again, but nobody watches any more",
]

DRIVER = textwrap.dedent(
    """\
    import json, sys
    import nbformat
    from nbclient import NotebookClient

    cells = json.loads(sys.argv[1])
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    shown = []
    for cell in nb.cells:
        outputs = []
        for out in cell.outputs:
            if out.output_type == "stream":
                outputs.append({out.name: out.text})
            elif "data" in out:
                outputs.append(dict(out.data))
        shown.append(outputs)
    print(json.dumps(shown))
    """
)


@pytest.mark.slow
def test_a_notebook_kernel_says_under_each_cell_what_traced_again(page_runs, tmp_path):
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    done = subprocess.run(
        [str(page_runs.reader_python()), "-I", "driver.py", json.dumps(CELLS)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "3", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    before, load, define, retrace, seen, early, report, unload, unwatched = json.loads(done.stdout)
    assert [out for out in before if "stderr" not in out] == []  # TensorFlow's start-up log
    assert load == [] and define == [] and unload == []
    # One summary for the cell's two retraces, after what the cell printed; no log lines.
    assert retrace[0] == {"stdout": "ran\n"}
    (summary,) = retrace[1:]
    text = summary["text/plain"]
    assert text.startswith("tf_retracing: 2 retraces of this kind in this cell; the last: ")
    assert "`total` traced again (trace 3): argument `x` changed shape from (2,) to (3,)" in text
    assert "If that size varies by design, declare it None" in text
    assert text.endswith(
        "[TFR001] https://tf-retracing-guide.github.io/tf-retracing-guide/guide/diagnosing/#tfr001"
    )
    assert "<code>total</code> traced again (trace 3)" in summary["text/html"]
    assert "`" not in summary["text/html"]
    # A cell without a retrace shows only its own result.
    assert [sorted(out) for out in seen] == [["text/plain"]]
    # The whole report, as the --html page shows it, inside the notebook.
    (shown,) = report
    assert shown["text/html"].startswith('<div class="tf-retracing-report"><style>')
    assert "<h1>Retracing report for <code>this notebook</code></h1>" in shown["text/html"]
    assert "total: why it traced again" in shown["text/plain"]
    assert "total     cell In[3], line 1" in shown["text/plain"]  # not the kernel's file name
    assert "exit status" not in shown["text/html"]
    # Made before %load_ext: said so when TensorFlow warns, never "made anew".
    (said,) = [out for out in early if "text/plain" in out]  # beside TensorFlow's warning
    assert "made before %load_ext tf_retracing" in said["text/plain"]
    assert "made anew" not in said["text/plain"]
    # After %unload_ext: the cell's result and nothing else (no message on stderr).
    assert [sorted(out) for out in unwatched] == [["text/plain"]]


class _Events:
    def __init__(self):
        self.callbacks = {}

    def register(self, name, callback):
        self.callbacks.setdefault(name, []).append(callback)

    def unregister(self, name, callback):
        self.callbacks[name].remove(callback)


class _Compiler:
    """IPython's cell compiler: the file name it gives a cell's code -> its In[] label."""

    def __init__(self):
        self.cells = {}

    def format_code_name(self, name):
        return ("Cell", f"In[{self.cells[name]}]") if name in self.cells else None


class _Result:
    def __init__(self, execution_count):
        self.execution_count = execution_count


class _Shell:
    """What the extension uses of IPython's shell."""

    def __init__(self):
        self.events = _Events()
        self.magics = {}
        self.compile = _Compiler()
        self.execution_count = 1

    def register_magic_function(self, function, magic_kind, magic_name):
        assert magic_kind == "line"
        self.magics[magic_name] = function

    def run_cell(self, body):
        for callback in self.events.callbacks.get("pre_run_cell", []):
            callback(None)
        body()
        for callback in self.events.callbacks.get("post_run_cell", []):
            callback(_Result(self.execution_count))
        self.execution_count += 1

    def run_cell_source(self, source: str, namespace: dict) -> None:
        """A cell of code, compiled under a file name as ipykernel names it (its source in
        linecache, as IPython keeps it, for AutoGraph)."""
        name = f"/tmp/ipykernel_1/{abs(hash(source))}.py"
        self.compile.cells[name] = self.execution_count
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        self.run_cell(lambda: exec(compile(source, name, "exec"), namespace))


@pytest.fixture
def shell(monkeypatch):
    shown = []
    monkeypatch.setattr(notebook, "_display", shown.append)
    ipython = _Shell()
    tf_retracing.load_ipython_extension(ipython)
    ipython.shown = shown
    yield ipython
    tf_retracing.unload_ipython_extension(ipython)


def test_each_cell_gets_the_retraces_made_in_it_and_no_others(shell):
    def make():
        global scale

        @tf.function
        def scale(x, factor):
            return x * factor

    shell.run_cell(make)
    shell.run_cell(lambda: [scale(tf.ones([2]), f) for f in (1.0, 2.0)])
    shell.run_cell(lambda: scale(tf.ones([2]), 1.0))
    shell.run_cell(lambda: scale(tf.ones([2]), 3.0))
    first, second = shell.shown
    assert "`scale` traced again (trace 2)" in repr(first)
    assert "`scale` traced again (trace 3)" in repr(second)
    assert "retraces of this kind" not in repr(second)  # one retrace in that cell


def test_loading_twice_keeps_one_session_and_the_magic_needs_it(shell):
    tf_retracing.load_ipython_extension(shell)
    assert len(shell.events.callbacks["post_run_cell"]) == 1
    assert "No tf.function traced" in repr(shell.magics["retracing"]())
    tf_retracing.unload_ipython_extension(shell)
    assert shell.events.callbacks["post_run_cell"] == []
    assert tf.function is not explainer._watching_tf_function
    with pytest.raises(RuntimeError, match="run %load_ext tf_retracing first"):
        shell.magics["retracing"]()
    tf_retracing.load_ipython_extension(shell)  # for the fixture's unload


@pytest.mark.parametrize(
    ("message", "what", "advice"),
    [
        (
            "`f` traced again (trace 2): argument `x` changed. Declare it None: or pad. "
            "More. [TFR001] https://e.org/#tfr001",
            "`f` traced again (trace 2): argument `x` changed.",
            "Declare it None: or pad.",
        ),
        ("Only one sentence here. [TFR009] https://e.org/#x", "Only one sentence here.", ""),
    ],
)
def test_a_message_splits_into_what_happened_and_the_first_advice(message, what, advice):
    assert notebook.split_message(message) == (what, advice)


def test_the_report_in_a_notebook_styles_only_itself():
    style = scoped(
        "body { color: red; }\nh1, code { margin: 0; }\n@media (x) {\n  td { a: b; }\n}", ".r"
    )
    assert (
        style
        == ".r { color: red; }\n.r h1, .r code { margin: 0; }\n@media (x) {\n  .r td { a: b; }\n}"
    )
    fragment = render_fragment({"script": "this notebook", "functions": []})
    assert "<html" not in fragment and "<body" not in fragment
    assert "\nbody {" not in fragment and "\nh1 {" not in fragment


def test_the_tools_work_where_ipython_cannot_be_imported():
    # TensorFlow imports IPython itself when it can; here it cannot, as where it is absent.
    probe = textwrap.dedent(
        """\
        import sys
        sys.modules["IPython"] = None  # any import of it now fails
        import tensorflow as tf, tf_retracing
        f = tf_retracing.explain_retracing(tf.function(lambda x: x))
        f(tf.ones([1])); f(tf.ones([2]))
        print(len(f.retrace_reasons))
        import tf_retracing.notebook  # imports IPython only when it displays something
        print("notebook module imported")
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.split("\n")[:2] == ["1", "notebook module imported"], done.stderr[-2000:]


def test_after_unload_functions_made_while_loaded_say_nothing_more(shell, caplog, capsys):
    namespace = {"tf": tf}
    shell.run_cell_source("@tf.function\ndef grow(x):\n    return x + 1\n", namespace)
    grow = namespace["grow"]
    shell.run_cell(lambda: [grow(tf.zeros([n])) for n in (1, 2)])
    assert len(shell.shown) == 1
    tf_retracing.unload_ipython_extension(shell)
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger=explainer.LOGGER.name):
        shell.run_cell(lambda: [grow(tf.zeros([n])) for n in range(3, 10)])
    assert [r for r in caplog.records if r.name == explainer.LOGGER.name] == []
    assert capsys.readouterr().err == "" and len(shell.shown) == 1
    assert grow.experimental_get_tracing_count() == 9  # it still works, unwatched
    tf_retracing.load_ipython_extension(shell)  # for the fixture's unload


def test_a_function_made_before_load_is_said_to_be_so_never_made_anew(shell):
    tf_retracing.unload_ipython_extension(shell)
    early = tf.function(lambda x: x * 2)  # made before %load_ext
    early(tf.zeros([1]))
    tf_retracing.load_ipython_extension(shell)
    shell.run_cell(lambda: [early(tf.zeros([n])) for n in range(2, 9)])  # TensorFlow warns
    (summary,) = shell.shown
    text = repr(summary)
    assert "made anew" not in text and "made without tf.function" not in text
    assert "it is one tf.function (" in text and "made before %load_ext tf_retracing" in text
    assert "Its traces were not seen, so the cause cannot be said" in text
    assert "run the cell that makes it again" in text


def test_a_function_made_before_a_reload_is_said_to_be_from_the_earlier_load(shell):
    again = tf.function(lambda x: x - 1)  # watched by this load
    again(tf.zeros([1]))
    tf_retracing.unload_ipython_extension(shell)
    tf_retracing.load_ipython_extension(shell)
    shell.run_cell(lambda: [again(tf.zeros([n])) for n in range(2, 9)])  # TensorFlow warns
    (summary,) = shell.shown
    text = repr(summary)
    assert "made anew" not in text and "made without tf.function" not in text
    assert "made under an earlier watch, which ended before %load_ext tf_retracing" in text


def test_the_whole_report_in_a_notebook_names_no_exit_status(shell):
    shell.run_cell(lambda: [tf.function(lambda x: x)(tf.zeros([1]))])
    assert "exit status" not in shell.magics["retracing"]()._repr_html_()


def test_places_in_cells_are_named_by_their_in_number(shell):
    namespace = {"tf": tf}
    shell.execution_count = 3
    shell.run_cell_source("@tf.function\ndef cell_fn(x):\n    return x\n", namespace)
    shell.run_cell(lambda: [namespace["cell_fn"](tf.zeros([n])) for n in (1, 2)])
    data = shell.magics["retracing"]().data
    (function,) = [f for f in data["functions"] if f["function"] == "cell_fn"]
    assert function["defined_at"] == "cell In[3], line 1"
    assert explainer._location("/tmp/other.py", 4) == "other.py:4"  # a file keeps its name


def test_a_background_threads_retraces_are_said_to_be_from_it_and_when(shell):
    work = tf.function(lambda x: x + 2)
    shell.run_cell(lambda: work(tf.zeros([1])))  # cell 1

    def in_thread(n):
        thread = threading.Thread(target=work, args=(tf.zeros([n]),), name="loader")
        thread.start()
        thread.join()

    in_thread(2)  # between cells 1 and 2
    shell.run_cell(lambda: in_thread(3))  # during cell 2
    shell.run_cell(lambda: work(tf.zeros([4])))  # cell 3: its own retrace
    # Both show under cell 2, the first cell to end after them, each said as it happened.
    between, during = repr(shell.shown[0]).splitlines()
    own = repr(shell.shown[1])
    assert between.startswith(
        "tf_retracing: from background thread 'loader', after cell In[1] ended, "
        "before cell In[2] ran: `"
    )
    assert during.startswith(
        "tf_retracing: from background thread 'loader', while cell In[2] ran: `"
    )
    assert "traced again (trace 2)" in between and "traced again (trace 3)" in during
    assert own.startswith("tf_retracing: `") and "traced again (trace 4)" in own
    html_text = shell.shown[0]._repr_html_()
    assert "<strong>Traced again</strong>" in html_text  # not "in this cell"
    assert "from background thread &#x27;loader&#x27;, while cell In[2] ran" in html_text
