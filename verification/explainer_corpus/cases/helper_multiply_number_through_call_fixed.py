"""The fix the explainer prints, applied where it points: the weight passed as an int32
tensor, cast to float32 at the helper's call in the step."""

import tensorflow as tf

ADVICE = "tf.cast(w, tf.float32) where it feeds Mul, line 27 (`loss = weighted(consistency, w)`)"

kernel = tf.Variable(tf.ones([4, 3]))
optimizer = tf.keras.optimizers.SGD(0.1)


def weighted(loss, weight):
    return loss * weight


@tf.function
def train_step(x, w):
    with tf.GradientTape() as tape:
        consistency = tf.reduce_mean(tf.matmul(x, kernel) ** 2)
        loss = weighted(consistency, tf.cast(w, tf.float32))
    grads = tape.gradient(loss, [kernel])
    optimizer.apply_gradients(zip(grads, [kernel]))
    return loss, tf.one_hot(0, w)


x = tf.random.normal([8, 4])
for w in (1, 2, 3):
    train_step(x, tf.constant(w, dtype=tf.int32))
