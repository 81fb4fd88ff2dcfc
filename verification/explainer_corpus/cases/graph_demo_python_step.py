"""A demo's tf.function called with the Python loop counter as its step."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorboard/issues/6219"
SUMMARY = "graphs_demo.py passes the Python int step to a tf.function inside a for loop"
EXPECT = [("f", "step", "python-value")]


@tf.function
def f(x, y, step):
    return tf.matmul(x, y) + tf.cast(step, tf.float32)


f = watch(f)
x, y = tf.ones([2, 2]), tf.ones([2, 2])
for step in range(4):
    f(x, y, step)  # hazard: TFL003
