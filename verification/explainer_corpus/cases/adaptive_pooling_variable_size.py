"""An adaptive pooling layer's tf.function call given inputs of a different length each time."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/45984"
SUMMARY = "adaptive pooling's call unrolls over output_size; inputs of variable size retrace it"
EXPECT = [("AdaptiveAveragePooling1D.call", "inputs", "shape")]


class AdaptiveAveragePooling1D(tf.Module):
    def __init__(self, output_size):
        self.output_size = output_size
        self.reduce_function = tf.reduce_mean

    @tf.function
    def call(self, inputs):
        splits = tf.split(inputs, self.output_size, axis=1)
        return tf.stack([self.reduce_function(split, axis=1) for split in splits], axis=1)


layer = AdaptiveAveragePooling1D(output_size=4)
layer.call = watch(layer.call)
for length in (16, 24, 16, 40, 8):  # signals of variable length, pooled to 4 steps
    layer.call(tf.random.normal([2, length, 3]))  # hazard: TFL011
