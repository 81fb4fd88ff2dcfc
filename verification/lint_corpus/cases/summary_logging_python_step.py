"""Logging a scalar with a Python step counter passed to the training tf.function."""

import tensorflow as tf

SOURCE = "https://github.com/tensorflow/tensorflow/issues/32157"
SUMMARY = "a non-tensor step argument, used for summary logging, slows training down"

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.01)
writer = tf.summary.create_file_writer("/tmp/logs")
dataset = tf.data.Dataset.from_tensor_slices((tf.ones([64, 3]), tf.ones([64, 1]))).batch(8)


@tf.function
def train_step(x, y, step):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    optimizer.apply_gradients(
        zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables)
    )
    with writer.as_default():
        tf.summary.scalar("loss", loss, step=step)
    return loss


global_step = 0
for epoch in range(3):
    for x, y in dataset:
        train_step(x, y, global_step)  # hazard: TFL003
        global_step += 1
