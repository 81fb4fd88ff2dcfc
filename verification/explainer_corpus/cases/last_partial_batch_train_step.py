"""A train step over a batched dataset whose last batch is smaller."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/docs/pull/1699"
SUMMARY = "without drop_remainder the tf.function just retraces for the last batch's new shape"
EXPECT = [("train_step", "images", "shape")]  # labels: among its others

dense = tf.Variable(tf.random.normal([28 * 28, 10]))


@tf.function
def train_step(images, labels):
    logits = tf.reshape(images, [-1, 28 * 28]) @ dense
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))


train_step = watch(train_step)
images = tf.random.uniform([100, 28, 28])
labels = tf.random.uniform([100], maxval=10, dtype=tf.int32)
dataset = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32)  # 32, 32, 32, 4
for epoch in range(2):
    for batch_images, batch_labels in dataset:
        train_step(batch_images, batch_labels)
