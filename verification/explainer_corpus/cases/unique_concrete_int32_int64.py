"""Concrete functions made for int32 and int64 specs, then a call with an int32 tensor."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/48229"
SUMMARY = "after two get_concrete_function calls, calling with int32 [0, 2] made a third signature"
# TensorFlow 2.21: the call reuses the (None,) int32 trace; the second trace is the int64
# concrete function the script asks for (experimental_get_tracing_count() is 2).
EXPECT = [("unique_numpy", "arr", "dtype")]


@tf.function()
def unique_numpy(arr):
    unique_val, _ = tf.unique(arr)
    return unique_val


unique_numpy = watch(unique_numpy)
unique_numpy.get_concrete_function(tf.TensorSpec(shape=(None,), dtype=tf.int32))
unique_numpy.get_concrete_function(tf.TensorSpec(shape=(None,), dtype=tf.int64))
unique_numpy(tf.constant([0, 2], dtype=tf.int32))
