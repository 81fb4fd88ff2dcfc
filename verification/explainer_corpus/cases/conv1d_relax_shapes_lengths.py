"""A conv1d tf.function with experimental_relax_shapes=True given signals of many lengths."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/54456"
SUMMARY = "conv1d is slow the first time each input size is seen even though retracing is prevented"
# relax_shapes (reduce_retracing) traces once more on the second length, with the length
# None; every later length reuses that trace (experimental_get_tracing_count() is 2).
EXPECT = [("conv", "x", "shape")]

filters = tf.Variable(tf.random.normal([5, 1, 16]))


@tf.function(experimental_relax_shapes=True)
def conv(x):
    return tf.nn.conv1d(x, filters, stride=1, padding="SAME")


conv = watch(conv)
for length in (1000, 1100, 1200, 1000, 1300):
    conv(tf.random.normal([1, length, 1]))
