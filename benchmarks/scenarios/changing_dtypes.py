"""Inputs whose dtype changes from call to call: one trace per dtype, or a cast first."""

from __future__ import annotations

from benchmarks.scenarios.base import COLD, FunctionRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import FEATURES, batch, rng

ROWS = 32
DTYPES = ("float32", "float64", "float16", "int32", "int64")


def build(quick: bool) -> Setup:
    import tensorflow as tf

    calls = 25 if quick else 500
    generator = rng()
    weights = tf.constant(generator.standard_normal((FEATURES, 8)).astype("float32"))
    kinds = generator.choice(DTYPES, size=calls)
    stream = [tf.constant(batch(ROWS, generator, str(kind))) for kind in kinds]

    def project(x):
        return tf.tanh(tf.cast(x, tf.float32) @ weights)

    def as_given():
        return FunctionRunner(tf.function(project))

    def cast_first():
        return FunctionRunner(
            tf.function(project), arguments=lambda item: (tf.cast(item, tf.float32),)
        )

    return Setup(
        variants=[
            Variant("as_given", "each dtype passed as it comes", as_given),
            Variant("cast_first", "cast to `float32` before the call", cast_first),
        ],
        stream=stream,
        samples=[ROWS] * calls,
        repetitions=2 if quick else 20,
        parameters={"calls per pass": calls, "dtypes": ", ".join(DTYPES), "batch": ROWS},
    )


SCENARIO = Scenario(
    name="changing_dtypes",
    title="Changing dtypes",
    question=(
        "What does a stream of inputs of mixed dtypes cost when each dtype gets its own "
        "trace, compared with casting to one dtype before the call?"
    ),
    baseline="as_given",
    headline="cast_first",
    headline_pass=COLD,
    build=build,
)
