"""The explainer's advice applied: the sequences padded to one length."""

import keras
import numpy as np

ADVICE = "pad the inputs to one length"
LENGTH = 8  # every sequence padded to this length

inputs = keras.Input([None])
summed = keras.ops.sum(inputs, axis=1, keepdims=True)
model = keras.Model(inputs, keras.layers.Dense(1)(summed))
model.compile(optimizer="adam", loss="mse")
for length in range(1, 8):
    padded = np.pad(np.ones([1, length]), [(0, 0), (0, LENGTH - length)])  # zeros add nothing
    model.test_on_batch(padded, np.ones([1]) * length)
