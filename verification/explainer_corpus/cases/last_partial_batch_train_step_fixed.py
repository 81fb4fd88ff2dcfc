"""The fix the explainer prints: the batch dimension declared None."""

import tensorflow as tf

ADVICE = "the spec tf.TensorSpec(shape=[None, 28, 28], dtype=tf.float32) in input_signature"

dense = tf.Variable(tf.random.normal([28 * 28, 10]))


@tf.function(
    input_signature=[
        tf.TensorSpec(shape=[None, 28, 28], dtype=tf.float32),
        tf.TensorSpec(shape=[None], dtype=tf.int32),
    ]
)
def train_step(images, labels):
    logits = tf.reshape(images, [-1, 28 * 28]) @ dense
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))


images = tf.random.uniform([100, 28, 28])
labels = tf.random.uniform([100], maxval=10, dtype=tf.int32)
dataset = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32)  # 32, 32, 32, 4
for epoch in range(2):
    for batch_images, batch_labels in dataset:
        train_step(batch_images, batch_labels)
