"""A small serving program with three kinds of retracing, for the HTML report's example."""

import tensorflow as tf


@tf.function
def predict(x, threshold):
    return tf.cast(x > threshold, tf.int32)


def handle(request, threshold):
    normalise = tf.function(lambda x: x / 255)  # re-created per request
    return predict(normalise(request), threshold)


for batch_size, threshold in ((8, 0.5), (8, 0.5), (3, 0.5), (3, 0.25)):
    handle(tf.zeros((batch_size, 4)), threshold)
print("served 4 requests")
