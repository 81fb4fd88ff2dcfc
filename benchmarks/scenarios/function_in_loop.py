"""A ``tf.function`` or a model created inside the loop, against one created once."""

from __future__ import annotations

from benchmarks.scenarios.base import COLD, CountingRunner, FunctionRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import batch, dense_model, rng

ROWS = 32


def build(quick: bool) -> Setup:
    import tensorflow as tf

    calls = 4 if quick else 40
    x = tf.constant(batch(ROWS, rng()))

    def function_per_call():
        model = dense_model()
        created = []

        def call(item):
            function = tf.function(lambda v: model(v, training=False))  # the mistake
            created.append(function)
            return function(item)

        return CountingRunner(
            call, lambda: sum(f.experimental_get_tracing_count() for f in created)
        )

    def model_per_call():
        @tf.function
        def predict(model, v):
            return model(v, training=False)

        def call(item):
            return predict(dense_model(), item)  # the mistake: a new model every call

        return CountingRunner(call, predict.experimental_get_tracing_count)

    def created_once():
        model = dense_model()
        return FunctionRunner(tf.function(lambda v: model(v, training=False)))

    return Setup(
        variants=[
            Variant("function_per_call", "new `tf.function` every call", function_per_call),
            Variant("model_per_call", "new model every call, one `tf.function`", model_per_call),
            Variant("created_once", "function and model created once", created_once),
        ],
        stream=[x] * calls,
        samples=[ROWS] * calls,
        repetitions=2 if quick else 20,
        parameters={"calls per pass": calls, "batch": ROWS},
    )


SCENARIO = Scenario(
    name="function_in_loop",
    title="Functions and models created in a loop",
    question=(
        "What does each call cost when the `tf.function`, or the model it calls, is "
        "created anew inside the loop instead of once?"
    ),
    baseline="function_per_call",
    headline="created_once",
    headline_pass=COLD,
    build=build,
)
