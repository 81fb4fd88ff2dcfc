"""A tf.summary step passed as a Python int: one trace per step."""

import tempfile

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/34481"
SUMMARY = "the tf.summary example with `for step in range(100): my_func(step)` retraces"
EXPECT = [("my_func", "step", "python-value")]

writer = tf.summary.create_file_writer(tempfile.mkdtemp())


@tf.function
def my_func(step):
    with writer.as_default():
        # tf.summary.scalar (TensorBoard) writes through tf.summary.write: same step rules
        tf.summary.write("my_metric", 0.5, step=step)


my_func = watch(my_func)
for step in range(6):
    my_func(step)  # hazard: TFL003
    writer.flush()
