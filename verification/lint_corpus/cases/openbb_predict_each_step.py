"""A stock forecaster predicts one step at a time, calling predict in a loop."""

import numpy as np
from tensorflow import keras

SOURCE = "https://github.com/OpenBB-finance/OpenBB/pull/189"
SUMMARY = "model.predict(x.reshape(1, n_inputs, 1)) in a loop warns that predict_function retraced"

n_inputs, n_days = 40, 5
model = keras.Sequential([keras.Input((n_inputs, 1)), keras.layers.LSTM(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
history = list(np.random.rand(200))
for day in range(n_days):
    window = np.array(history[-n_inputs:])
    yhat = model.predict(window.reshape(1, n_inputs, 1), verbose=0)  # hazard: TFL004
    history.append(float(yhat[0, 0]))
