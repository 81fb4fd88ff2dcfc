"""A tf.function called with Python numbers: one concrete function per value."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/24726"
SUMMARY = "tf.function makes a new concrete function for each Python scalar value passed"
EXPECT = [("tf_cube", "x", "python-value")]


@tf.function
def tf_cube(x):
    return x**3


tf_cube = watch(tf_cube)
for x in (2, 3, 4, 5):
    tf_cube(x)  # hazard: TFL003
