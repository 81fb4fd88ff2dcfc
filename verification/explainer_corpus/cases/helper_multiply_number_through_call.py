"""A training step passes a Python loss weight to a helper that multiplies the loss by it,
and also uses it as an int: one trace per value, and the cast the advice asks for belongs
at the helper's call in the step, where the weight enters."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/ryancheunggit/tensorflow2_model_zoo/issues/13"
SUMMARY = "a loss weight passed as a Python number retraces the train step when it changes"
# The report's `w * consistency` moved into a helper, as a loss module would hold it; the
# weight also sets how many augmented copies one_hot encodes (an int use).
EXPECT = [("train_step", "w", "python-value")]

kernel = tf.Variable(tf.ones([4, 3]))
optimizer = tf.keras.optimizers.SGD(0.1)


def weighted(loss, weight):
    return loss * weight


@watch
@tf.function
def train_step(x, w):
    with tf.GradientTape() as tape:
        consistency = tf.reduce_mean(tf.matmul(x, kernel) ** 2)
        loss = weighted(consistency, w)
    grads = tape.gradient(loss, [kernel])
    optimizer.apply_gradients(zip(grads, [kernel]))
    return loss, tf.one_hot(0, w)


x = tf.random.normal([8, 4])
for w in (1, 2, 3):  # a ramp-up weight, one value per epoch
    train_step(x, w)  # hazard: TFL003
