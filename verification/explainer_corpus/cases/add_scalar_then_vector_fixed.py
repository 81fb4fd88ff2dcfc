"""The fix the explainer prints: a spec of any rank for both arguments."""

import tensorflow as tf

ADVICE = "give `a` the spec tf.TensorSpec(shape=None, dtype=tf.int32) in input_signature"

spec = tf.TensorSpec(shape=None, dtype=tf.int32)


@tf.function(input_signature=[spec, spec])
def add(a, b):
    print("Addition")
    return a + b


add(tf.constant(1), tf.constant(2))
add(tf.constant([1, 2]), tf.constant([2, 4]))
add(tf.constant([333, 2]), tf.constant([2, 4444]))
