"""The fix the explainer prints: the model loaded once, outside the prediction function."""

import os
import tempfile

import keras
import numpy as np

ADVICE = "create that object once, outside the loop or request handler, and reuse it"

MODEL_PATH = os.path.join(tempfile.mkdtemp(), "model.keras")
keras.Sequential([keras.Input((5,)), keras.layers.Dense(3), keras.layers.Dense(1)]).save(MODEL_PATH)
new_model = keras.models.load_model(MODEL_PATH)


def prediction(cosine_s):
    return new_model.predict(cosine_s, verbose=0)  # hazard: TFL004


for _ in range(4):  # the reporter calls it every time new data arrives
    print(prediction(np.random.rand(2, 5)))
