"""The fix the explainer prints: the box count declared None in an input_signature."""

import tensorflow as tf

ADVICE = "the spec tf.TensorSpec(shape=[None, 4], dtype=tf.float32) in input_signature"

kernel = tf.Variable(tf.random.normal([4, 4]))


@tf.function(
    input_signature=[
        tf.TensorSpec(shape=[32, 32, 4], dtype=tf.float32),
        tf.TensorSpec(shape=[None, 4], dtype=tf.float32),
    ]
)
def train_step(image, groundtruth_boxes):
    features = tf.reduce_mean(image, axis=[0, 1])
    return tf.reduce_sum(groundtruth_boxes @ kernel) + tf.reduce_sum(features)


for box_count in (1, 3, 2, 5, 4):
    train_step(tf.zeros([32, 32, 4]), tf.random.uniform([box_count, 4]))
