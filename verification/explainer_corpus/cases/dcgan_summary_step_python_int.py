"""A GAN train step that takes the Python epoch counter only to log summaries."""

import tempfile

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/32157"
SUMMARY = "adding summary logging with a non-tensor step argument slows DCGAN training down"
EXPECT = [("train_step", "epoch", "python-value")]

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


train_step = watch(train_step)
images = tf.random.normal([4, 16])
for epoch in range(4):
    for _ in range(2):
        train_step(images, epoch)  # hazard: TFL003
