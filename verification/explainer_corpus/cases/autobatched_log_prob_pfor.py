"""An autobatched log_prob called eagerly in a loop: vectorized_map makes a tf.function per call."""

import tensorflow as tf

SOURCE = "https://github.com/tensorflow/probability/issues/1076"
SUMMARY = (
    "calling .log_prob on an autobatched joint distribution warns about pfor.<locals>.f retracing"
)
WRAPPED = False  # pfor builds its tf.function f inside tf.vectorized_map, on every call
EXPECT = [("pfor.<locals>.f", None, "object")]  # a new tf.function per eager call


def log_prob(value):
    """What an autobatched joint distribution does: the per-sample log-density, vectorized."""

    def single_log_prob(x):
        scale, loc = tf.exp(x[0]), x[1]
        return -tf.math.log(scale) - 0.5 * tf.square((x[2] - loc) / scale)

    return tf.vectorized_map(single_log_prob, value)


value = tf.Variable(tf.random.normal([16, 3]))
optimizer = tf.keras.optimizers.SGD(0.01)
for step in range(6):  # an eager-mode optimization loop
    with tf.GradientTape() as tape:
        loss = -tf.reduce_mean(log_prob(value))
    optimizer.apply_gradients([(tape.gradient(loss, value), value)])
