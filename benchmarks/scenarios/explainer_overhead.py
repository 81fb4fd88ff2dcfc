"""What watching a function with the retrace explainer costs, per call and per retrace."""

from __future__ import annotations

from benchmarks.scenarios.base import STEADY, FunctionRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import FEATURES, batch, rng


def build(quick: bool) -> Setup:
    import tensorflow as tf
    from tf_retracing import explain_retracing

    shapes = 6 if quick else 40
    generator = rng()
    # A new batch size on every call of the cold pass: every call traces, on both sides.
    stream = [tf.constant(batch(rows, generator)) for rows in range(1, shapes + 1)]
    weights = tf.constant(generator.standard_normal((FEATURES, 16)).astype("float32"))

    def body(x):
        return tf.nn.relu(x @ weights)

    return Setup(
        variants=[
            Variant("unwatched", "plain `tf.function`", lambda: FunctionRunner(tf.function(body))),
            Variant(
                "watched",
                "`explain_retracing(tf.function(...))`",
                lambda: FunctionRunner(explain_retracing(tf.function(body))),
            ),
        ],
        stream=stream,
        samples=list(range(1, shapes + 1)),
        repetitions=2 if quick else 30,
        steady_repeats=2 if quick else 25,
        parameters={
            "cold pass": f"{shapes} calls, each with a new batch size (each traces)",
            "steady pass": f"the same inputs {2 if quick else 25} times over (no trace)",
        },
    )


SCENARIO = Scenario(
    name="explainer_overhead",
    title="The retrace explainer's overhead",
    question=(
        "How much slower is a function watched by `explain_retracing` than the same "
        "`tf.function` unwatched, on calls that reuse a trace and on calls that retrace?"
    ),
    baseline="unwatched",
    headline="watched",
    headline_pass=STEADY,
    build=build,
    requires=("snippets/tf_retracing/explainer",),
)
