"""A stream of calls whose batch size changes: no signature, a signature, reduce_retracing."""

from __future__ import annotations

from benchmarks.scenarios.base import COLD, FunctionRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import FEATURES, batch, dense_model, rng

MAX_BATCH = 64


def build(quick: bool) -> Setup:
    import tensorflow as tf

    calls = 30 if quick else 1000
    generator = rng()
    sizes = generator.integers(1, MAX_BATCH + 1, size=calls)
    stream = [tf.constant(batch(int(size), generator)) for size in sizes]
    model = dense_model()

    def predictor(**options):
        def fresh():
            return FunctionRunner(tf.function(lambda x: model(x, training=False), **options))

        return fresh

    signature = [tf.TensorSpec([None, FEATURES], tf.float32)]
    return Setup(
        variants=[
            Variant("no_signature", "plain `tf.function`", predictor()),
            Variant(
                "input_signature",
                "`input_signature` with a `None` batch",
                predictor(input_signature=signature),
            ),
            Variant(
                "reduce_retracing", "`reduce_retracing=True`", predictor(reduce_retracing=True)
            ),
        ],
        stream=stream,
        samples=[int(size) for size in sizes],
        repetitions=2 if quick else 20,
        parameters={
            "calls per pass": calls,
            "batch sizes": f"uniform in 1..{MAX_BATCH}",
            "distinct sizes": len(set(sizes.tolist())),
        },
    )


SCENARIO = Scenario(
    name="batch_size_stream",
    title="A stream of varying batch sizes",
    question=(
        "What does a stream of calls with changing batch sizes cost from a fresh function, "
        "with no signature, with an `input_signature`, and with `reduce_retracing=True`?"
    ),
    baseline="no_signature",
    headline="input_signature",
    headline_pass=COLD,
    build=build,
)
