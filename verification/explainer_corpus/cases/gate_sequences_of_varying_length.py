"""A matrix-product tf.function given gate sequences of different lengths."""

import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/q-optimize/c3/issues/74"
SUMMARY = "calibration warns 5 out of the last 14 calls to tf_matmul_left triggered retracing"
EXPECT = [("tf_matmul_left", "dUs", "shape")]  # one trace per sequence length


@tf.function
def tf_matmul_left(dUs):
    """Multiplies a stack of N matrices, shape (N, n, n), from the left."""
    return tf.foldr(lambda a, x: tf.matmul(a, x), dUs)


def evaluate_sequences(gates, sequences):
    U = []
    for sequence in sequences:
        Us = tf.cast([gates[gate] for gate in sequence], tf.complex128)
        U.append(tf_matmul_left(Us))
    return U


tf_matmul_left = watch(tf_matmul_left)
rng = np.random.default_rng(0)
gates = {name: np.linalg.qr(rng.normal(size=(4, 4)))[0] for name in ("X90p", "Y90p", "Id")}
for _ in range(3):  # each round of the calibration evaluates random sequences
    sequences = [list(rng.choice(list(gates), size=rng.integers(2, 7))) for _ in range(4)]
    evaluate_sequences(gates, sequences)
