"""A library's image op that defines a tf.function per image and calls it per channel index."""

import tensorflow as tf

SOURCE = "https://github.com/tensorflow/addons/issues/2263"
SUMMARY = (
    "tfa.image.equalize's internal @tf.function scale_channel gives a gazillion retrace warnings"
)
WRAPPED = False  # scale_channel is made inside the library's equalize_image
# Every image makes a new scale_channel (a new tf.function for the same code), and each one
# is traced for channel 0, then again for 1 and for 2 (Python ints).
EXPECT = [
    ("equalize_image.<locals>.scale_channel", "channel", "python-value"),
    ("equalize_image.<locals>.scale_channel", None, "object"),
]


def equalize_image(image, data_format="channels_last"):
    """Implements Equalize function from PIL using TF ops."""

    @tf.function
    def scale_channel(image, channel):  # hazard: TFL001
        image_dtype = image.dtype
        if data_format == "channels_last":
            image = tf.cast(image[:, :, channel], tf.int32)
        else:
            image = tf.cast(image[channel], tf.int32)
        histo = tf.math.bincount(image, minlength=256, maxlength=256)
        lut = tf.cumsum(histo) * 255 // tf.maximum(tf.reduce_sum(histo), 1)
        return tf.cast(tf.gather(lut, image), image_dtype)

    channels = [scale_channel(image, c) for c in range(3)]  # hazard: TFL003
    return tf.stack(channels, axis=-1)


def equalize(images):
    return tf.stack([equalize_image(image) for image in images])


dataset = tf.data.Dataset.from_tensor_slices(
    tf.random.uniform([8, 16, 16, 3], maxval=255, dtype=tf.int32)
).batch(4)
for images in dataset:  # a naive tf.data loop
    equalize(tf.cast(images, tf.uint8))
