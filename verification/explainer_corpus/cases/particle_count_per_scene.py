"""A training step given scenes with different particle counts."""

import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/isl-org/DeepLagrangianFluids/issues/28"
SUMMARY = "main.<locals>.train retraces (5 of the last 5 calls) on some generated datasets"
EXPECT = [("main.<locals>.train", "positions", "shape")]  # velocities: among its others


def main():
    weights = tf.Variable(tf.random.normal([3, 3]))
    optimizer = tf.keras.optimizers.Adam(1e-3)
    optimizer.build([weights])

    @tf.function
    def train(positions, velocities):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(positions @ weights - velocities))
        optimizer.apply_gradients([(tape.gradient(loss, weights), weights)])
        return loss

    train = watch(train)
    for particles in (100, 100, 140, 90, 120):  # each scene has its own particle count
        positions = np.random.rand(particles, 3).astype(np.float32)
        train(positions, np.random.rand(particles, 3).astype(np.float32))  # hazard: TFL011


main()
