"""The fix the explainer prints: the step as a tensor of the dtype the graph used."""

import tensorflow as tf

ADVICE = "dtype=tf.int32), the dtype the function uses it as"


@tf.function
def f(x, y, step):
    return tf.matmul(x, y) + tf.cast(step, tf.float32)


x, y = tf.ones([2, 2]), tf.ones([2, 2])
for step in range(4):
    f(x, y, tf.constant(step, dtype=tf.int32))
