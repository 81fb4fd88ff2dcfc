"""A tf.function method with reduce_retracing, called on inputs one element longer each time."""

import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/34905"
SUMMARY = "experimental_relax_shapes on an instance method: every a.f(np.ones(i)) retraces"
# TensorFlow 2.21 relaxes methods too: the second length makes the trace general (None,)
EXPECT = [("A.f", "data", "shape")]


class A:
    @watch
    @tf.function(reduce_retracing=True)  # experimental_relax_shapes=True in TF 2.0
    def f(self, data):
        return tf.reduce_sum(data)


a = A()
for i in range(10):
    print(a.f(np.ones(i)))
