"""The fix the explainer prints: the value passed as an int32 tensor."""

import tensorflow as tf

ADVICE = "pass it as a tensor (tf.constant(3), which is int32"


@tf.function
def tf_cube(x):
    return x**3


for x in (2, 3, 4, 5):
    tf_cube(tf.constant(x))
