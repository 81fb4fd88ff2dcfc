"""What the retrace explainer costs a program that retraces thousands of times.

The stream (the main table) calls one function with a new Python value on every call, plain
and watched by ``explain_retracing``: every call traces on both sides. The ``extra`` part
runs a whole program that retraces N times (N = 100, 1,000, 10,000 in the full profile), as
``python program.py`` and as ``python -m tf_retracing.explain program.py``, each in a fresh
interpreter, the two alternating. The difference per retrace holds more than the
explainer: TensorFlow's own time per trace grows with N (it looks each call up among the
traces before it), so the watched run also times the explainer's own code (its hook in the
traced body and its commit when TensorFlow adds the trace): that time per retrace at each N
shows whether the explainer's work grows with the traces before it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.scenarios.base import COLD, FunctionRunner, Scenario, Setup, Variant

# The program: one tf.function called with N distinct Python ints, N from its argument.
PROGRAM = """\
import sys

import tensorflow as tf


@tf.function
def shift(x, k):
    return x + k


x = tf.ones([2])
for k in range(int(sys.argv[1])):
    shift(x, k)
print(shift.experimental_get_tracing_count())
"""


# The watched run: ``python -m tf_retracing.explain`` with a stopwatch around the
# explainer's two entry points (the hook in the traced body, the commit when TensorFlow adds
# the trace), so that its own time per retrace is read off the same run, not inferred from
# the difference between two runs, which also holds TensorFlow's own per-trace cost.
WATCHED = """\
import atexit
import runpy
import sys
import time

from tf_retracing import explainer
from tf_retracing.explainer import watch

own = [0.0]


def stopwatch(function):
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            own[0] += time.perf_counter() - started

    return timed


explainer._Watch.before_body = stopwatch(explainer._Watch.before_body)
watch._commit_added_trace = stopwatch(watch._commit_added_trace)
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(repr(own[0])))
sys.argv[0] = "tf_retracing.explain"
runpy.run_module("tf_retracing.explain", run_name="__main__", alter_sys=True)
"""


def _timed(command: list[str], retraces: int) -> float:
    """Wall time of one run of the program (interpreter start included), in seconds."""
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"explainer_at_scale: {command} failed:\n{proc.stderr[-3000:]}")
    traces = int(proc.stdout.strip().splitlines()[-1])
    if traces != retraces:
        raise RuntimeError(f"explainer_at_scale: expected {retraces} traces, got {traces}")
    return seconds


def scale_rows(sizes: tuple[int, ...], rounds: int) -> list[dict]:
    """Per N: the fastest of ``rounds`` runs of each command, plain first then watched;
    and the extra time of each round's pair of runs (``extra_percent_runs``), so that a
    sentence about the overhead can follow the slowest pair, not one fastest figure."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "retraces.py"
        program.write_text(PROGRAM)
        (Path(folder) / "watched.py").write_text(WATCHED)
        own_file = Path(folder) / "own.txt"
        plain_command = [sys.executable, str(program)]
        watched_command = [sys.executable, str(Path(folder) / "watched.py"), str(own_file)]
        for retraces in sizes:
            plain, watched = [], []
            for _ in range(rounds):
                plain.append(_timed([*plain_command, str(retraces)], retraces))
                seconds = _timed([*watched_command, str(program), str(retraces)], retraces)
                watched.append((seconds, float(own_file.read_text())))
            plain_s, (watched_s, own_s) = min(plain), min(watched)
            paired = [100 * (w / p - 1) for p, (w, _) in zip(plain, watched, strict=True)]
            rows.append(
                {
                    "retraces": retraces,
                    "rounds": rounds,
                    "plain_s": plain_s,
                    "watched_s": watched_s,
                    "extra_percent": 100 * (watched_s / plain_s - 1),
                    "extra_percent_runs": paired,
                    "extra_ms_per_retrace": 1e3 * (watched_s - plain_s) / retraces,
                    "own_ms_per_retrace": 1e3 * own_s / retraces,
                    "plain_ms_per_retrace": 1e3 * plain_s / retraces,
                }
            )
    return rows


def build(quick: bool) -> Setup:
    import tensorflow as tf
    from tf_retracing import explain_retracing

    calls = 10 if quick else 200
    x = tf.ones([2])

    def shift(x, k):
        return x + k

    # The quick profile: two sizes (what the page compares), each a pair of fresh interpreters.
    sizes = (2, 5) if quick else (100, 1_000, 10_000)
    # Three rounds in the full profile: the fewest from which the slowest pair of runs
    # bounds the overhead at all (the largest size costs about ten minutes a run).
    rounds = 1 if quick else 3
    return Setup(
        variants=[
            Variant(
                "unwatched",
                "plain `tf.function`",
                lambda: FunctionRunner(tf.function(shift), lambda k: (x, k)),
            ),
            Variant(
                "watched",
                "`explain_retracing(tf.function(...))`",
                lambda: FunctionRunner(explain_retracing(tf.function(shift)), lambda k: (x, k)),
            ),
        ],
        stream=list(range(calls)),
        samples=[1] * calls,
        repetitions=2 if quick else 10,
        parameters={
            "cold pass": f"{calls} calls, each with a new Python int (each traces)",
            "whole program": f"N = {', '.join(f'{n:,}' for n in sizes)} retraces, as python "
            "and under python -m tf_retracing.explain, a fresh interpreter each, "
            f"the fastest of {rounds} run{'s' if rounds > 1 else ''}",
        },
        extra=lambda: {"scale": scale_rows(sizes, rounds)},
    )


SCENARIO = Scenario(
    name="explainer_at_scale",
    title="The retrace explainer at thousands of retraces",
    question=(
        "Does the explainer's work per retrace stay the same however many traces came "
        "before, and what does it add to a whole program that retraces thousands of times?"
    ),
    baseline="unwatched",
    headline="watched",
    headline_pass=COLD,
    build=build,
    requires=("snippets/tf_retracing/explainer", "snippets/tf_retracing/explain.py"),
)
