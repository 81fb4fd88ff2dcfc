"""A wrapper layer whose tf.function method runs once per instance, for layers made in a loop."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/addons/issues/2575"
SUMMARY = (
    "5 out of the last 5 calls to SpectralNormalization.normalize_weights retraced (in a loop)"
)
# Each SpectralNormalization instance keeps its own traces: normalize_weights traces once per
# layer (experimental_get_tracing_count() is 1 on each), which TensorFlow counts as retraces
# of the one method. The layers' different shapes are not what makes them trace.
EXPECT = [("SpectralNormalization.normalize_weights", "self", "object")]


class SpectralNormalization(tf.Module):
    def __init__(self, in_channels, filters):
        self.w = tf.Variable(tf.random.normal([3, 3, in_channels, filters]))
        self.u = tf.Variable(tf.random.normal([1, filters]))

    @tf.function
    def normalize_weights(self):
        w = tf.reshape(self.w, [-1, self.w.shape[-1]])
        v = tf.math.l2_normalize(tf.matmul(self.u, w, transpose_b=True))
        u = tf.math.l2_normalize(tf.matmul(v, w))
        self.u.assign(u)
        sigma = tf.matmul(tf.matmul(v, w), u, transpose_b=True)
        self.w.assign(self.w / sigma)

    def __call__(self, inputs, training=None):
        if training:
            self.normalize_weights()
        return tf.nn.conv2d(inputs, self.w, strides=1, padding="VALID")


x = tf.random.normal([2, 20, 20, 3])
channels = 3
for _ in range(6):  # the discriminator's conv blocks, made in a loop
    layer = SpectralNormalization(channels, 8)
    layer.normalize_weights = watch(layer.normalize_weights)
    x = tf.nn.relu(layer(x, training=True))
    channels = 8
