"""A tf.function method applied one tensor at a time, then mapped over a dataset: one trace."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/40755"
SUMMARY = "mapping compute over a dataset is much slower than a loop; it prints 'tracing compute'"
# Not a retrace: the loop's tensors all have one shape, and Dataset.map reuses that trace
# for the same element spec (experimental_get_tracing_count() stays 1).
EXPECT = []


class Test:
    @tf.function
    def compute(self, tensor):
        print("python.print ===> tracing compute ... ")
        res = 100 * tensor
        res = tf.signal.rfft(res)
        return tf.math.real(res * tf.math.conj(res))


test = Test()
test.compute = watch(test.compute)
tensors = tf.random.normal([16, 64])
for tensor in tensors:  # one by one
    test.compute(tensor)
dataset = tf.data.Dataset.from_tensor_slices(tensors).map(test.compute)
for result in dataset:  # the same computation, mapped
    pass
