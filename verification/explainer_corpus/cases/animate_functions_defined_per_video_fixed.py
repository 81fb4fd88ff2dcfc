"""The fix the explainer prints: both tf.functions created once, their captured sizes passed in."""

import math

import keras
import numpy as np
import tensorflow as tf

ADVICE = "Create the tf.function once, outside the loop or request handler"

SCALAR = tf.TensorSpec(shape=[], dtype=tf.int32)


@tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32), SCALAR])
def slice_driving(x, end):
    return x[0:end]


@tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32), SCALAR])
def next_batch(x, batch_size):
    return x[0:batch_size], x[batch_size:]


def animate(source_image, driving_video, kp_detector, batch_size=2):
    end = batch_size * (len(driving_video) // batch_size)
    kp_source = kp_detector(source_image)
    driving_video = slice_driving(tf.constant(driving_video), tf.constant(end))
    predictions = []
    for _ in range(math.ceil(end / batch_size)):
        driving_video_tensor, driving_video = next_batch(driving_video, tf.constant(batch_size))
        predictions.append((kp_detector(driving_video_tensor) - kp_source).numpy())
    return np.concatenate(predictions, 0)


kp_detector = keras.Sequential(
    [keras.Input((16, 16, 3)), keras.layers.Flatten(), keras.layers.Dense(4)]
)
source = np.random.rand(1, 16, 16, 3).astype("float32")
for _ in range(3):  # run.py animates one driving video after another
    video = np.random.rand(7, 16, 16, 3).astype("float32")
    animate(source, video, kp_detector)
