"""pix2pix logs with the epoch as step, passing the Python int to its train_step."""

import tensorflow as tf

SOURCE = "https://github.com/solaris33/deep-learning-tensorflow-book-code/issues/8"
SUMMARY = "train_step(input_image, target, epoch) is called with the epoch of a for loop"

generator = tf.keras.Sequential([tf.keras.layers.Conv2D(3, 3, padding="same")])
generator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)
summary_writer = tf.summary.create_file_writer("logs/fit")
train_dataset = tf.data.Dataset.from_tensor_slices(
    (tf.ones([4, 32, 32, 3]), tf.ones([4, 32, 32, 3]))
).batch(1)


@tf.function
def train_step(input_image, target, epoch):
    with tf.GradientTape() as tape:
        gen_output = generator(input_image, training=True)
        gen_l1_loss = tf.reduce_mean(tf.abs(target - gen_output))
    grads = tape.gradient(gen_l1_loss, generator.trainable_variables)
    generator_optimizer.apply_gradients(zip(grads, generator.trainable_variables))
    with summary_writer.as_default():
        tf.summary.scalar("gen_l1_loss", gen_l1_loss, step=epoch)


def fit(train_ds, epochs):
    for epoch in range(epochs):
        for n, (input_image, target) in train_ds.enumerate():
            train_step(input_image, target, epoch)  # hazard: TFL003


fit(train_dataset, 3)
