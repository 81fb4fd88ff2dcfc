"""A custom training loop test defines its step function inside the epoch function."""

import tensorflow as tf

SOURCE = "https://github.com/keras-team/tf-keras/issues/254"
SUMMARY = "train_epoch defines tf.function step_fn and runs it; train_epoch runs every epoch"

strategy = tf.distribute.get_strategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.1)
dataset = tf.data.Dataset.from_tensor_slices((tf.ones([32, 4]), tf.ones([32, 1]))).batch(8)


def train_epoch(data):
    @tf.function
    def step_fn(inputs):  # hazard: TFL001
        x, y = inputs
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for batch in data:
        strategy.run(step_fn, args=(batch,))


for epoch in range(3):
    train_epoch(dataset)
