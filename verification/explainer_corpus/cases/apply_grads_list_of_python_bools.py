"""A list of Python bools choosing an optimizer per model, passed to a tf.function."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/27120"
SUMMARY = "apply_grads(use_fast, ...) with [True, False] then [False, True]: a trace per pattern"
EXPECT = [("apply_grads", "use_fast[0]", "python-value")]

variables = [tf.Variable(1.0), tf.Variable(2.0)]
fast, slow = tf.keras.optimizers.SGD(0.1), tf.keras.optimizers.SGD(0.001)
fast.build(variables)
slow.build(variables)


@tf.function
def apply_grads(use_fast, grads):
    for i in range(2):
        optimizer = fast if use_fast[i] else slow
        optimizer.apply_gradients([(grads[i], variables[i])])


apply_grads = watch(apply_grads)
grads = [tf.constant(0.5), tf.constant(0.5)]
for pattern in ([True, False], [False, True], [True, False], [False, True]):
    apply_grads(pattern, grads)
