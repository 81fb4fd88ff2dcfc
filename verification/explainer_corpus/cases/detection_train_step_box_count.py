"""A detection train step given a different number of ground-truth boxes per image."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/keras-team/keras-cv/issues/886"
SUMMARY = "train_step retraces (5 out of the last 9 calls) when images carry different box counts"
EXPECT = [("train_step", "groundtruth_boxes", "shape")]

kernel = tf.Variable(tf.random.normal([4, 4]))


@tf.function
def train_step(image, groundtruth_boxes):
    features = tf.reduce_mean(image, axis=[0, 1])
    return tf.reduce_sum(groundtruth_boxes @ kernel) + tf.reduce_sum(features)


train_step = watch(train_step)
for box_count in (1, 3, 2, 5, 4):
    train_step(tf.zeros([32, 32, 4]), tf.random.uniform([box_count, 4]))  # hazard: TFL011
