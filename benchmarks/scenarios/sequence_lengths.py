"""Sequences of varying length: a trace per length, ``reduce_retracing``, or padding to buckets."""

from __future__ import annotations

from benchmarks.scenarios.base import COLD, FunctionRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import rng

ROWS = 8
CHANNELS = 16
MAX_LENGTH = 200
BUCKETS = (32, 64, 128, 256)


def bucket_for(length: int) -> int:
    return next(size for size in BUCKETS if size >= length)


def build(quick: bool) -> Setup:
    import tensorflow as tf

    calls = 25 if quick else 600
    generator = rng()
    lengths = generator.integers(5, MAX_LENGTH + 1, size=calls)
    stream = [
        tf.constant(generator.standard_normal((ROWS, int(n), CHANNELS)).astype("float32"))
        for n in lengths
    ]
    w_in = tf.constant(generator.standard_normal((CHANNELS, 64)).astype("float32") * 0.2)
    w_out = tf.constant(generator.standard_normal((64, 4)).astype("float32") * 0.2)

    def encode(x):
        # No bias, so zero rows added by padding contribute exactly zero to the sum.
        return tf.reduce_sum(tf.tanh(x @ w_in) @ w_out, axis=1)

    def pad(x):
        length = int(x.shape[1])
        return (tf.pad(x, [[0, 0], [0, bucket_for(length) - length], [0, 0]]),)

    return Setup(
        variants=[
            Variant(
                "no_signature", "plain `tf.function`", lambda: FunctionRunner(tf.function(encode))
            ),
            Variant(
                "reduce_retracing",
                "`reduce_retracing=True`",
                lambda: FunctionRunner(tf.function(encode, reduce_retracing=True)),
            ),
            Variant(
                "buckets",
                f"zero-padded to {len(BUCKETS)} bucket lengths",
                lambda: FunctionRunner(tf.function(encode), arguments=pad),
            ),
        ],
        stream=stream,
        samples=[ROWS] * calls,
        repetitions=2 if quick else 12,
        parameters={
            "calls per pass": calls,
            "lengths": f"uniform in 5..{MAX_LENGTH}",
            "distinct lengths": len(set(lengths.tolist())),
            "buckets": ", ".join(map(str, BUCKETS)),
        },
    )


SCENARIO = Scenario(
    name="sequence_lengths",
    title="Variable sequence lengths",
    question=(
        "What does a stream of sequences of varying length cost with a trace per length, "
        "with `reduce_retracing=True`, and with padding to a few bucket lengths?"
    ),
    baseline="no_signature",
    headline="reduce_retracing",
    headline_pass=COLD,
    build=build,
)
