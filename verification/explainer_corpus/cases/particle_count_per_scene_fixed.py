"""The fix the explainer prints: the particle count declared None."""

import numpy as np
import tensorflow as tf

ADVICE = "the spec tf.TensorSpec(shape=[None, 3], dtype=tf.float32) in input_signature"


def main():
    weights = tf.Variable(tf.random.normal([3, 3]))
    optimizer = tf.keras.optimizers.Adam(1e-3)
    optimizer.build([weights])

    spec = tf.TensorSpec(shape=[None, 3], dtype=tf.float32)

    @tf.function(input_signature=[spec, spec])
    def train(positions, velocities):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(positions @ weights - velocities))
        optimizer.apply_gradients([(tape.gradient(loss, weights), weights)])
        return loss

    for particles in (100, 100, 140, 90, 120):  # each scene has its own particle count
        positions = np.random.rand(particles, 3).astype(np.float32)
        train(positions, np.random.rand(particles, 3).astype(np.float32))


main()
