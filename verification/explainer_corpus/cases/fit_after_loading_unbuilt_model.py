"""A compiled but unbuilt model saved, loaded and fitted: its variables appear at the first step."""

import os
import tempfile

import keras
import numpy as np

SOURCE = "https://github.com/keras-team/keras/issues/22618"
SUMMARY = "loading a model saved compiled but unbuilt and fitting it warns of retracing"
EXPECT = [
    # the first training step creates the layers' and the optimizer's variables, so
    # TensorFlow traces it once more without variable creation; later fits reuse it
    ("TensorFlowTrainer._make_function.<locals>.one_step_on_data", None, "context")
]
WRAPPED = False

model = keras.Sequential([keras.layers.Dense(8), keras.layers.Dense(4)])
model.compile(optimizer="adam", loss="mse")
path = os.path.join(tempfile.mkdtemp(), "unbuilt_compiled.keras")
model.save(path)

loaded = keras.models.load_model(path)
x = np.random.randn(2, 16)
y = np.random.randn(2, 4)
for _ in range(3):  # "retracing may repeat across multiple training calls"
    loaded.fit(x, y, epochs=1, verbose=0)
