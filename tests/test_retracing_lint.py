"""The retracing linter (``tf_retracing.lint``): each rule found where its hazard is and
not where it is fixed, bad input, suppressions, settings, output formats, the guide's own
examples, and every rule's link to the built site. (``test_lint.py`` is about ruff.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from tf_retracing.lint import RULES, Config, LintInputError, lint_paths, lint_source, main
from tf_retracing.lint.config import SITE_URL
from tf_retracing.lint.engine import read_suppressions

from verification.harness.codeblocks import ROOT, page_blocks
from verification.harness.site_links import base_path_from_config

HEADER = "import keras\nimport numpy as np\nimport tensorflow as tf\n\n"


def rules_found(source: str, header: str = HEADER) -> list[str]:
    return [f.rule for f in lint_source(header + textwrap.dedent(source))]


# Each rule carries its own examples (``Rule.found`` and ``Rule.clean``).


def test_every_rule_has_examples_of_both_kinds():
    assert all(rule.found and rule.clean for rule in RULES)


@pytest.mark.parametrize(
    ("code", "source"),
    [(rule.code, source) for rule in RULES for source in rule.found],
)
def test_rule_finds_its_hazard(code, source):
    found = rules_found(source)
    assert found and set(found) == {code}, found


@pytest.mark.parametrize(
    ("code", "source"),
    [(rule.code, source) for rule in RULES for source in rule.clean],
)
def test_rule_stays_silent_where_it_is_fixed(code, source):
    assert rules_found(source) == []


# An object made in the same loop iteration as the tf.function it is passed to (gato-hep,
# the second blind corpus's two TFL010 findings off its marks): the new function traces
# once anyway, which TFL001 reports; the object adds no trace to it.
OBJECT_MADE_WITH_THE_FUNCTION = """
for nbins in (5, 10):
    optimizer = keras.optimizers.RMSprop(0.01)
    @tf.function
    def train_step(opt, x):
        return x * 2
    for epoch in range(3):
        train_step(optimizer, tf.ones([2]))
"""
# Run with each function's count kept (a line the linter reads as a deliberate count).
COUNTED = "    traces.append(train_step.experimental_get_tracing_count())\n"


def test_a_method_of_a_temporary_instance_called_in_a_loop_is_followed():
    """``Job().run(x)`` in a loop reaches the tf.function ``run`` makes per call, as
    ``job = Job()`` then ``job.run(x)`` does."""
    job = """
    class Job:
        def run(self, x):
            return tf.function(tf.abs)(x)


    for x in data:
        {call}
    """
    assert rules_found(job.format(call="Job().run(x)")) == ["TFL001"]
    assert rules_found(job.format(call="Other().run(x)")) == []  # not the file's class


def test_an_object_made_with_the_function_is_left_to_tfl001():
    assert rules_found(OBJECT_MADE_WITH_THE_FUNCTION) == ["TFL001"]
    namespace = {"traces": []}
    exec(HEADER + OBJECT_MADE_WITH_THE_FUNCTION + COUNTED, namespace)
    assert namespace["traces"] == [1, 1]  # one trace per function, none per optimizer
    # The function made once, outside the loop: each new optimizer is a new trace.
    once = """
    @tf.function
    def train_step(opt, x):
        return x * 2
    for nbins in (5, 10):
        optimizer = keras.optimizers.RMSprop(0.01)
        for epoch in range(3):
            train_step(optimizer, tf.ones([2]))
    """
    assert rules_found(once) == ["TFL010"]
    namespace = {}
    exec(
        HEADER + textwrap.dedent(once) + "traces = train_step.experimental_get_tracing_count()",
        namespace,
    )
    assert namespace["traces"] == 2


def test_a_module_without_tensorflow_or_keras_has_no_findings():
    source = "for i in range(3):\n    function(i)\n"
    assert rules_found(source, header="") == []


def test_a_finding_has_a_location_a_message_and_a_link():
    source = "import tensorflow as tf\n\n@tf.function\ndef f(x, n):\n    return x\n"
    source += "for n in range(3):\n    f(tf.ones([2]), n)  # é\n"
    (finding,) = lint_source(source, "step.py")
    assert (finding.path, finding.line, finding.column, finding.rule) == (
        "step.py",
        7,
        21,
        "TFL003",
    )
    assert finding.name == "python-value-argument"
    assert "f()" in finding.message
    assert finding.url == f"{SITE_URL}guide/tensor-vs-python/#python-numbers-versus-tfconstant"


def test_columns_count_characters_not_bytes():
    source = "import tensorflow as tf\nf = tf.function(lambda x, n: x)\n"
    source += "for n in range(3):\n    é = f(tf.ones([2]), n)\n"
    (finding,) = lint_source(source)
    assert finding.column == len("    é = f(tf.ones([2]), ") + 1


# --- the guide's own examples -----------------------------------------------------------

# Every finding on the guide's pages, keyed by content: (page, the code of the line the
# finding starts on, rule). Each is one of its "before" examples (the hazard the section
# shows); the "fixed" examples next to them give none. Adding or moving blocks changes
# nothing here; only a change to a flagged line or a new finding does.
GUIDE_FINDINGS = {
    ("docs/guide/causes.md", "apply(Settings(2.0), x)", "TFL010"),
    ("docs/guide/causes.md", "per_shape(batch)", "TFL011"),
    ("docs/guide/causes.md", "scaled(np.array([1.0, 2.0]))", "TFL009"),
    ("docs/guide/causes.md", "tf.function(add_one)(tf.constant(step))", "TFL001"),
    ("docs/guide/causes.md", "def score(x):", "TFL001"),
    ("docs/guide/causes/objects.md", "apply(Settings(2.0), x)", "TFL010"),
    ("docs/guide/claims-checked.md", "predict_any(tf.zeros([batch_size, 50]))", "TFL011"),
    ("docs/guide/claims-checked.md", "scaled(tf.zeros([2]), factor)", "TFL003"),
    ("docs/guide/claims-checked.md", "weight = tf.Variable(2.0)", "TFL005"),
    ("docs/guide/claims-checked/values-objects-keras.md", "doubled(value)", "TFL003"),
    ("docs/guide/claims-checked/values-objects-keras.md", "doubled_array(np.ones(3))", "TFL009"),
    ("docs/guide/claims-checked/values-objects-keras.md", "doubled_array(np.zeros(3))", "TFL009"),
    ("docs/guide/claims-checked/values-objects-keras.md", "following_hints(value)", "TFL003"),
    ("docs/guide/claims-checked/values-objects-keras.md", "hinted(value)", "TFL003"),
    (
        "docs/guide/claims-checked/values-objects-keras.md",
        "return model.predict(x, verbose=0)",
        "TFL006",
    ),
    ("docs/guide/claims-checked/values-objects-keras.md", "sum_with_tf_range(steps)", "TFL003"),
    (
        "docs/guide/diagnosing/serving-guard.md",
        "normalise = tf.function(lambda x: x / 255)",
        "TFL001",
    ),
    (
        "docs/guide/diagnosing/serving-guard.md",
        "return predict(normalise(request), threshold)",
        "TFL003",
    ),
    ("docs/guide/diagnosing/tensorflow-tools.md", "double(n)", "TFL003"),
    ("docs/guide/how-tracing-works.md", "scale(tf.constant([1.0, 2.0]), factor)", "TFL003"),
    ("docs/guide/input-signatures.md", "row_sums(tf.zeros([batch_size, 4]))", "TFL011"),
    ("docs/guide/keras-2.md", "return model.predict(features, verbose=0)", "TFL006"),
    ("docs/guide/keras-2.md", "model.predict(rows(n)[0], verbose=0)", "TFL004"),
    ("docs/guide/keras-models.md", "fresh = build_model()", "TFL002"),
    ("docs/guide/keras-models.md", "model.predict(batch(rows), batch_size=1, verbose=0)", "TFL004"),
    ("docs/guide/keras-models.md", "model.predict(batch(3), verbose=0)", "TFL004"),
    ("docs/guide/keras-models.md", "model.predict(batch(rows), verbose=0)", "TFL004"),
    ("docs/guide/keras-models.md", "model.predict(batch(rows).astype(dtype), verbose=0)", "TFL004"),
    ("docs/guide/keras-models.md", "return model.predict(features, verbose=0)", "TFL006"),
    ("docs/guide/lint/rules.md", "return x.numpy().tolist()", "TFL007"),
    ("docs/guide/memory.md", "normalise(tf.ones([length]))", "TFL011"),
    ("docs/guide/retracing-warning.md", "every_fourth(tf.zeros([call // 4 + 1]))", "TFL011"),
    ("docs/guide/retracing-warning.md", "every_third(tf.zeros([call // 3 + 1]))", "TFL011"),
    ("docs/guide/retracing-warning.md", "identity(tf.zeros([length]))", "TFL011"),
    ("docs/guide/retracing-warning.md", "keyed_on_value(value)", "TFL003"),
    ("docs/guide/retracing-warning.md", "muted(value)", "TFL003"),
    ("docs/guide/retracing-warning.md", "shift(n)", "TFL003"),
    # Not found: `[tf.function(Doubler()) for _ in range(6)]`, six tf.functions made in a
    # comprehension and called in a later loop (TFL001 follows a function made and called
    # in one loop).
    ("docs/guide/retracing-warning.md", "tf.function(same)(tf.constant(value))", "TFL001"),
    ("docs/guide/retracing-warning.md", "total += inner(tf.ones([length]))", "TFL011"),
    ("docs/guide/retracing-warning.md", "warm_up(tf.zeros([length]))", "TFL011"),
    ("docs/guide/tensor-vs-python.md", "if x > 0:", "TFL008"),
    ("docs/guide/tensor-vs-python.md", "repeat_double(x, times)", "TFL003"),
    ("docs/guide/tensor-vs-python/recursion.md", "result = countdown(depth).numpy()", "TFL003"),
    ("docs/guide/variables.md", "return tf.Variable(1.0) * x", "TFL005"),
    ("docs/index.md", "double(n)", "TFL003"),
    ("docs/index.md", "halve(tf.zeros([length]))", "TFL011"),
    ("docs/index.md", "triple(n)", "TFL003"),
}
# Hazards the pages run on purpose as the evidence of their claims (issue 44's blocks).
GUIDE_FINDINGS |= {
    ("docs/guide/claims-checked.md", "return x * tf.Variable(2.0)", "TFL005"),
    ("docs/guide/diagnosing/programs.md", "scale(x, k)", "TFL003"),
    ("docs/guide/dynamic-shapes.md", "flatten_exact(tf.zeros([size, 3]))", "TFL011"),
    (
        "docs/guide/keras-models.md",
        "model.predict(batch(3), verbose=0, callbacks=[callback])",
        "TFL004",
    ),
    ("docs/guide/keras-models.md", "model.predict(batch(rows), batch_size=4, verbose=0)", "TFL004"),
    (
        "docs/guide/keras-models.md",
        'model.predict(batch(rows).astype("int32"), verbose=0)',
        "TFL004",
    ),
    (
        "docs/guide/keras-training.md",
        'sequences.train_on_batch(np.ones((2, length), "int32"), np.ones((2, 1), "float32"))',
        "TFL011",
    ),
    ("docs/guide/lint/rules.md", "model.predict(np.ones([3, 4], np.float32), verbose=0)", "TFL004"),
    (
        "docs/guide/official-guide/docstring-and-warning.md",
        "warnings_after(lambda: [twice(tf.zeros([n // 2])) for n in range(2, 40)]),",
        "TFL011",
    ),
}
# TensorFlow's guide, checked: the hazards its pages run on purpose, to test the guide's claims.
GUIDE_FINDINGS |= {
    ("docs/guide/official-guide/docstring-and-warning.md", "if x > 0:", "TFL008"),
    ("docs/guide/official-guide/docstring-and-warning.md", "relaxed(n)", "TFL003"),
    ("docs/guide/official-guide/docstring-and-warning.md", "shows(a, tf.constant(b))", "TFL003"),
    ("docs/guide/official-guide/docstring-and-warning.md", "with_hints(n)", "TFL003"),
    (
        "docs/guide/official-guide/docstring-and-warning.md",
        "return [values(n) for n in range(5)]",
        "TFL003",
    ),
    (
        "docs/guide/official-guide/docstring-and-warning.md",
        "tf.function(lambda x: x)(tf.zeros([1]))",
        "TFL001",
    ),
    ("docs/guide/official-guide/function-limitations.md", "return tf.Variable(1.0)", "TFL005"),
    (
        "docs/guide/official-guide/function-limitations.md",
        "step = tf.function(apply.python_function)",
        "TFL001",
    ),
}


def guide_findings() -> set[tuple[str, str, str]]:
    """Each block linted with the blocks it continues; a finding belongs to its block."""
    found = set()
    for page in sorted((ROOT / "docs").rglob("*.md")):
        name = page.relative_to(ROOT).as_posix()
        chain: list = []
        for block in page_blocks(page):
            chain = [*chain, block] if block.title.startswith("Continues") else [block]
            before = "".join(b.code if b.code.endswith("\n") else b.code + "\n" for b in chain[:-1])
            source = before + block.code
            for finding in lint_source(source, name):
                if finding.line > before.count("\n"):
                    line = source.splitlines()[finding.line - 1].split("  #")[0].strip()
                    found.add((name, line, finding.rule))
    return found


def test_the_guide_examples_give_exactly_the_known_findings():
    assert guide_findings() == GUIDE_FINDINGS


def test_every_rule_is_found_in_the_guide():
    assert {rule for _, _, rule in GUIDE_FINDINGS} == {rule.code for rule in RULES}


# --- the command line ---------------------------------------------------------------------


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


HAZARD = """\
import tensorflow as tf

@tf.function
def f(x, n):
    return x * n

for n in range(3):
    f(tf.ones([2]), n)
"""
CLEAN = "import tensorflow as tf\n\nprint(tf.ones([2]))\n"


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_exit_status_is_0_when_clean_and_1_with_findings(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "clean.py", CLEAN)
    assert run_main(capsys, "clean.py") == (0, "No findings (1 file checked).\n", "")
    write(tmp_path, "hazard.py", HAZARD)
    status, out, err = run_main(capsys, ".")
    assert status == 1 and err == ""
    assert out.splitlines()[0].startswith("hazard.py:8:21: TFL003 ")
    assert out.splitlines()[-1] == "Found 1 finding in 1 file (2 files checked)."


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.py", "def f(:\n", "broken.py: cannot parse: invalid syntax (line 1)"),
        ("image.py", b"\x89PNG\r\n\x1a\n\x00\x00", "image.py: binary file, not Python source"),
        ("latin.py", b"x = '\xe9'\n", "latin.py: cannot decode"),
        ("missing.py", None, "missing.py: no such file or folder"),
    ],
)
def test_bad_input_is_one_line_with_exit_2_and_other_files_are_checked(
    tmp_path, capsys, monkeypatch, name, content, message
):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "hazard.py", HAZARD)
    if content is not None:
        write(tmp_path, name, content)
    status, out, err = run_main(capsys, name, "hazard.py")
    assert status == 2
    assert len(err.splitlines()) == 1
    assert err.startswith(f"tf-retracing lint: error: {message}")
    assert "hazard.py:8:21: TFL003" in out  # the good file was still checked


# --- hostile trees: every file that cannot be read is one error line, nothing hangs ----


def _lint_folder_in_a_subprocess(folder: Path) -> subprocess.CompletedProcess:
    """The CLI on a folder, with a deadline: a linter that blocks fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "tf_retracing.lint", "."],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")
def test_a_fifo_and_a_link_to_a_device_are_refused_without_reading(tmp_path):
    write(tmp_path, "hazard.py", HAZARD)
    os.mkfifo(tmp_path / "pipe.py")  # opening it for reading would block forever
    (tmp_path / "zeros.py").symlink_to("/dev/zero")  # reading it would never end
    done = _lint_folder_in_a_subprocess(tmp_path)
    assert done.returncode == 2
    errors = done.stderr.splitlines()
    assert errors == [
        f"python -m tf_retracing.lint: error: {name}: not a regular file (a FIFO, a device "
        "or a socket): not read"
        for name in ("pipe.py", "zeros.py")
    ]
    assert "hazard.py:8:21: TFL003" in done.stdout


def test_a_file_over_the_size_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("tf_retracing.lint.engine.MAX_BYTES", 1000)
    write(tmp_path, "huge.py", "x = 1\n" * 1000)
    write(tmp_path, "hazard.py", HAZARD)
    result = lint_paths([str(tmp_path)])
    assert [e.message for e in result.errors] == ["larger than 0 MB: not read as source"]
    assert [f.rule for f in result.findings] == ["TFL003"]


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow as tf\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n",
        "import tensorflow as tf\nx = " + "-" * 100_000 + "1\n",
        "import tensorflow as tf\nx = 1" + " + 1" * 100_000 + "\n",
    ],
    ids=["parentheses", "unary", "long-sum"],
)
def test_deep_nesting_is_one_error_line_or_linted(tmp_path, source):
    write(tmp_path, "deep.py", source)
    write(tmp_path, "hazard.py", HAZARD)
    result = lint_paths([str(tmp_path)])
    assert [f.rule for f in result.findings] == ["TFL003"]  # the other file's finding
    assert len(result.errors) <= 1
    assert all(e.path.endswith("deep.py") and "cannot parse" in e.message for e in result.errors)


def test_names_bound_to_each_other_do_not_recurse():
    source = """
    @tf.function
    def f(x, n):
        return x
    a = b
    b = a
    for i in range(3):
        c = d
        d = c
        f(a, c)
        f(tf.ones([2]), i)
    """
    assert rules_found(source) == ["TFL003"]


def test_a_rule_that_fails_keeps_the_other_rules_findings(tmp_path, monkeypatch, capsys):
    import dataclasses

    import tf_retracing.lint.engine as engine

    def broken(facts):
        raise KeyError("a bug")

    rules = tuple(
        dataclasses.replace(rule, check=broken) if rule.code == "TFL001" else rule
        for rule in engine.RULES
    )
    monkeypatch.setattr(engine, "RULES", rules)
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "hazard.py", HAZARD)
    status, out, err = run_main(capsys, "hazard.py")
    assert status == 2
    assert "hazard.py:8:21: TFL003" in out
    assert err.startswith("tf-retracing lint: error: hazard.py: internal error in rule TFL001")
    assert "the other rules' are shown" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('tool = "x"\n', "[tool] must be a table"),
        ("[tool]\ntf-retracing = 3\n", "[tool.tf-retracing] must be a table"),
    ],
)
def test_a_pyproject_whose_tool_is_not_a_table_is_named(tmp_path, capsys, text, message):
    write(tmp_path, "pyproject.toml", text)
    status, _, err = run_main(capsys, "--config", str(tmp_path / "pyproject.toml"), ".")
    assert status == 2
    assert err == f"tf-retracing lint: error: {tmp_path / 'pyproject.toml'}: {message}\n"


def test_the_linted_files_own_syntax_warnings_are_not_printed(tmp_path):
    write(
        tmp_path, "escapes.py", 'import re\nimport tensorflow as tf\npattern = re.compile("\\s")\n'
    )
    done = _lint_folder_in_a_subprocess(tmp_path)
    assert (done.returncode, done.stderr) == (0, "")


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["--format", "xml", "."])
    assert raised.value.code == 2
    with pytest.raises(SystemExit) as raised:
        main(["--select", "TFL999", "."])
    assert raised.value.code == 2
    assert "unknown rule 'TFL999'" in capsys.readouterr().err


def test_select_and_ignore_on_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "hazard.py", HAZARD)
    assert run_main(capsys, "--ignore", "TFL003", "hazard.py")[0] == 0
    assert run_main(capsys, "--select", "TFL001,TFL002", "hazard.py")[0] == 0
    assert run_main(capsys, "--select", "TFL003", "hazard.py")[0] == 1


def test_select_on_the_command_line_keeps_the_configured_ignore(tmp_path, capsys, monkeypatch):
    """As the help and the Lint page say: --select replaces the configured select only."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "hazard.py", HAZARD)
    write(tmp_path, "pyproject.toml", '[tool.tf-retracing.lint]\nignore = ["TFL003"]\n')
    assert run_main(capsys, "--select", "TFL003", "hazard.py")[0] == 0
    (tmp_path / "pyproject.toml").unlink()
    assert run_main(capsys, "--select", "TFL003", "hazard.py")[0] == 1


def test_list_rules_names_every_rule_with_its_link(capsys):
    status, out, _ = run_main(capsys, "--list-rules")
    assert status == 0
    for rule in RULES:
        assert f"{rule.code} {rule.name}: " in out
        assert f"{SITE_URL}guide/{rule.page}" in out


# --- suppressions and settings --------------------------------------------------------------


def test_a_line_suppression_hides_only_its_rule_on_its_line():
    hidden = HAZARD.replace(
        "f(tf.ones([2]), n)", "f(tf.ones([2]), n)  # tf-retracing: ignore[TFL003]"
    )
    assert lint_source(hidden) == []
    other = HAZARD.replace(
        "f(tf.ones([2]), n)", "f(tf.ones([2]), n)  # tf-retracing: ignore[TFL001]"
    )
    assert [f.rule for f in lint_source(other)] == ["TFL003"]
    every = HAZARD.replace("f(tf.ones([2]), n)", "f(tf.ones([2]), n)  # tf-retracing: ignore")
    assert lint_source(every) == []


def test_a_file_suppression_hides_its_rules_everywhere_in_the_file():
    assert lint_source("# tf-retracing: ignore-file[TFL003]\n" + HAZARD) == []
    assert lint_source(HAZARD + "# tf-retracing: ignore-file\n") == []
    assert [f.rule for f in lint_source("# tf-retracing: ignore-file[TFL001]\n" + HAZARD)] == [
        "TFL003"
    ]


def test_a_suppression_inside_a_string_is_not_a_suppression():
    text = HAZARD + 'NOTE = "# tf-retracing: ignore-file"\n'
    assert [f.rule for f in lint_source(text)] == ["TFL003"]
    assert read_suppressions(text).whole_file is False


def test_an_unknown_rule_in_a_suppression_is_an_error():
    with pytest.raises(LintInputError, match="line 1: unknown rule 'TFL03'"):
        lint_source("# tf-retracing: ignore-file[TFL03]\n" + HAZARD)


def test_settings_from_pyproject(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, "src/hazard.py", HAZARD)
    write(tmp_path, "legacy/old.py", HAZARD)
    write(tmp_path, "tests/test_x.py", HAZARD)
    write(
        tmp_path,
        "pyproject.toml",
        """
        [tool.tf-retracing.lint]
        exclude = ["legacy/"]
        per-file-ignores = { "tests/*" = ["TFL003"] }
        """,
    )
    status, out, _ = run_main(capsys, ".")
    assert status == 1
    assert [line.split(":")[0] for line in out.splitlines()[:-1]] == ["src/hazard.py"]
    write(tmp_path, "pyproject.toml", '[tool.tf-retracing.lint]\nignore = ["TFL003"]\n')
    assert run_main(capsys, ".")[0] == 0
    write(tmp_path, "pyproject.toml", '[tool.tf-retracing.lint]\nselect = ["TFL001"]\n')
    assert run_main(capsys, ".")[0] == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tool.tf-retracing.lint]\nselct = []\n", "unknown key 'selct'"),
        ('[tool.tf-retracing.lint]\nignore = ["TFL42"]\n', "'ignore': unknown rule 'TFL42'"),
        ("[tool.tf-retracing.lint]\nignore = 3\n", "'ignore': expected a list"),
        ("[tool.tf-retracing.lint\n", "not valid TOML"),
    ],
)
def test_bad_settings_name_the_file_and_the_key(tmp_path, capsys, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, "pyproject.toml", text)
    write(tmp_path, "hazard.py", HAZARD)
    status, out, err = run_main(capsys, ".")
    assert (status, out) == (2, "")
    assert err.startswith("tf-retracing lint: error: ") and "pyproject.toml" in err
    assert message in err


def test_a_named_settings_file_must_exist(capsys):
    status, _, err = run_main(capsys, "--config", "no/such/pyproject.toml", ".")
    assert status == 2
    assert "no/such/pyproject.toml: no such settings file" in err


def test_config_patterns_are_relative_to_the_settings_file(tmp_path):
    config = Config(exclude=("gen/*",), root=tmp_path)
    assert config.excluded(str(tmp_path / "gen" / "a.py"))
    assert not config.excluded(str(tmp_path / "src" / "gen" / "a.py"))


# --- output formats ---------------------------------------------------------------------------


def test_json_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "hazard.py", HAZARD)
    status, out, _ = run_main(capsys, "--format", "json", "hazard.py", "missing.py")
    document = json.loads(out)
    assert status == 2
    (finding,) = document["findings"]
    assert finding["rule"] == "TFL003" and (finding["line"], finding["column"]) == (8, 21)
    assert set(finding) == {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "rule",
        "name",
        "message",
        "url",
    }
    assert document["errors"] == [{"path": "missing.py", "message": "no such file or folder"}]
    assert document["files_checked"] == 1


def test_sarif_output_is_sarif_2_1_0(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "src/hazard.py", HAZARD)
    status, out, _ = run_main(capsys, "--format", "sarif", "src")
    assert status == 1
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [rule.code for rule in RULES]
    assert all(r["helpUri"].startswith(SITE_URL) for r in rules)
    (result,) = run["results"]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == "TFL003"
    assert result["level"] == "warning"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "src/hazard.py"
    assert location["region"]["startLine"] == 8 and location["region"]["startColumn"] == 21
    assert run["invocations"][0]["executionSuccessful"] is True
    status, out, _ = run_main(capsys, "--format", "sarif", str(tmp_path / "src" / "hazard.py"))
    (result,) = json.loads(out)["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == (tmp_path / "src" / "hazard.py").as_uri()


def test_lint_paths_api(tmp_path):
    write(tmp_path, "a.py", HAZARD)
    write(tmp_path, ".hidden/b.py", HAZARD)
    write(tmp_path, "node_modules/c.py", HAZARD)
    result = lint_paths([str(tmp_path)])
    assert result.files_checked == 1 and result.exit_status == 1
    assert [f.path for f in result.findings] == [(tmp_path / "a.py").as_posix()]


# --- packaging: no TensorFlow, the console command, the pre-commit hook ---------------------


def _python(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.slow
def test_the_linter_never_imports_tensorflow(tmp_path):
    write(tmp_path, "hazard.py", HAZARD)
    probe = (
        "import sys, tf_retracing.lint as lint\n"
        "result = lint.lint_paths([sys.argv[1]])\n"
        "print(len(result.findings), 'tensorflow' in sys.modules, 'keras' in sys.modules)\n"
    )
    done = _python("-c", probe, str(tmp_path / "hazard.py"))
    assert done.stdout == "1 False False\n", done.stderr


@pytest.mark.slow
def test_the_package_imports_tensorflow_only_when_a_tool_needs_it():
    probe = (
        "import sys, tf_retracing\n"
        "print(tf_retracing.__version__, 'tensorflow' in sys.modules)\n"
        "from tf_retracing import explain_retracing, EXPLAINER_UNAVAILABLE\n"
        "print('tensorflow' in sys.modules, EXPLAINER_UNAVAILABLE, callable(explain_retracing))\n"
        "print('SharedGraphPredictor' in dir(tf_retracing), hasattr(tf_retracing, 'nothing'))\n"
        "print(tf_retracing.serving.SharedGraphPredictor is tf_retracing.SharedGraphPredictor)\n"
    )
    done = _python("-c", probe)
    version = __import__("tf_retracing").__version__
    assert done.stdout == f"{version} False\nTrue None True\nTrue False\nTrue\n", done.stderr


@pytest.mark.slow
def test_every_version_option_answers_without_importing_tensorflow():
    version = __import__("tf_retracing").__version__
    probe = (
        "import contextlib, io, sys\n"
        "from tf_retracing import cli, explain\n"
        "from tf_retracing.lint import main as lint\n"
        "for run in (lambda: cli.main(['--version']), lambda: explain.main(['--version']),\n"
        "            lambda: lint(['--version']), lambda: cli.main(['--help'])):\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "        run()\n"
        "    print(out.getvalue().splitlines()[0])\n"
        "print('tensorflow' in sys.modules, 'keras' in sys.modules)\n"
    )
    done = _python("-c", probe)
    lines = done.stdout.splitlines()
    assert lines[:3] == [f"tf-retracing {version}"] * 3, done.stderr
    assert lines[3].startswith("usage: tf-retracing explain")
    assert lines[4] == "False False"


@pytest.mark.slow
def test_python_dash_m_and_the_console_command(tmp_path):
    write(tmp_path, "hazard.py", HAZARD)
    by_module = _python("-m", "tf_retracing.lint", "hazard.py", cwd=tmp_path)
    assert by_module.returncode == 1
    assert by_module.stdout.startswith("hazard.py:8:21: TFL003 ")
    by_command = _python("-m", "tf_retracing.cli", "lint", "hazard.py", cwd=tmp_path)
    assert (by_command.returncode, by_command.stdout) == (1, by_module.stdout)


def test_the_pre_commit_hook_runs_the_linter():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "tf-retracing-lint"
    assert hook["entry"] == "python -m tf_retracing.lint"
    # Python files and notebooks, whose code cells the linter reads
    assert hook["language"] == "python" and hook["types_or"] == ["python", "jupyter"]


# --- links ---------------------------------------------------------------------------------------


def test_the_links_use_the_site_url_of_mkdocs_yml(monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    text = (ROOT / "mkdocs.yml").read_text()
    assert f'"{SITE_URL}"' in text.split("site_url:")[1].splitlines()[0]
    assert base_path_from_config() == "/" + SITE_URL.split("/", 3)[3]


def test_every_rule_links_to_an_anchor_of_the_built_site(built_site):
    for rule in RULES:
        page, anchor = rule.page.split("#")
        html = (built_site / "guide" / page / "index.html").read_text(encoding="utf-8")
        assert f'id="{anchor}"' in html, f"{rule.code}: no #{anchor} on guide/{page}"


# --- notebooks --------------------------------------------------------------------------


def notebook_json(*cells: str, markdown_first: bool = True) -> str:
    """A notebook as Jupyter writes it (indent=1, one source line per JSON string)."""
    listed = [{"cell_type": "markdown", "metadata": {}, "source": ["# Title\n"]}] * markdown_first
    listed += [
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": textwrap.dedent(cell).strip().splitlines(keepends=True),
        }
        for cell in cells
    ]
    document = {"cells": listed, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=1, ensure_ascii=False)


NOTEBOOK_CELLS = (
    "!pip install tensorflow\n%matplotlib inline\nfiles = !ls",
    """
    import tensorflow as tf

    @tf.function
    def f(x, n):
        return x
    """,
    "%%bash\necho not python",
    """
    for n in range(3):
        f(tf.ones([2]), n)  # é
    """,
)


def test_a_notebook_finding_names_its_code_cell_and_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "nb.ipynb", notebook_json(*NOTEBOOK_CELLS))
    status, out, err = run_main(capsys, ".")
    assert (status, err) == (1, "")
    assert out.splitlines()[0].startswith("nb.ipynb:cell 4:2:21: TFL003 ")


def test_a_percent_or_bang_inside_an_open_statement_is_python_not_a_magic(
    tmp_path, capsys, monkeypatch
):
    """IPython reads a magic or a shell line only where a statement starts: a line that
    continues a bracket ("% (a, b)", string formatting), a backslash or a triple-quoted
    string is Python. Read as a magic, the cell could not be parsed and its predict loop
    went unchecked (blind lint corpus 13)."""
    monkeypatch.chdir(tmp_path)
    cell = (
        "import tensorflow as tf\n"
        "\n"
        "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        'note = """\n'
        "!not a shell line\n"
        '"""\n'
        "for x in range(3):\n"
        "    prediction = model.predict(x)\n"
        '    print("prob=%0.4f"\n'
        "          % (prediction,))\n"
        "    total = 10 \\\n"
        "% 3\n"
        "%matplotlib inline\n"
    )
    write(tmp_path, "nb.ipynb", notebook_json(cell))
    status, out, err = run_main(capsys, "nb.ipynb")
    assert "cannot parse" not in err and status == 1
    first = out.splitlines()[0]
    assert first.startswith("nb.ipynb:cell 1:8:") and "TFL004" in first  # the predict line


def test_a_notebook_finding_has_a_sarif_region_in_the_ipynb_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = notebook_json(*NOTEBOOK_CELLS)
    write(tmp_path, "nb.ipynb", text)
    _, out, _ = run_main(capsys, "--format", "sarif", "nb.ipynb")
    (result,) = json.loads(out)["runs"][0]["results"]
    (location,) = result["locations"]
    region = location["physicalLocation"]["region"]
    line = text.splitlines()[region["startLine"] - 1]
    start, end = region["startColumn"] - 1, region["endColumn"] - 1
    assert line[start:end] == "n"  # the argument, located in the file's own text
    assert location["properties"] == {"cell": 4, "cellLine": 2}


@pytest.mark.parametrize("indent", [1, None])
def test_a_cell_stored_as_one_string_has_a_sarif_region_too(tmp_path, capsys, monkeypatch, indent):
    """nbformat allows a cell's source as one string holding every line: each line is then
    found inside that string, on the file's one line, escapes and all."""
    monkeypatch.chdir(tmp_path)
    document = json.loads(notebook_json(*NOTEBOOK_CELLS))
    for cell in document["cells"]:
        cell["source"] = "".join(cell["source"])
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    write(tmp_path, "nb.ipynb", text)
    _, out, _ = run_main(capsys, "--format", "sarif", "nb.ipynb")
    (result,) = json.loads(out)["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    line = text.splitlines()[region["startLine"] - 1]
    start, end = region["startColumn"] - 1, region["endColumn"] - 1
    assert line[start:end] == "n"
    assert line[:end].endswith("f(tf.ones([2]), n")


def test_a_notebook_cell_that_does_not_parse_is_named_and_the_others_are_checked(tmp_path):
    cells = (*NOTEBOOK_CELLS[:2], "print 'python 2'", NOTEBOOK_CELLS[3])
    write(tmp_path, "nb.ipynb", notebook_json(*cells, markdown_first=False))
    result = lint_paths([str(tmp_path / "nb.ipynb")])
    assert [(f.cell, f.line, f.rule) for f in result.findings] == [(4, 2, "TFL003")]
    (error,) = result.errors
    assert error.message.startswith("cell 3: cannot parse: ")
    assert error.message.endswith("; the other cells are checked")


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "not a notebook: invalid JSON"), ('{"cells": 3}', "no 'cells' list")],
)
def test_a_file_that_is_not_a_notebook_is_one_error(tmp_path, content, message):
    write(tmp_path, "bad.ipynb", content)
    write(tmp_path, "hazard.py", HAZARD)
    result = lint_paths([str(tmp_path)])
    assert [f.rule for f in result.findings] == ["TFL003"]
    (error,) = result.errors
    assert message in error.message


# --- TFL010 against what tf.function does with each kind of class -----------------------

KINDS_OF_CLASS = """
import dataclasses
import tensorflow as tf
class Plain:
    def __init__(self, v): self.v = v
class Slots:
    __slots__ = ("v",)
    def __init__(self, v): self.v = v
class SlotsWeakref:
    __slots__ = ("v", "__weakref__")
    def __init__(self, v): self.v = v
class SlotsByValue:
    __slots__ = ("v",)
    def __init__(self, v): self.v = v
    def __eq__(self, o): return self.v == o.v
    def __hash__(self): return hash(self.v)
class SlotsWeakrefByValue:
    __slots__ = ("v", "__weakref__")
    def __init__(self, v): self.v = v
    def __eq__(self, o): return self.v == o.v
    def __hash__(self): return hash(self.v)
class HashNone:
    __hash__ = None
    def __init__(self, v): self.v = v
@dataclasses.dataclass(eq=False)
class NoEq:
    v: float
@dataclasses.dataclass(unsafe_hash=True)
class UnsafeHash:
    v: float
@dataclasses.dataclass(frozen=True)
class Frozen:
    v: float
@dataclasses.dataclass(frozen=True, slots=True)
class FrozenSlots:
    v: float
@dataclasses.dataclass
class Unhashable:
    v: float
"""
CLASS_NAMES = re.findall(r"^class (\w+)", KINDS_OF_CLASS, re.MULTILINE)


def test_tfl010_flags_exactly_the_classes_whose_new_instances_retrace():
    """Each class in a loop that passes a new, equal instance per iteration: the rule's
    findings are the classes whose loop makes a trace per object in TensorFlow."""
    import tensorflow as tf

    namespace: dict = {}
    exec(KINDS_OF_CLASS, namespace)
    retraces = set()
    for name in CLASS_NAMES:
        step = tf.function(lambda obj, x: x * 2.0)
        try:
            for _ in range(3):
                step(namespace[name](1.0), tf.ones([2]))
        except TypeError:  # refused, not traced per object
            continue
        if step.experimental_get_tracing_count() == 3:
            retraces.add(name)
    loop = "\n".join(
        ["@tf.function", "def step(obj, x):", "    return x", "for _ in range(3):"]
        + [f"    step({name}(1.0), 1.0)" for name in CLASS_NAMES]
    )
    flagged = {
        re.search(r"a new (\w+) object", finding.message)[1]
        for finding in lint_source(
            KINDS_OF_CLASS + loop, config=Config(select=frozenset({"TFL010"}))
        )
    }
    assert retraces == {"Plain", "Slots", "SlotsWeakref", "SlotsWeakrefByValue", "NoEq",
                        "UnsafeHash", "Frozen"}  # fmt: skip
    assert flagged == retraces


# --- the edges of a command-line tool --------------------------------------------------------


def test_a_misspelt_settings_section_is_named_in_a_warning(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "hazard.py", HAZARD)
    write(tmp_path, "pyproject.toml", '[tool.tf_retracing.lint]\nignore = ["TFL003"]\n')
    status, _, err = run_main(capsys, "hazard.py")
    assert status == 1  # its ignore was not applied
    assert (
        "warning: pyproject.toml: [tool.tf_retracing.lint] is not read; the linter reads "
        "[tool.tf-retracing.lint]"
    ) in err
    write(tmp_path, "pyproject.toml", '[tool.tf-retracing.linter]\nignore = ["TFL003"]\n')
    assert "[tool.tf-retracing.linter] is not read" in run_main(capsys, "hazard.py")[2]
    write(tmp_path, "pyproject.toml", '[tool.tf-retracing.lint]\nignore = ["TFL003"]\n')
    assert "warning" not in run_main(capsys, "hazard.py")[2]


def many_findings(folder: Path) -> Path:
    """A file whose report is far larger than a pipe's buffer."""
    loops = "".join(
        f"for i{n} in range(3):\n    tf.function(lambda x: x)(i{n})\n" for n in range(3000)
    )
    return write(folder, "many.py", "import tensorflow as tf\n" + loops)


def test_a_closed_pipe_ends_the_report_quietly(tmp_path):
    many_findings(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tf_retracing.lint", "many.py"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdout.readline()  # `| head -1`: one line read, then the pipe closed
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1  # findings found, as the help says
    assert err == b""  # no BrokenPipeError traceback


def test_a_report_that_cannot_be_written_is_an_error_with_status_2(tmp_path):
    many_findings(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "tf_retracing.lint", "many.py"],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr == (
        "python -m tf_retracing.lint: error: cannot write the report: No space left on device\n"
    )


# --- files that import nothing: linted, receivers judged by use (issue 52) ----------------

WRAPPED_KERAS = {
    # bert4keras re-exports keras: the file imports neither tensorflow nor keras by name
    "bert4keras": """
        from bert4keras.backend import keras
        from bert4keras.models import build_transformer_model

        encoder = build_transformer_model(config_path, checkpoint_path)
        for text in texts:
            vector = encoder.predict([[ids(text)], [segments(text)]])
        """,
    # deepface builds the Keras model: nothing of Keras is imported at all
    "deepface": """
        from deepface import DeepFace

        model = DeepFace.build_model("Facenet")
        for face in faces:
            embedding = model.predict(face[None])
        """,
    # a notebook snippet whose imports are in another cell
    "snippet": """
        @tf.function
        def step(x, lr):
            return x * lr

        for epoch in range(10):
            step(tf.ones([2]), epoch / 10)
        """,
}


@pytest.mark.parametrize(("name", "rule"), [("bert4keras", "TFL004"), ("deepface", "TFL004"),
                                            ("snippet", "TFL003")])  # fmt: skip
def test_a_file_that_imports_neither_tensorflow_nor_keras_is_linted(name, rule):
    assert rules_found(WRAPPED_KERAS[name], header="") == [rule]


PLAIN_PYTHON = """
from mylib import make_classifier, Model
from training import get_best_model


def score(model, rows):
    for row in rows:
        model.predict(row)


clf = make_classifier()
clf.fit(X, y)
for row in rows:
    clf.predict(row)
model = Model()
for row in rows:
    model.predict(row)
best_model = get_best_model()
for row in rows:
    best_model.predict(row)
"""


def test_plain_python_with_predict_gets_no_finding_without_a_sign_of_keras():
    """Without an import of TensorFlow or Keras, neither a name like `model`, nor `fit`
    (scikit-learn's too), nor a getter makes a receiver a Keras model."""
    assert rules_found(PLAIN_PYTHON, header="") == []
    # the same code in a file that imports Keras: the named model is taken as one
    assert rules_found(PLAIN_PYTHON, header="import keras\n").count("TFL004") >= 2


def test_a_notebook_in_another_language_is_skipped_with_a_note(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    document = json.loads(notebook_json("library(keras)\nfor (i in 1:3) { predict(model, x) }"))
    document["metadata"] = {"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}}
    write(tmp_path, "analysis.ipynb", json.dumps(document))
    write(tmp_path, "hazard.py", HAZARD)
    status, out, err = run_main(capsys, ".")
    assert status == 1  # the Python file's finding; the R notebook is no error
    assert err == (
        "tf-retracing lint: note: analysis.ipynb: not linted: a notebook in R (its metadata "
        "names that language), not Python\n"
    )
    assert out.splitlines()[-1] == "Found 1 finding in 1 file (1 file checked, 1 skipped)."
    document["metadata"] = {"language_info": {"name": "julia"}}
    write(tmp_path, "analysis.ipynb", json.dumps(document))
    _, out, _ = run_main(capsys, "--format", "json", "analysis.ipynb")
    assert json.loads(out)["skipped"] == [
        {
            "path": "analysis.ipynb",
            "message": "not linted: a notebook in julia (its metadata names that language), "
            "not Python",
        }
    ]


@pytest.mark.parametrize("table", ["tool.tf-retracing.lnt", "tool.tf-retracng.lint"])
def test_a_misspelt_table_under_our_name_is_named(tmp_path, capsys, monkeypatch, table):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "hazard.py", HAZARD)
    write(tmp_path, "pyproject.toml", f'[{table}]\nignore = ["TFL003"]\n')
    status, _, err = run_main(capsys, "hazard.py")
    assert status == 1
    assert err == (
        f"tf-retracing lint: warning: pyproject.toml: [{table}] is not read; the linter "
        "reads [tool.tf-retracing.lint]\n"
    )


def test_an_empty_select_is_refused_naming_the_option(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "hazard.py", HAZARD)
    for value in ("", " , "):
        with pytest.raises(SystemExit) as raised:
            main(["--select", value, "hazard.py"])
        assert raised.value.code == 2
        assert "error: --select: no rule given" in capsys.readouterr().err


def test_a_path_with_a_control_character_is_quoted_and_escaped(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'odd\nname\t"x".py', HAZARD)
    write(tmp_path, "bell\a.py", "def f(:\n")
    status, out, err = run_main(capsys, ".")
    assert status == 2
    assert out.splitlines()[0].startswith('"odd\\nname\\t\\"x\\".py":8:21: TFL003 ')
    assert err.startswith('tf-retracing lint: error: "bell\\x07.py": cannot parse')
    assert len(out.splitlines()) == 2 and len(err.splitlines()) == 1


def test_an_unwritable_standard_error_still_reports_and_exits_2(tmp_path):
    write(tmp_path, "hazard.py", HAZARD)
    write(tmp_path, "broken.py", "def f(:\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "tf_retracing.lint", "broken.py", "hazard.py"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=full,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 2
        assert "hazard.py:8:21: TFL003" in done.stdout  # the report still reached stdout
        usage = subprocess.run(
            [sys.executable, "-m", "tf_retracing.lint", "--select", "TFL999", "hazard.py"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=full,
            text=True,
            env=env,
            timeout=120,
        )
    assert usage.returncode == 2  # argparse's own message is lost; its status is not


def test_a_loop_call_that_reaches_two_predicts_reports_each():
    source = """
    class Agent:
        def __init__(self):
            self.actor = keras.models.load_model("actor.keras")
            self.critic = keras.models.load_model("critic.keras")

        def act(self, state):
            return self.actor.predict(state, verbose=0), self.critic.predict(state, verbose=0)

        def step(self, state):
            return self.act(state), self.critic.predict(state, verbose=0)

    agent = Agent()
    for state in states:
        agent.step(state)
    """
    findings = lint_source(HEADER + textwrap.dedent(source))
    assert {(f.line, f.rule) for f in findings} == {(19, "TFL004")}
    assert sorted(f.message.split("reached through ")[1] for f in findings) == [
        "Agent.step -> Agent.act -> self.actor.predict)",
        "Agent.step -> Agent.act -> self.critic.predict)",
        "Agent.step -> self.critic.predict)",
    ]
    assert sorted(f.via for f in findings) == [(15, 12, 12), (15, 12, 12), (15, 15)]


def test_a_test_suite_that_makes_one_function_per_listed_case_gets_no_tfl001():
    """A module-level list of cases looped over in a test, a pytest parametrization, and a
    helper method a loop over zip(...) calls under subTest: one function per case, on
    purpose. The same loop over data stays a finding."""
    suite = """
    import pytest
    import tensorflow as tf

    DTYPES = [tf.float32, tf.float64]


    def test_each_dtype():
        for dtype in DTYPES:
            cast = tf.function(lambda x: tf.cast(x, dtype))
            cast(tf.ones([2]))


    @pytest.mark.parametrize("dtype", DTYPES)
    def test_cast(dtype):
        f = tf.function(lambda x: tf.cast(x, dtype))
        f(tf.ones([2]))


    class Test(tf.test.TestCase):
        def _check(self, dtype, shape):
            f = tf.function(lambda x: tf.cast(x, dtype))
            self.assertEqual(f(tf.ones(shape)).dtype, dtype)

        def test_grid(self):
            for dtype, shape in zip(DTYPES, [(2,), (3,)]):
                with self.subTest(dtype=dtype):
                    self._check(dtype, shape)
    """
    assert rules_found(suite, header="") == []
    over_data = suite.replace("for dtype in DTYPES:", "for dtype in dataset:")
    assert rules_found(over_data, header="") == ["TFL001"]


AGENTS_ON_BRANCHES = """
class Player:
    def __init__(self, actions):
        self.policy = keras.Sequential([keras.layers.Dense(actions)])

    def choose(self, board):
        return int(np.argmax(self.policy.predict(board[None], verbose=0)))

    def study(self, boards, targets):
        pass


class Student(Player):
    def study(self, boards, targets):
        self.policy.fit(boards, targets, verbose=0)


player = Student(4) if learning else Player(4)
for turn in range(200):
    board = game.play(player.choose(board))
"""


def test_a_method_shared_by_the_classes_a_name_is_bound_to_is_followed():
    """``player`` is an instance of one of two classes of the file (chosen at run time);
    both run the same ``choose``, which predicts: the loop's call is followed into it."""
    findings = lint_source(HEADER + textwrap.dedent(AGENTS_ON_BRANCHES))
    assert [(f.rule, f.line) for f in findings] == [("TFL004", 24)]
    assert "reached through Player.choose -> self.policy.predict" in findings[0].message
    # the same with if/else statements instead of a conditional expression
    statements = AGENTS_ON_BRANCHES.replace(
        "player = Student(4) if learning else Player(4)\n",
        "if learning:\n    player = Student(4)\nelse:\n    player = Player(4)\n",
    )
    assert rules_found(statements) == ["TFL004"]


def test_a_shared_method_is_left_alone_when_one_class_fits_in_the_same_loop():
    """Near miss: the loop also calls ``study``, which one of the classes makes a fit of
    the same model; as for one class, a new predict function is then expected."""
    studying = AGENTS_ON_BRANCHES.replace(
        "    board = game.play(player.choose(board))\n",
        "    board = game.play(player.choose(board))\n    player.study(board, score)\n",
    )
    assert rules_found(studying) == []
    # classes whose ``choose`` differ: which one runs is not known, nothing is followed
    own_choice = AGENTS_ON_BRANCHES.replace(
        "        self.policy.fit(boards, targets, verbose=0)\n",
        "        self.policy.fit(boards, targets, verbose=0)\n\n"
        "    def choose(self, board):\n        return 0\n",
    )
    assert own_choice != AGENTS_ON_BRANCHES
    assert rules_found(own_choice) == []


PASSED_MODELS = """
def write_poem(net, first_word, words):
    poem = [first_word]
    for _ in range(words):
        scores = net.predict(np.array([encode(poem)]), verbose=0)
        poem.append(decode(scores))
    return poem


def draw_grid(pair, codes):
    squeeze, expand = pair
    return [expand.predict(code[None], verbose=0) for code in codes]


def fit_and_show(generator, critic, rounds):
    for _ in range(rounds):
        fakes = generator.predict(np.ones([4, 2]), verbose=0)
        critic.train_on_batch(fakes, np.zeros([4, 1]))


poet = keras.models.load_model("poet.keras")
write_poem(poet, "rain", 12)
squeeze = keras.Sequential([keras.layers.Dense(2)])
expand = keras.Sequential([keras.layers.Dense(8)])
pair = (squeeze, expand)
draw_grid(pair, grid)
fit_and_show(expand, squeeze, 50)
"""


def test_a_parameter_every_call_of_the_file_passes_a_model_is_one():
    """``net`` is named like nothing, but every call of ``write_poem`` in the file passes
    a model Keras loads; ``expand`` is unpacked from a parameter that every call fills
    with a tuple of built models. The model a loop trains (``critic``) stays alone."""
    findings = lint_source(HEADER + textwrap.dedent(PASSED_MODELS))
    assert [(f.rule, f.line) for f in findings] == [
        ("TFL004", 9),
        ("TFL004", 16),
        ("TFL004", 21),
    ]


def test_a_parameter_is_not_a_model_when_a_call_passes_something_else():
    """Near misses: one call passes an object of another library (or an imported
    constructor's, never used as a model), the function is also handed on (callers not
    all seen), or the argument is left to a default: nothing is guessed."""
    other = PASSED_MODELS.replace(
        'write_poem(poet, "rain", 12)\n',
        'write_poem(poet, "rain", 12)\nwrite_poem(MarkovChain(), "sun", 12)\n',
    )
    assert [f.line for f in lint_source(HEADER + "from chains import MarkovChain\n" + other)] == [
        17,
        22,
    ]
    handed_on = PASSED_MODELS.replace(
        'write_poem(poet, "rain", 12)\n', 'write_poem(poet, "rain", 12)\nqueue.put(write_poem)\n'
    )
    assert [f.line for f in lint_source(HEADER + textwrap.dedent(handed_on))] == [16, 21]
    unpacked_other = PASSED_MODELS.replace("pair = (squeeze, expand)\n", "pair = load_pair()\n")
    assert [f.line for f in lint_source(HEADER + textwrap.dedent(unpacked_other))] == [9, 21]
    from_sklearn = (
        "import keras\nimport numpy as np\nfrom sklearn.cluster import KMeans\n\n"
        "def label_all(clusterer, rows):\n"
        "    for row in rows:\n"
        "        clusterer.predict(row)\n\n"
        "label_all(KMeans(3), rows)\n"
    )
    assert lint_source(from_sklearn) == []


def test_a_growing_slice_to_a_model_passed_in_is_tfl011():
    """TFL011 on a model a function of the file is handed: a slice that grows with the
    loop is a new shape per step; a window of one size (the near miss) is not."""
    source = """
    def extend(net, seq, steps):
        for i in range(steps):
            net.predict(seq[:, : i + 1], verbose=0)
            net.predict(seq[:, i : i + 4], verbose=0)


    extend(keras.models.load_model("m.keras"), np.ones([1, 64, 3]), 60)
    """
    findings = lint_source(HEADER + textwrap.dedent(source))
    assert sorted((f.line, f.rule) for f in findings) == [
        (8, "TFL004"),
        (8, "TFL011"),
        (9, "TFL004"),
    ]


AGENT_PASSED = """
class Player:
    def __init__(self):
        self.policy = keras.models.load_model("policy.keras")

    def choose(self, board):
        return int(np.argmax(self.policy.predict(board[None], verbose=0)))


def play(player, game, turns):
    board = game.reset()
    for _ in range(turns):
        board = game.play(player.choose(board))


champion = Player()
play(champion, game, 100)
play(Player(), game, 10)
"""


def test_an_instance_of_the_files_class_passed_as_a_parameter_is_followed():
    """``player`` is a parameter that every call of ``play`` fills with a ``Player``: the
    loop's ``player.choose`` is followed into the method, which predicts."""
    findings = lint_source(HEADER + textwrap.dedent(AGENT_PASSED))
    assert [(f.rule, f.line) for f in findings] == [("TFL004", 17)]
    assert "reached through Player.choose -> self.policy.predict" in findings[0].message


def test_a_parameter_one_call_fills_with_another_object_is_not_followed():
    """Near miss: one call passes an imported player, whose ``choose`` is not seen."""
    other = AGENT_PASSED.replace(
        "play(Player(), game, 10)\n", "play(Player(), game, 10)\nplay(RandomPlayer(), game, 5)\n"
    )
    assert rules_found("from bots import RandomPlayer\n" + other) == []


def test_an_instance_a_function_of_the_file_makes_is_followed():
    """``player, rounds = setup(...)``: a function of the file whose every return gives,
    at that position, an instance of the file's classes; the loop's call is followed."""
    made = AGENT_PASSED.split("def play")[0] + textwrap.dedent(
        """
        def setup(greedy):
            if greedy:
                player = Player()
            else:
                player = Player()
            return player, 10


        player, rounds = setup(True)
        for board in boards:
            player.choose(board)
        """
    )
    findings = lint_source(HEADER + textwrap.dedent(made))
    assert [(f.rule, f.line) for f in findings] == [("TFL004", 25)]
    # near miss: one return gives an object of another library
    other = made.replace("return player, 10", "return (player if greedy else Bot()), 10")
    assert rules_found("from bots import Bot\n" + other) == []


def test_a_helper_with_its_own_loop_called_in_a_loop_is_found_at_its_predict():
    """``sample_line`` predicts once per character in its own loop and the script calls
    it in a loop: one finding, on the helper's predict (the loop nearest to it), whether
    the model is a global of the file or handed to the helper. Near miss: the helper's
    own loop fits the model it predicts with."""
    helper = """
    def sample_line(net, seed):
        line = seed
        while not line.endswith("\\n"):
            line += decode(net.predict(encode(line)[None], verbose=0))
        return line


    writer = keras.models.load_model("lines.keras")
    for _ in range(20):
        print(sample_line(writer, "a"))
    """
    findings = lint_source(HEADER + textwrap.dedent(helper))
    assert [(f.rule, f.line) for f in findings] == [("TFL004", 9)]
    as_global = (
        helper.replace("(net, seed)", "(seed)")
        .replace("(writer, ", "(")
        .replace("net.predict", "writer.predict")
    )
    assert [f.line for f in lint_source(HEADER + textwrap.dedent(as_global))] == [9]
    fitted = helper.replace(
        "            line += decode(",
        "            net.fit(encode(line)[None], target, verbose=0)\n            line += decode(",
    )
    assert fitted != helper
    assert rules_found(fitted) == []


def test_a_window_to_the_end_of_an_array_the_loop_grows_is_not_tfl011():
    """A forecast appends one step per iteration and predicts from ``X[:, step:]``: the
    window keeps its width (handson-ml2's notebook 15). Near misses: the same slice of an
    array the loop keeps narrows, and ``X[:, -step:]`` of the growing one widens."""
    source = """
    model = keras.models.load_model("m.keras")
    X = np.ones([1, 50, 1])
    for step in range(1, 10):
        y = model.predict(X[:, {window}], verbose=0)
        {grow}
    """
    grows = "X = np.concatenate([X, y[:, None, :]], axis=1)"
    assert rules_found(source.format(window="step:", grow=grows)) == ["TFL004"]
    assert rules_found(source.format(window="step:", grow="print(y)")) == ["TFL004", "TFL011"]
    assert rules_found(source.format(window="-step:", grow=grows)) == ["TFL004", "TFL011"]


def test_a_name_the_loop_binds_to_a_growing_slice_is_followed_through_conversions():
    """``window = seq[:, : i + 1]``, then ``np.array(window)[None]`` or
    ``np.expand_dims(window, 0)``: the name is followed to the slice it is bound to in the
    loop. Near miss: the loop binds it to a window of one size."""
    source = """
    model = keras.models.load_model("m.keras")
    seq = np.ones([64, 3])
    for i in range(60):
        window = seq[{window}]
        model.predict({argument}, verbose=0)
    """
    for argument in ("np.array(window)[None]", "np.expand_dims(window, 0)", "window[None, ...]"):
        found = rules_found(source.format(window=": i + 1", argument=argument))
        assert found == ["TFL004", "TFL011"], argument
        assert rules_found(source.format(window="i : i + 4", argument=argument)) == ["TFL004"]


SEQUENCE_HELPER = """
import numpy as np


def generate_text(model, length, vocab_size):
    X = np.zeros((1, length, vocab_size))
    for i in range(length):
        ix = np.argmax(model.predict(X[{window}])[0], 1)
"""


def test_a_model_given_a_three_dimensional_input_in_plain_python_is_keras():
    """A helper module that imports only NumPy, handed its model by another file
    (text-generator's RNN_utils.py): ``model.predict(X[:, : i + 1, :])``, an input of three
    dimensions that scikit-learn's estimators refuse, says it is a Keras model. Near
    misses: a table (two dimensions), and a file that imports scikit-learn."""
    found = rules_found(SEQUENCE_HELPER.format(window=":, : i + 1, :"), header="")
    assert found == ["TFL004", "TFL011"]
    assert rules_found(SEQUENCE_HELPER.format(window=":, : i + 1"), header="") == []
    sklearn = "from sklearn.svm import SVC\n" + SEQUENCE_HELPER.format(window=":, : i + 1, :")
    assert rules_found(sklearn, header="") == []
    assert (
        rules_found(
            SEQUENCE_HELPER.format(window="None, : i + 1, :").replace("model", "clf"), header=""
        )
        == []
    )


TEXT_SAMPLER = """
import numpy as np


def generate(model, sentence, chars, maxlen):
    for i in range(400):
        x_pred = {made}
        for t, char in enumerate(sentence):
            x_pred[0, t, chars.index(char)] = 1.0
        preds = model.predict(x_pred)[0]
        sentence = sentence[1:] + chars[int(np.argmax(preds))]
"""


def test_a_model_given_an_array_made_with_three_dimensions_in_plain_python_is_keras():
    """Keras's text-generation example as a helper module: ``x_pred = np.zeros((1, maxlen,
    len(chars)))``, or a ``reshape`` to three dimensions, given to the model's predict.
    Near misses: two dimensions, and a shape the source does not show."""
    for made in ("np.zeros((1, maxlen, len(chars)))", "encode(sentence).reshape(1, maxlen, -1)"):
        assert rules_found(TEXT_SAMPLER.format(made=made), header="") == ["TFL004"], made
    for made in ("np.zeros((maxlen, len(chars)))", "np.zeros(shape)", "encode(sentence)"):
        assert rules_found(TEXT_SAMPLER.format(made=made), header="") == [], made


def test_keras_options_of_predict_in_plain_python_say_keras():
    """``model.predict(x, verbose=0)`` or ``batch_size=1`` in a helper module that imports
    nothing of Keras: options scikit-learn's predict does not take. Near misses: a plain
    ``predict(x)``, and the same options on a name unlike a model."""
    source = """
    def generate(model, seed, n):
        for _ in range(n):
            seed = seed + decode({receiver}.predict(encode(seed){options}))
    """
    for options in (", verbose=0", ", batch_size=1"):
        found = rules_found(source.format(receiver="model", options=options), header="")
        assert found == ["TFL004"], options
    assert rules_found(source.format(receiver="model", options=""), header="") == []
    assert rules_found(source.format(receiver="scorer", options=", verbose=0"), header="") == []


def test_an_unpickled_model_is_not_taken_for_a_keras_model():
    """``pickle.load`` and ``joblib.load`` are how scikit-learn's estimators are saved: a
    name like ``model`` bound to one is left alone, in a file that imports Keras too. The
    same name loaded by Keras (the positive) is a model."""
    source = """
    import pickle

    import joblib

    model = {load}
    for x in batches:
        model.predict(x)
    """
    assert rules_found(source.format(load="pickle.load(open('model.pkl', 'rb'))")) == []
    assert rules_found(source.format(load="joblib.load('model.joblib')")) == []
    assert rules_found(source.format(load="keras.models.load_model('m.keras')")) == ["TFL004"]


def test_a_tf_function_made_while_another_traces_is_not_tfl001():
    """covid19uk's _slow_adapt_window: a @tf.function run per window defines and calls an
    inner one; its body runs once per trace, not per call (the retrace per window is the
    outer function's, TFL003). Positive: the same helper as plain Python makes one per
    call."""
    source = """
    {decorator}
    def window(x, n):
        @tf.function
        def sample(y):
            return y * n

        return sample(x)


    for n in range(3):
        window(tf.ones([2]), {argument})
    """
    plain = source.format(decorator="", argument="tf.constant(n)")
    assert rules_found(plain) == ["TFL001"]
    assert rules_found(source.format(decorator="@tf.function", argument="tf.constant(n)")) == []
    assert rules_found(source.format(decorator="@tf.function", argument="n")) == ["TFL003"]


MODEL_ALIASES = """
model = keras.models.load_model("a.keras")
models = {"a": keras.models.load_model("a.keras")}
nets = [keras.models.load_model(path) for path in paths]


class Scorer:
    def __init__(self):
        self.net = keras.models.load_model("m.keras")

    def run(self, batches):
        for batch in batches:
            net = self.net
            net.predict(batch)
"""


def test_a_name_the_loop_binds_to_a_model_held_elsewhere_is_that_model():
    """``net = self.net``, ``m = models["a"]``, ``m = a if c else b`` in the loop, or the
    models of a list cycled per batch: each predicts with one model on every iteration."""
    loops = """
    for batch in batches:
        m = model
        m.predict(batch)
    for batch in batches:
        m = models["a"]
        m.predict(batch)
    for batch in batches:
        for net in nets:
            net.predict(batch)
    for batch in batches:
        chosen = model if fast else models["a"]
        chosen.predict(batch)
    """
    findings = lint_source(HEADER + MODEL_ALIASES + textwrap.dedent(loops))
    assert [(f.rule, f.line) for f in findings] == [
        ("TFL004", 18),  # Scorer.run
        ("TFL004", 22),
        ("TFL004", 25),
        ("TFL004", 28),
        ("TFL004", 31),
    ]


def test_the_models_of_a_dict_cycled_per_batch_are_followed():
    """``for name, net in models.items()`` (or ``models.values()``) in the loop over
    batches: each model of the dict predicts once per batch. Near miss: the loop over the
    dict alone predicts once with each."""
    head = 'models = {"a": keras.models.load_model("a.keras")}\n'
    for loop in ("for name, net in models.items():", "for net in models.values():"):
        per_batch = f"for batch in batches:\n    {loop}\n        net.predict(batch)\n"
        assert rules_found(head + per_batch) == ["TFL004"], loop
        once = f"{loop}\n    net.predict(x_test)\n"
        assert rules_found(head + once) == [], loop


def test_a_name_for_a_different_model_each_iteration_or_trained_is_left_alone():
    """Near misses: a loop over the models themselves, or an item the loop picks, predicts
    once with each model; a name for a model the loop fits; another library's estimator."""
    loops = """
    for net in nets:
        net.predict(x_test)
    for key in keys:
        picked = models[key]
        picked.predict(x_test)
    for epoch in range(10):
        model.fit(x, y)
        same = model
        same.predict(x)
    """
    findings = lint_source(HEADER + MODEL_ALIASES + textwrap.dedent(loops))
    assert [(f.rule, f.line) for f in findings] == [("TFL004", 18)]  # Scorer.run's own
    sklearn = "from sklearn.linear_model import Ridge\nclf = Ridge()\n"
    alias = "for b in batches:\n    m = clf\n    m.predict(b)\n"
    assert rules_found(sklearn + alias, header="import keras\n") == []
    # a name for a model made anew in the same loop: TFL002's hazard, not TFL004's
    made = "for path in paths:\n    m = keras.models.load_model(path)\n    net = m\n"
    made += "    net.predict(x)\n"
    assert "TFL004" not in rules_found(made)


def test_a_name_bound_to_a_list_of_numbers_gives_varying_items():
    """``sizes = [8, 16, 32]`` then ``for size in sizes``, and ``[1] + list(range(1, 10))``
    (TensorFlow issue 30430's batch sizes): each item is a new number, a new shape. Near
    misses: a name bound to a list of flags, and one bound twice."""
    source = """
    @tf.function
    def total(x, value):
        return tf.reduce_sum(x)


    {binding}
    for size in sizes:
        total(tf.ones([size]), size)
    """
    assert rules_found(source.format(binding="sizes = [8, 16, 32]")) == ["TFL011", "TFL003"]
    computed = source.format(binding="sizes = [1] + list(range(1, 10))")
    assert rules_found(computed) == ["TFL011", "TFL003"]
    flags = source.replace("tf.ones([size])", "x").format(binding="sizes = [True, False]")
    assert rules_found(flags) == []
    twice = source.format(binding="sizes = [8, 16]\n    if small:\n        sizes = read_sizes()")
    assert rules_found(twice) == []


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        # float32 by position, then float64 by name, and the reverse: one argument either way
        ("scale(tf.ones([4]), 0.5)\nscale(x=np.ones([4]), k=0.5)\n", ["TFL009"]),
        ("scale(x=tf.ones([4]), k=0.5)\nscale(np.ones([4]), 0.5)\n", ["TFL009"]),
        # near miss: the float64 array goes to another parameter than the float32 tensor
        ("scale(tf.ones([4]), 2)\nscale(tf.ones([4]), k=np.ones([4]))\n", []),
    ],
)
def test_a_float64_array_meets_float32_by_position_or_by_name(calls, expected):
    source = "@tf.function\ndef scale(x, k):\n    return x\n" + calls
    assert rules_found(source) == expected


def test_a_numpy_dtype_conversion_is_not_a_python_value():
    """np.float32(x) and np.int64(x) are NumPy scalars, keyed like shape-() tensors: ten
    values give one trace on TensorFlow 2.21 (the Tensor versus Python page shows it), so
    passing one is no TFL003. A Python float of the same value is."""
    loop = """
@tf.function
def step(x, rate):
    return x * rate


for epoch in range(10):
    step(tf.ones([2]), {argument})
"""
    for argument in ("np.float32(epoch / 10)", "np.int64(epoch)", "np.float64(epoch)"):
        assert "TFL003" not in rules_found(loop.format(argument=argument)), argument
    assert "TFL003" in rules_found(loop.format(argument="float(epoch / 10)"))
    assert "TFL003" in rules_found(loop.format(argument="min(3.0, np.exp(epoch))"))


@pytest.mark.parametrize(
    "header",
    [
        "import tensorflow.compat.v1 as tf\nfrom tensorflow.compat.v1.keras import models\n",
        "import tensorflow as tf\nfrom tensorflow.python.keras import models\n",
        "import tensorflow.compat.v2 as tf\nfrom tensorflow.compat.v2.keras import models\n",
    ],
)
def test_compat_and_internal_spellings_of_keras_and_tf_function_are_followed(header):
    """tf.compat.v1 and tf.compat.v2 hold the same tf.function and tf.keras, and old code
    imports Keras from tensorflow.python.keras: each is read as its public name."""
    source = """
base = models.load_model("m.h5")
for step in range(5):
    last = models.Model(inputs=base.input, outputs=base.output)
    last.predict(np.ones((4, 3)))
    f = tf.function(lambda x: x + 1)
    f(tf.constant(step))
"""
    found = rules_found(source, header="import numpy as np\n" + header)
    assert sorted(set(found)) == ["TFL001", "TFL002"]


@pytest.mark.parametrize(
    "constructor",
    [
        "from keras.applications import ResNet50\nnet = ResNet50(weights=None)",
        "import tensorflow as tf\nnet = tf.keras.applications.MobileNetV2()",
        "from keras.applications import efficientnet\nnet = efficientnet.EfficientNetB0()",
    ],
)
def test_a_model_from_keras_applications_is_a_model_whatever_its_name(constructor):
    source = f"{constructor}\nfor x in batches:\n    net.predict(x)\n"
    assert rules_found(source, header="") == ["TFL004"]


def test_a_function_of_keras_applications_builds_no_model():
    source = (
        "from keras.applications.resnet50 import preprocess_input\n"
        "net = preprocess_input(images)\n"
        "for x in batches:\n"
        "    net.predict(x)\n"
    )
    assert rules_found(source, header="") == []


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        ("seq[:, i : 2 * i]", ["TFL004", "TFL011"]),  # both bounds move, apart: it widens
        ("seq[:, i - 3 : 2 * i]", ["TFL004", "TFL011"]),
        ("seq[:, i : i + 4]", ["TFL004"]),  # one width
        ("seq[:, i * k : (i + 1) * k]", ["TFL004"]),  # k wide, whatever k is
        ("seq[:, i : f(i)]", ["TFL004"]),  # a width that cannot be told is left alone
        ("seq[:, start:end]", ["TFL004"]),  # two names: their relation is not read
    ],
)
def test_a_window_whose_bounds_both_move_is_found_when_its_width_follows_the_loop(window, expected):
    source = f"""
    model = keras.models.load_model("m.keras")
    seq = np.ones([1, 64, 3])
    k = 4
    for i in range(1, 10):
        start, end = i * k, (i + 1) * k
        model.predict({window}, verbose=0)
    """
    assert sorted(rules_found(source)) == expected


def test_numpy_on_a_local_computed_from_a_local_of_the_arguments_is_tfl007():
    """A tensor two assignments away from the argument is still a graph tensor: the blind
    corpus's agent calls a head on a slice of what its network made of the observation."""
    source = """
import tensorflow as tf


class Agent:
    @tf.function
    def choose(self, obs):
        features = self.network(obs)
        q = self.heads[0](tf.expand_dims(features[0], 0))
        return q.numpy()
"""
    assert "TFL007" in rules_found(source)
    eager = source.replace("    @tf.function\n", "")
    assert "TFL007" not in rules_found(eager)


def test_numpy_on_a_part_unpacked_from_an_argument_is_tfl007():
    """``reads, labels = inputs`` unpacks a batch that is a graph value: both parts are too
    (corpus 7's test step appends ``labels.numpy()`` inside a tf.function)."""
    source = """
import tensorflow as tf


@tf.function
def test_step(self, inputs):
    reads, (labels, *rest) = inputs
    predictions = self.model(reads)
    self.out.append(predictions.numpy())
    self.ids.append(labels.numpy())
    self.more.append(rest.numpy())
"""
    assert [f.line for f in lint_source(source, "t.py") if f.rule == "TFL007"] == [9, 10, 11]
    eager = source.replace("@tf.function\n", "")
    assert "TFL007" not in rules_found(eager)


def test_a_script_exported_from_a_notebook_is_read_without_its_ipython_lines():
    """Colab's .py export keeps ``!ls`` and ``%matplotlib`` lines, which Python cannot parse:
    read as a cell's, with the same line numbers; a real syntax error is still refused."""
    source = "import keras\nm = keras.models.load_model('m')\n!ls\nfor x in xs:\n    m.predict(x)\n"
    assert [(f.rule, f.line) for f in lint_source(source, "t.py")] == [("TFL004", 5)]
    with pytest.raises(LintInputError, match=r"cannot parse: .* \(line 1\)"):
        lint_source("def f(:\n    pass\n!ls\n", "t.py")


def test_a_functional_model_call_builds_a_keras_model_in_a_file_that_imports_nothing():
    """``fe = Model(inputs=..., outputs=...)``: Keras's functional constructor by its two
    keywords (corpus 6's miss); the file's own class named Model is followed instead."""
    source = "fe = Model(inputs=a, outputs=b)\nfor x in xs:\n    fe.predict(x)\n"
    assert [(f.rule, f.line) for f in lint_source(source, "t.py")] == [("TFL004", 3)]
    assert not lint_source(source.replace("inputs=a, outputs=b", "a, b"), "t.py")
    own = "class Model:\n    def __init__(self, inputs, outputs):\n        pass\n\n\n" + source
    assert not lint_source(own, "t.py")


def test_an_object_detection_models_predict_in_a_function_is_not_keras():
    """The Object Detection API's models have a predict(images, shapes) of their own, made
    to run inside a tf.function; a Keras model built in the same file still counts."""
    source = """
import tensorflow as tf
from object_detection.builders import model_builder

detection_model = model_builder.build(model_config=config, is_training=False)


@tf.function
def detect(image):
    image, shapes = detection_model.preprocess(image)
    return detection_model.predict(image, shapes)
"""
    assert "TFL006" not in rules_found(source, header="")
    keras_model = (
        source
        + """
classifier = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function
def classify(x):
    return classifier.predict(x)
"""
    )
    assert rules_found(keras_model, header="").count("TFL006") == 1
