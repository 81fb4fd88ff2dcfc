"""Model prediction in a loop: ``model.predict`` against lighter ways to call the model."""

from __future__ import annotations

from benchmarks.scenarios.base import (
    STEADY,
    CountingRunner,
    FunctionRunner,
    Scenario,
    Setup,
    Variant,
)
from benchmarks.scenarios.common import FEATURES, batch, dense_model, rng

BATCH = 32


def predict_traces(model) -> int:
    """Traces of the ``tf.function`` Keras builds for ``predict`` and ``predict_on_batch``."""
    function = model.predict_function
    return 0 if function is None else function.experimental_get_tracing_count()


def build(quick: bool) -> Setup:
    import tensorflow as tf

    calls = 3 if quick else 40
    x = batch(BATCH, rng())
    x_tensor = tf.constant(x)

    def with_predict():
        model = dense_model()
        return CountingRunner(
            lambda item: model.predict(item, verbose=0), lambda: predict_traces(model)
        )

    def with_predict_on_batch():
        model = dense_model()
        return CountingRunner(model.predict_on_batch, lambda: predict_traces(model))

    def with_function():
        model = dense_model()
        signature = [tf.TensorSpec([None, FEATURES], tf.float32)]
        return FunctionRunner(
            tf.function(lambda v: model(v, training=False), input_signature=signature),
            arguments=lambda _: (x_tensor,),
        )

    return Setup(
        variants=[
            Variant("predict", "`model.predict(x)`", with_predict),
            Variant("predict_on_batch", "`model.predict_on_batch(x)`", with_predict_on_batch),
            Variant("tf_function", "`model(x)` in a `tf.function`", with_function),
        ],
        stream=[x] * calls,
        samples=[BATCH] * calls,
        repetitions=2 if quick else 25,
        parameters={"batch": BATCH, "features": FEATURES, "calls per pass": calls},
    )


SCENARIO = Scenario(
    name="predict_loop",
    title="Model prediction in a loop",
    question=(
        "How much does each call cost when one batch is predicted at a time with "
        "`model.predict`, `predict_on_batch`, or the model called inside a `tf.function`?"
    ),
    baseline="predict",
    headline="tf_function",
    headline_pass=STEADY,
    build=build,
)
