"""The fix the explainer prints: the length dimension None in input_signature (for x, and for
the labels that change with it)."""

import keras
import numpy as np
import tensorflow as tf

ADVICE = "give `x` the spec tf.TensorSpec(shape=[1, None, 6], dtype=tf.float32) in input_signature"

input_dims = 6
out_varnames = ["tag_a", "tag_b"]
inp = keras.Input(shape=(None, input_dims))
lay = keras.layers.Conv1D(filters=8, kernel_size=5, padding="same", activation="relu")(inp)
outlayers = [
    keras.layers.Conv1D(filters=3, kernel_size=5, activation="softmax", padding="same", name=i)(lay)
    for i in out_varnames
]
model = keras.Model(inp, outlayers)
loss_object = keras.losses.SparseCategoricalCrossentropy()
optimizer = keras.optimizers.Adam()
optimizer.build(model.trainable_variables)


@tf.function(
    input_signature=[
        tf.TensorSpec(shape=[1, None, 6], dtype=tf.float32),
        [tf.TensorSpec(shape=[1, None], dtype=tf.int64)] * len(out_varnames),
    ]
)
def train(x, y):
    with tf.GradientTape() as g:
        pred = model(x)
        loss = sum(loss_object(labels, out) for labels, out in zip(y, pred))
    gradients = g.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


for length in (100, 250, 80, 400, 120):  # documents of 100 to 8000 tokens
    x = np.random.rand(1, length, input_dims).astype("float32")
    y = [np.random.randint(0, 3, (1, length)) for _ in out_varnames]
    train(x, y)
