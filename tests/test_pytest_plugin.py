"""The pytest plugin, run by pytest itself as a reader's test suite uses it: one run in a
new interpreter (TensorFlow cannot be imported twice in one process), shared by this
module's tests, each of which checks its cases."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

USER_TESTS = """
import threading

import pytest
import tensorflow as tf


def step(x, scale):
    return x * scale


@pytest.mark.max_retraces(0)
def test_python_floats_in_a_loop():
    fn = tf.function(step)
    for scale in (1.0, 2.0, 3.0):
        fn(tf.ones([2]), scale)


@pytest.mark.max_retraces(1)
def test_within_budget():
    fn = tf.function(step)
    for scale in (1.0, 2.0, 3.0):
        fn(tf.ones([2]), tf.constant(scale))
    fn(tf.ones([3]), tf.constant(1.0))  # one retrace: within the budget of 1


@pytest.mark.max_retraces
def test_variables_created_on_the_first_call_only():
    holder = []

    @tf.function
    def make(x):
        if not holder:
            holder.append(tf.Variable(1.0))
        return x * holder[0]

    make(tf.ones([2]))
    make(tf.ones([2]))


def test_block(retrace_budget):
    with retrace_budget(1):
        fn = tf.function(step)
        for size in (2, 3, 4):
            fn(tf.ones([size]), tf.constant(1.0))


def test_unmarked_is_not_watched():
    fn = tf.function(step)
    assert type(fn).__name__ == "Function"
    for scale in (1.0, 2.0):
        fn(tf.ones([2]), scale)


@pytest.mark.max_retraces(-1)
def test_bad_budget():
    pass


# A background thread that one test starts and leaves running: it makes a new tf.function
# per step (a retrace each) while the next test runs.
keep_going = threading.Event()
next_test_started = threading.Event()
background_retraced = threading.Event()


def background_steps():
    while not keep_going.is_set():
        if next_test_started.is_set():
            for _ in range(2):
                tf.function(lambda x: x + 1)(tf.ones([2]))
            background_retraced.set()
            next_test_started.clear()
        keep_going.wait(0.01)


def test_leaves_a_thread_running():
    threading.Thread(target=background_steps, name="left-behind", daemon=True).start()


@pytest.mark.max_retraces(0)
def test_after_the_thread():
    next_test_started.set()
    assert background_retraced.wait(60)
    keep_going.set()


@pytest.mark.max_retraces(0)
def test_a_thread_of_its_own():
    def steps():
        for _ in range(2):
            tf.function(lambda x: x * 2)(tf.ones([2]))

    worker = threading.Thread(target=steps)
    worker.start()
    worker.join()


@pytest.mark.max_retraces(0)
def test_more_retraces_than_are_shown():
    fn = tf.function(step)
    for scale in range(26):
        fn(tf.ones([2]), float(scale))
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, str]:
    """Test name -> "passed" or the text of its failure, from one run of the reader's suite
    in a folder of its own (no configuration of this repository applies there)."""
    folder = tmp_path_factory.mktemp("readers_suite")
    (folder / "test_user.py").write_text(USER_TESTS.lstrip("\n"), encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if name != "PYTEST_ADDOPTS"}
    command = ["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "--junitxml=report.xml"]
    done = subprocess.run(
        [sys.executable, *command], cwd=folder, env=env, capture_output=True, text=True,
        timeout=600, check=False,
    )  # fmt: skip
    results = {"output": done.stdout}
    for case in ET.parse(folder / "report.xml").getroot().iter("testcase"):
        problem = case.find("failure")
        problem = case.find("error") if problem is None else problem
        results[case.get("name")] = "passed" if problem is None else problem.text or ""
    return results


@pytest.mark.slow
def test_the_plugin_in_a_readers_test_suite(outcomes):
    failure = outcomes["test_python_floats_in_a_loop"]
    assert "RetracingBudgetExceeded: @pytest.mark.max_retraces(0):" in failure
    assert "`step` (test_user.py:7) traced again 2 times; the budget is 0:" in failure
    assert "argument `scale` is a Python float whose value changed from 1.0 to 2.0" in failure
    assert "[TFR003]" in failure
    assert "pytest_plugin.py" not in failure  # the plugin's own frames are hidden
    assert outcomes["test_within_budget"] == "passed"
    assert outcomes["test_variables_created_on_the_first_call_only"] == "passed"  # a one-off
    block = outcomes["test_block"]
    assert "retrace_budget(1):" in block and "changed shape from (3,) to (4,)" in block
    assert outcomes["test_unmarked_is_not_watched"] == "passed"
    assert "@pytest.mark.max_retraces: n must be an int >= 0, got -1" in outcomes["test_bad_budget"]


@pytest.mark.slow
def test_a_thread_left_running_by_an_earlier_test_is_not_blamed_on_the_next(outcomes):
    assert outcomes["test_leaves_a_thread_running"] == "passed"
    assert outcomes["test_after_the_thread"] == "passed"  # its retraces are the thread's
    assert (
        "@pytest.mark.max_retraces(0): 1 retrace made by a thread that was running before "
        "the test began (left-behind) not counted against the budget"
    ) in outcomes["output"]
    # a thread the test starts itself is the test's doing
    failure = outcomes["test_a_thread_of_its_own"]
    assert "traced again 1 time; the budget is 0:" in failure and "[TFR006]" in failure


@pytest.mark.slow
def test_a_long_failure_prints_each_reason_once_and_caps_the_list(outcomes):
    failure = outcomes["test_more_retraces_than_are_shown"]
    assert "`step` (test_user.py:7) traced again 25 times; the budget is 0:" in failure
    assert failure.count("  - `step` traced again") == 20
    assert "  ... and 5 more retraces (the first 20 are shown)" in failure
    section = outcomes["output"].split("test_more_retraces_than_are_shown ___")[1].split(" ___")[0]
    assert section.count("changed from 0.0 to 1.0") == 1  # not again as a captured log
    assert len(section.splitlines()) < 40


@pytest.mark.slow
def test_the_plugin_is_registered_and_imports_no_tensorflow():
    from importlib.metadata import entry_points

    (plugin,) = [e for e in entry_points(group="pytest11") if e.name == "tf_retracing"]
    assert plugin.value == "tf_retracing.pytest_plugin"
    probe = "import sys, tf_retracing.pytest_plugin; print('tensorflow' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout == "False\n", done.stderr
