"""The explainer's two pieces of advice applied: the optimizer's variables made before the
first step, and the sequences padded to one length."""

import keras
import numpy as np

SOURCE = "https://github.com/tensorflow/tensorflow/issues/38742"
ADVICE = "pad the inputs to one length"
LENGTH = 8  # every sequence padded to this length

inputs = keras.Input([None])
summed = keras.ops.sum(inputs, axis=1, keepdims=True)
model = keras.Model(inputs, keras.layers.Dense(1)(summed))
model.compile(optimizer=keras.optimizers.Adam(), loss=keras.losses.MeanSquaredError())
model.build((None, LENGTH))
model.optimizer.build(model.trainable_variables)
for i in range(1, 8):
    padded = np.pad(np.ones([1, i]), [(0, 0), (0, LENGTH - i)])  # zeros add nothing to the sum
    model.train_on_batch(padded, np.ones([1]) * i)
