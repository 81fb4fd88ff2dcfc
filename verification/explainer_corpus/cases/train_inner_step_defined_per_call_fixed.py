"""The fix the explainer prints: the tf.function created once, outside train_step."""

import keras
import tensorflow as tf

ADVICE = "Create the tf.function once, outside the loop or request handler"

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4)])
optimizer = keras.optimizers.SGD(0.01)
optimizer.build(model.trainable_variables)


@tf.function
def train_inner_step(target):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(target) - target))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def train_step(target, num_inner_steps):
    for _ in range(num_inner_steps):
        loss = train_inner_step(target)
    return loss


target = tf.random.normal([8, 4])
for step in range(4):
    print(step, float(train_step(target, num_inner_steps=3)))
