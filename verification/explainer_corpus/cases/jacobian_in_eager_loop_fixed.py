"""The explainer's advice applied: the jacobian line runs inside one tf.function made once."""

import tensorflow as tf

SOURCE = "https://github.com/tensorflow/tensorflow/issues/42835"
ADVICE = "run that line inside one tf.function of your own, made once"


@tf.function  # made once: pfor builds its inner function while this one traces
def jacobian_of_double(point):
    with tf.GradientTape() as tape:
        tape.watch(point)
        value = 2 * point
    return tape.jacobian(value, point)


point = tf.ones((1, 1))
for step in range(8):
    jacobian = jacobian_of_double(point)
print(jacobian.numpy().ravel().tolist())
