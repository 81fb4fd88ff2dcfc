"""A tf.function called with scalars, then with vectors of the same length twice."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/33434"
SUMMARY = "add(a, b) prints 'Addition' again when the input tensors' shape varies"
EXPECT = [("add", "a", "shape")]  # b: among its others


@tf.function
def add(a, b):
    print("Addition")
    return a + b


add = watch(add)
add(tf.constant(1), tf.constant(2))
add(tf.constant([1, 2]), tf.constant([2, 4]))
add(tf.constant([333, 2]), tf.constant([2, 4444]))  # same shape as the last: no new trace
