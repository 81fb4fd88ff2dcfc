"""The fixed form: the epoch goes in as a tensor, so one trace serves every epoch."""

import tensorflow as tf

SOURCE = "https://github.com/microsoft/AirSim-Drone-Racing-VAE-Imitation/issues/10"
SUMMARY = "fixed form: train(images, labels, tf.constant(epoch))"

model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
optimizer = tf.keras.optimizers.Adam(1e-4)
train_ds = tf.data.Dataset.from_tensor_slices((tf.ones([64, 16]), tf.ones([64, 4]))).batch(16)


@tf.function
def train(images, labels, epoch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(images) - labels))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    if epoch % 10 == 0:
        tf.print("loss", loss)
    return loss


for epoch in range(20):
    for images, labels in train_ds:
        train(images, labels, tf.constant(epoch))
