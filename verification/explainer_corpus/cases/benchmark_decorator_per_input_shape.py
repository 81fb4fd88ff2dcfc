"""A benchmark that wraps its forward pass in a new tf.function for every input shape."""

import random
import timeit
from functools import wraps

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/ryfeus/lambda-packs/issues/58"
SUMMARY = "run_in_graph_mode is defined in run_with_tf_optimizations, called in a for loop"
EXPECT = [
    # a new tf.function per (batch_size, sequence_length): each traces once
    ("run_with_tf_optimizations.<locals>.run_func.<locals>.run_in_graph_mode", None, "object")
]


def run_with_tf_optimizations(do_eager_mode, use_xla):
    def run_func(func):
        @wraps(func)
        def run_in_eager_mode(*args, **kwargs):
            return func(*args, **kwargs)

        @wraps(func)
        @tf.function(jit_compile=use_xla)
        def run_in_graph_mode(*args, **kwargs):
            return func(*args, **kwargs)

        return run_in_eager_mode if do_eager_mode else run_in_graph_mode

    return run_func


vocab_size = 50
inputs = keras.Input((None,), dtype="int32")
model = keras.Model(inputs, keras.layers.Dense(4)(keras.layers.Embedding(vocab_size, 8)(inputs)))
for batch_size in (1, 2):
    for sequence_length in (4, 8):
        rng = random.Random()
        values = [rng.randint(0, vocab_size - 1) for _ in range(batch_size * sequence_length)]
        input_ids = tf.constant(values, shape=(batch_size, sequence_length), dtype=tf.int32)

        @run_with_tf_optimizations(do_eager_mode=False, use_xla=False)
        def encoder_forward():
            return model(input_ids, training=False)

        inference = watch(encoder_forward)
        inference()
        runtimes = timeit.repeat(lambda: inference(), repeat=3, number=1)
        print(batch_size, sequence_length, min(runtimes))
