"""A loop count passed as a Python int (one trace per value) or as a tensor (one trace)."""

from __future__ import annotations

from benchmarks.scenarios.base import COLD, FunctionRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import FEATURES, batch, rng

MAX_STEPS = 20
ROWS = 16


def build(quick: bool) -> Setup:
    import tensorflow as tf

    calls = 15 if quick else 400
    generator = rng()
    steps = [int(n) for n in generator.integers(1, MAX_STEPS + 1, size=calls)]
    x = tf.constant(batch(ROWS, generator))
    weights = tf.constant(generator.standard_normal((FEATURES, FEATURES)).astype("float32") * 0.1)

    def python_count():
        @tf.function
        def iterate(x, num_steps):
            for _ in range(num_steps):  # a Python int: the loop is unrolled into the graph
                x = tf.tanh(x @ weights)
            return x

        return FunctionRunner(iterate, arguments=lambda n: (x, n))

    def tensor_count():
        @tf.function
        def iterate(x, num_steps):
            for _ in tf.range(num_steps):  # a tensor: one graph with a while loop
                x = tf.tanh(x @ weights)
            return x

        return FunctionRunner(iterate, arguments=lambda n: (x, tf.constant(n)))

    return Setup(
        variants=[
            Variant("python_int", "count as a Python `int`, `range`", python_count),
            Variant("tensor", "count as a tensor, `tf.range`", tensor_count),
        ],
        stream=steps,
        samples=[ROWS] * calls,
        repetitions=2 if quick else 20,
        parameters={
            "calls per pass": calls,
            "loop counts": f"uniform in 1..{MAX_STEPS}",
            "distinct counts": len(set(steps)),
        },
    )


SCENARIO = Scenario(
    name="loop_count",
    title="Python versus tensor loop counts",
    question=(
        "What does a stream of calls with a changing loop count cost when the count is a "
        "Python `int` (a trace per value) or a tensor (one trace)?"
    ),
    baseline="python_int",
    headline="tensor",
    headline_pass=COLD,
    build=build,
)
