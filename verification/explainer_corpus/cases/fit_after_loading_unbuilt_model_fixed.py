"""The fix the explainer prints: the variables created outside the train function."""

import os
import tempfile

import keras
import numpy as np

ADVICE = "create them before the first step: model.build(input_shape)"

model = keras.Sequential([keras.layers.Dense(8), keras.layers.Dense(4)])
model.compile(optimizer="adam", loss="mse")
path = os.path.join(tempfile.mkdtemp(), "unbuilt_compiled.keras")
model.save(path)

loaded = keras.models.load_model(path)
x = np.random.randn(2, 16)
y = np.random.randn(2, 4)
loaded.build((None, 16))  # the layers' variables
loaded.optimizer.build(loaded.trainable_variables)  # and the optimizer's
for _ in range(3):  # "retracing may repeat across multiple training calls"
    loaded.fit(x, y, epochs=1, verbose=0)
