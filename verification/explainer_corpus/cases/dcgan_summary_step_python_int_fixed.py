"""The fix the explainer prints: the epoch as an int64 tensor."""

import tempfile

import tensorflow as tf

ADVICE = "dtype=tf.int64), the dtype a step has"

generator = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16)])
optimizer = tf.keras.optimizers.Adam(1e-4)
optimizer.build(generator.trainable_variables)
writer = tf.summary.create_file_writer(tempfile.mkdtemp())


@tf.function
def train_step(images, epoch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(generator(tf.random.normal([4, 8])) - images))
    grads = tape.gradient(loss, generator.trainable_variables)
    optimizer.apply_gradients(zip(grads, generator.trainable_variables))
    with writer.as_default():
        tf.summary.write("gen_loss", loss, step=epoch)  # tf.summary.scalar's own op


images = tf.random.normal([4, 16])
for epoch in range(4):
    for _ in range(2):
        train_step(images, tf.constant(epoch, dtype=tf.int64))
