"""A timing helper wraps the ODE's derivative and loss in tf.function on every call."""

import numpy as np
import tensorflow as tf

SOURCE = "https://github.com/google-research/google-research/issues/1485"
SUMMARY = "get_ode_timings defines tf_ydot and tf_loss tf.functions; it is called in a loop"


def get_ode_timings(y0, steps):
    @tf.function
    def tf_ydot(y):  # hazard: TFL001
        return -0.5 * y + tf.sin(y)

    @tf.function
    def tf_loss(y):  # hazard: TFL001
        return tf.reduce_sum(tf.square(y))

    y = tf.constant(y0)
    for _ in range(steps):
        y = y + 0.01 * tf_ydot(y)
    return tf_loss(y)


for dimension in (4, 8, 16):
    get_ode_timings(np.ones(dimension, np.float32), steps=10)
