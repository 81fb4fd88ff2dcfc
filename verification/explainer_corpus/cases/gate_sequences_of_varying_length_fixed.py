"""The fix the explainer prints: the sequence length None in input_signature."""

import numpy as np
import tensorflow as tf

ADVICE = "the spec tf.TensorSpec(shape=[None, 4, 4], dtype=tf.complex128) in input_signature"


@tf.function(input_signature=[tf.TensorSpec(shape=[None, 4, 4], dtype=tf.complex128)])
def tf_matmul_left(dUs):
    """Multiplies a stack of N matrices, shape (N, n, n), from the left."""
    return tf.foldr(lambda a, x: tf.matmul(a, x), dUs)


def evaluate_sequences(gates, sequences):
    U = []
    for sequence in sequences:
        Us = tf.cast([gates[gate] for gate in sequence], tf.complex128)
        U.append(tf_matmul_left(Us))
    return U


rng = np.random.default_rng(0)
gates = {name: np.linalg.qr(rng.normal(size=(4, 4)))[0] for name in ("X90p", "Y90p", "Id")}
for _ in range(3):  # each round of the calibration evaluates random sequences
    sequences = [list(rng.choice(list(gates), size=rng.integers(2, 7))) for _ in range(4)]
    evaluate_sequences(gates, sequences)
