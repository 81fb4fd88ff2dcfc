"""One train step tf.function given a new model and optimizer for each experiment."""

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/42000"
SUMMARY = "repeating an experiment with a new model passes new objects to the same train_step"
EXPECT = [("get_apply_grad_fn.<locals>.train_step", "model", "object")]


def build_model():
    return keras.Sequential([keras.Input((2,)), keras.layers.Dense(10), keras.layers.Dense(1)])


def get_apply_grad_fn():
    @tf.function
    def train_step(model, batch_input, batch_label, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(batch_label - model(batch_input)))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return train_step


train_step = watch(get_apply_grad_fn())
x, y = tf.random.normal([16, 2]), tf.random.normal([16, 1])
for experiment in range(3):
    model, optimizer = build_model(), keras.optimizers.SGD(0.01)
    optimizer.build(model.trainable_variables)  # its variables exist before the first trace
    for _ in range(3):
        train_step(model, x, y, optimizer)  # hazard: TFL010
