"""The pytest plugin, run by pytest itself (pytester) as a reader's test suite uses it:
one run in a new interpreter (TensorFlow cannot be imported twice in one process), whose
cases are checked one by one."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytest_plugins = ["pytester"]

USER_TESTS = """
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
"""


@pytest.fixture
def outcomes(pytester) -> dict[str, str]:
    """Test name -> "passed" or the text of its failure."""
    pytester.makepyfile(test_user=USER_TESTS)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "--junitxml=report.xml")
    results = {}
    for case in ET.parse(pytester.path / "report.xml").getroot().iter("testcase"):
        problem = case.find("failure")
        problem = case.find("error") if problem is None else problem
        results[case.get("name")] = "passed" if problem is None else problem.text or ""
    return results


@pytest.mark.slow
def test_the_plugin_in_a_readers_test_suite(outcomes):
    failure = outcomes["test_python_floats_in_a_loop"]
    assert "RetracingBudgetExceeded: @pytest.mark.max_retraces(0):" in failure
    assert "`step` (test_user.py:5) traced again 2 times; the budget is 0:" in failure
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
def test_the_plugin_is_registered_and_imports_no_tensorflow():
    from importlib.metadata import entry_points

    (plugin,) = [e for e in entry_points(group="pytest11") if e.name == "tf_retracing"]
    assert plugin.value == "tf_retracing.pytest_plugin"
    probe = "import sys, tf_retracing.pytest_plugin; print('tensorflow' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout == "False\n", done.stderr
