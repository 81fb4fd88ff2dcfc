"""tape.jacobian called eagerly in a loop: pfor makes a new tf.function on every call."""

import tensorflow as tf

SOURCE = "https://github.com/tensorflow/tensorflow/issues/42835"
SUMMARY = "tf.GradientTape().jacobian() in an eager loop warns about pfor.<locals>.f retracing"
WRAPPED = False  # the tf.function is TensorFlow's, made inside tape.jacobian
EXPECT = [("pfor.<locals>.f", None, "object")]

point = tf.ones((1, 1))
for step in range(8):
    with tf.GradientTape() as tape:
        tape.watch(point)
        value = 2 * point
    jacobian = tape.jacobian(value, point)  # a new pfor function per eager call
print(jacobian.numpy().ravel().tolist())
