"""The fix the report gives: the eager line runs inside one tf.function made once."""

import tensorflow as tf

SOURCE = "https://github.com/tensorflow/probability/issues/1076"
ADVICE = "run that line inside one tf.function of your own, made once"


@tf.function  # made once: vectorized_map builds its inner function while this traces
def log_prob(value):
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
