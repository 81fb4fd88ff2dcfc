"""A tf.function with an input_signature given batches of token-based shapes: no retrace."""

import itertools
import random

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/29075"
SUMMARY = "with a compatible input_signature, unseen sequence lengths run slower, as if retraced"
# Not a retrace: experimental_get_tracing_count() stays 1; the slowness on new lengths is
# the runtime's per-shape work after tracing, which the report's thread discusses.
EXPECT = []


def generate_token_based_shapes(num_tokens=512):
    while True:
        length = random.randint(2, 64)
        yield num_tokens // length, length


w = tf.Variable(tf.random.normal([32, 32]))


@tf.function(input_signature=(tf.TensorSpec([None, None, 32], tf.float32),))
def run_step(inputs):
    return tf.reduce_sum(tf.nn.relu(tf.einsum("btd,de->bte", inputs, w)))


run_step = watch(run_step)
random.seed(0)
for batch_size, length in itertools.islice(generate_token_based_shapes(), 12):
    run_step(tf.random.uniform([batch_size, length, 32]))
