"""A train step given its learning rate, temperature and loss weight as annealed Python floats."""

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/yerkojahve/Meta-Pseudo-label/issues/1"
SUMMARY = "train_step gets learning_rate, temperature, cross_entrophy_coef as Python floats"
EXPECT = [("train_step", "learning_rate", "python-value")]  # the other two: among its others

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8), keras.layers.Dense(3)])
optimizer = keras.optimizers.Adam()
optimizer.build(model.trainable_variables)


@tf.function
def train_step(inputs, learning_rate, temperature, cross_entropy_coef):
    optimizer.learning_rate.assign(learning_rate)
    with tf.GradientTape() as tape:
        logits = model(inputs) / temperature
        reconstruction = tf.reduce_mean(tf.square(logits - inputs))
        entropy = -tf.reduce_mean(tf.nn.softmax(logits) * tf.nn.log_softmax(logits))
        loss = reconstruction - cross_entropy_coef * entropy
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


train_step = watch(train_step)
inputs = tf.random.normal([16, 3])
step = 0
while step < 6:  # the schedules anneal all three on every step
    learning_rate = 1e-3 * 0.99**step
    temperature = max(1.0, 10.0 * 0.9**step)
    cross_entropy_coef = min(1.0, 0.1 * (step + 1))
    train_step(inputs, learning_rate, temperature, cross_entropy_coef)  # hazard: TFL003
    step += 1
