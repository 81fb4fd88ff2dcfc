"""Two tf.functions defined inside animate(), which runs once per video: new ones each time."""

import math

import keras
import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/lshug/first-order-model-tf/issues/22"
SUMMARY = "slice_driving and next_batch are defined in animate, called in a loop over videos"
EXPECT = [
    ("animate.<locals>.slice_driving", None, "object"),
    ("animate.<locals>.next_batch", None, "object"),
]


def animate(source_image, driving_video, kp_detector, batch_size=2):
    end = batch_size * (len(driving_video) // batch_size)

    @tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)])
    def slice_driving(x):  # hazard: TFL001
        return x[0:end]

    @tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)])
    def next_batch(x):  # hazard: TFL001
        return x[0:batch_size], x[batch_size:]

    slice_driving, next_batch = watch(slice_driving), watch(next_batch)
    kp_source = kp_detector(source_image)
    driving_video = slice_driving(tf.constant(driving_video))
    predictions = []
    for _ in range(math.ceil(end / batch_size)):
        driving_video_tensor, driving_video = next_batch(driving_video)
        predictions.append((kp_detector(driving_video_tensor) - kp_source).numpy())
    return np.concatenate(predictions, 0)


kp_detector = keras.Sequential(
    [keras.Input((16, 16, 3)), keras.layers.Flatten(), keras.layers.Dense(4)]
)
source = np.random.rand(1, 16, 16, 3).astype("float32")
for _ in range(3):  # run.py animates one driving video after another
    video = np.random.rand(7, 16, 16, 3).astype("float32")
    animate(source, video, kp_detector)
