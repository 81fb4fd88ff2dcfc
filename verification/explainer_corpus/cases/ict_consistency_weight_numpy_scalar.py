"""A ramp-up loss weight that is a NumPy scalar (a tensor to tf.function) until it saturates
at a Python float: one retrace, not one per epoch."""

import keras
import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/ryancheunggit/tensorflow2_model_zoo/issues/13"
SUMMARY = "a static checker warns train_step retraces every epoch as Python weight w changes"
# w = min(W_MAX, 50 / (1 + np.exp(...))) is an np.float64 (traced as a float64 tensor) while
# it ramps up, then the Python float W_MAX: one retrace, when its kind changes
EXPECT = [("train.<locals>.train_step", "w", "python-value")]

NUM_EPOCHS, W_MAX = 8, 30.0


def train():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    optimizer = keras.optimizers.Adam()
    optimizer.build(model.trainable_variables)
    data_criterion = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    consistency_criterion = keras.losses.MeanSquaredError()

    @tf.function
    def train_step(x_batch, y_batch, u_batch, w):
        with tf.GradientTape() as tape:
            data_loss = data_criterion(y_batch, model(x_batch, training=True))
            consistency = consistency_criterion(tf.zeros([8, 3]), model(u_batch))
            # the reporter's `w * consistency`: a float64 tensor w needs the cast in TF 2.21
            loss = data_loss + tf.cast(w, tf.float32) * consistency
        grad = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grad, model.trainable_variables))
        return loss

    train_step = watch(train_step)
    x_train = np.random.rand(16, 4).astype("float32")
    y_train = np.random.randint(0, 3, 16)
    for epoch in range(NUM_EPOCHS):
        w = min(W_MAX, 50 / (1 + np.exp(NUM_EPOCHS / 4 - epoch)))
        for start in range(0, 16, 8):
            u_batch = x_train[np.random.choice(16, 8)]
            train_step(
                x_train[start : start + 8],
                y_train[start : start + 8],
                u_batch,
                w,  # hazard: TFL003
            )


train()
