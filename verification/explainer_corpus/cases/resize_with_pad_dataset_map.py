"""A tf.function preprocessing method mapped over a dataset of images of different sizes."""

import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/48366"
SUMMARY = "resize_with_pad slows the dataset; a reply: the tf.function retraces per image shape"
# Not a retrace: Dataset.map traces the function once, for the dataset's element spec
# (height and width None), whatever the sizes of the images that flow through it.
EXPECT = []


class CreateDataset:
    def __init__(self):
        self.target_height = 64
        self.target_width = 64

    @tf.function
    def normalize(self, image, mask):
        image = tf.image.resize_with_pad(image, self.target_height, self.target_width)
        mask = tf.image.resize_with_pad(mask, self.target_height, self.target_width)
        return tf.cast(image, tf.float32) / 255.0, mask


def images():
    for height, width in ((40, 60), (80, 50), (64, 64), (30, 90)):
        yield np.zeros((height, width, 3), np.uint8), np.zeros((height, width, 1), np.uint8)


creator = CreateDataset()
normalize = watch(creator.normalize)
spec = (tf.TensorSpec([None, None, 3], tf.uint8), tf.TensorSpec([None, None, 1], tf.uint8))
dataset = tf.data.Dataset.from_generator(images, output_signature=spec).map(normalize)
for epoch in range(2):
    for image, mask in dataset.batch(2):
        pass
