"""A near miss, re-judged (issue 52): a layer test makes one tf.function per configuration
of a literal list, each wrapping a new layer. One trace per configuration is what the test
asks for, not a retrace to fix; the earlier mark as TFL001 came from an automated checker's
report, and issue 52 lists this class among TFL001's false findings."""

import tensorflow as tf

SOURCE = "https://github.com/dynastes-team/dynastes/issues/4"
SUMMARY = "near miss: test_layer makes a tf.function per configuration of a literal list"


def test_layer(layer, inputs):
    @tf.function
    def test_func(x):
        return layer(x)

    return test_func(inputs)


inputs = tf.random.normal([2, 10, 8])
for heads in [1, 2, 4]:
    attention = tf.keras.layers.MultiHeadAttention(num_heads=heads, key_dim=4)
    test_layer(lambda x, a=attention: a(x, x), inputs)
