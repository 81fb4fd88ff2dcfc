"""The fix the explainer prints: the step as an int64 tensor."""

import tempfile

import tensorflow as tf

ADVICE = "dtype=tf.int64), the dtype a step has"

writer = tf.summary.create_file_writer(tempfile.mkdtemp())


@tf.function
def my_func(step):
    with writer.as_default():
        # tf.summary.scalar (TensorBoard) writes through tf.summary.write: same step rules
        tf.summary.write("my_metric", 0.5, step=step)


for step in range(6):
    my_func(tf.constant(step, dtype=tf.int64))
    writer.flush()
