"""The fix the explainer prints: the length declared None in input_signature."""

import tensorflow as tf

ADVICE = (
    "give `inputs` the spec tf.TensorSpec(shape=[2, None, 3], dtype=tf.float32) in input_signature"
)


class AdaptiveAveragePooling1D(tf.Module):
    def __init__(self, output_size):
        self.output_size = output_size
        self.reduce_function = tf.reduce_mean

    @tf.function(input_signature=[tf.TensorSpec(shape=[2, None, 3], dtype=tf.float32)])
    def call(self, inputs):
        splits = tf.split(inputs, self.output_size, axis=1)
        return tf.stack([self.reduce_function(split, axis=1) for split in splits], axis=1)


layer = AdaptiveAveragePooling1D(output_size=4)
for length in (16, 24, 16, 40, 8):  # signals of variable length, pooled to 4 steps
    layer.call(tf.random.normal([2, length, 3]))
