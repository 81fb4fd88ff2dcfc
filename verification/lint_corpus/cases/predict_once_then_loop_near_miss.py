"""A near miss: predict runs once on every row; the loop is over its results."""

import numpy as np
from tensorflow import keras

SOURCE = "https://github.com/tensorflow/tensorflow/issues/38561"
SUMMARY = "near miss after the advice against predict per example: one predict over all rows"

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])
rows = np.random.rand(500, 8).astype("float32")
labels = [int(np.argmax(scores)) for scores in model.predict(rows, batch_size=128, verbose=0)]
