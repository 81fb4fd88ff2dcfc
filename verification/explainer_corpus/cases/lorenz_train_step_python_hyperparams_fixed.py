"""The fix the explainer prints: the three annealed values passed as float32 tensors."""

import keras
import tensorflow as tf

ADVICE = "dtype=tf.float32), the dtype the function uses it as"

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


inputs = tf.random.normal([16, 3])
step = 0
while step < 6:  # the schedules anneal all three on every step
    learning_rate = 1e-3 * 0.99**step
    temperature = max(1.0, 10.0 * 0.9**step)
    cross_entropy_coef = min(1.0, 0.1 * (step + 1))
    train_step(
        inputs,
        tf.constant(learning_rate, dtype=tf.float32),
        tf.constant(temperature, dtype=tf.float32),
        tf.constant(cross_entropy_coef, dtype=tf.float32),
    )
    step += 1
