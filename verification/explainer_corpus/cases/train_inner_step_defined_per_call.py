"""A tf.function defined inside train_step, which the training loop calls every step."""

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/google/qhbm-library/issues/246"
SUMMARY = "train_inner_step is defined and called in train_step, which is called in a for loop"
EXPECT = [("train_step.<locals>.train_inner_step", None, "object")]

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4)])
optimizer = keras.optimizers.SGD(0.01)
optimizer.build(model.trainable_variables)


def train_step(target, num_inner_steps):
    @tf.function
    def train_inner_step(target):  # hazard: TFL001
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(target) - target))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    train_inner_step = watch(train_inner_step)
    for _ in range(num_inner_steps):
        loss = train_inner_step(target)
    return loss


target = tf.random.normal([8, 4])
for step in range(4):
    print(step, float(train_step(target, num_inner_steps=3)))
