"""A conv model in a tf.function with a TensorSpec signature, run on images of new sizes."""

import time

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/41325"
SUMMARY = "with a tensor-spec tf.function, each new input size runs much slower the first time"
# Not a retrace: the input_signature gives one trace (experimental_get_tracing_count() is 1);
# the first run of a new size is slow in the runtime (kernel selection), not in tracing.
EXPECT = []

kernel = tf.Variable(tf.random.normal([3, 3, 3, 8]))


@tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32)])
def model(images):
    return tf.nn.relu(tf.nn.conv2d(images, kernel, strides=1, padding="SAME"))


model = watch(model)
for samples in (30, 31, 32, 33):
    images = tf.random.normal([samples, 16, 16 + samples % 3, 3])
    times = []
    for _ in range(3):
        start = time.perf_counter()
        model(images)
        times.append(1000 * (time.perf_counter() - start))
    print(f"[{samples} samples] running time (msec):", " ".join(f"{t:.1f}" for t in times))
