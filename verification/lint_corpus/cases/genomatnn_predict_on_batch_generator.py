"""Predicting batches from a generator whose last batch is smaller: shapes from the data."""

import numpy as np
from tensorflow import keras

SOURCE = "https://github.com/grahamgower/genomatnn/issues/13"
SUMMARY = "predict_on_batch warns of retracing as the generator yields batches of varying size"

model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(1)])


def batches(data, batch_size):
    for start in range(0, len(data), batch_size):
        yield data[start : start + batch_size]


data = np.random.rand(100, 16).astype("float32")
predictions = [model.predict_on_batch(batch) for batch in batches(data, 32)]
