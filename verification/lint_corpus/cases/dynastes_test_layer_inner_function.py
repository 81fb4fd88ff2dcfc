"""A layer test defines a tf.function per call and is run for each configuration."""

import tensorflow as tf

SOURCE = "https://github.com/dynastes-team/dynastes/issues/4"
SUMMARY = "test_layer defines and calls tf.function test_func; test_layer is called in a loop"


def test_layer(layer, inputs):
    @tf.function
    def test_func(x):  # hazard: TFL001
        return layer(x)

    return test_func(inputs)


inputs = tf.random.normal([2, 10, 8])
for heads in [1, 2, 4]:
    attention = tf.keras.layers.MultiHeadAttention(num_heads=heads, key_dim=4)
    test_layer(lambda x, a=attention: a(x, x), inputs)
