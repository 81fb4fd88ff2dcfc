"""A projection helper defines its tf.function inside, and is called for every layer."""

import tensorflow as tf

SOURCE = "https://github.com/sek788432/Waymo-2D-Object-Detection/issues/2"
SUMMARY = "fused_project, called in a for loop, defines and calls a tf.function func"


def fused_project(hashes, weights):
    @tf.function
    def func(h, w):  # hazard: TFL001
        return tf.reduce_sum(tf.cast(h, tf.float32) * w, axis=-1)

    return func(hashes, weights)


hashes = tf.random.uniform([8, 16], maxval=2, dtype=tf.int32)
outputs = []
for layer in range(4):
    weights = tf.random.normal([16])
    outputs.append(fused_project(hashes, weights))
