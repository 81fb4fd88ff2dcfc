"""A saved model loaded again inside the prediction function, for every batch of new data."""

import os
import tempfile

import keras
import numpy as np

SOURCE = "https://github.com/tensorflow/tensorflow/issues/43501"
SUMMARY = "prediction() loads the model and calls predict for each new data: predict retraces"
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        None,
        "object",
    )  # each loaded model makes its own predict function
]
WRAPPED = False

MODEL_PATH = os.path.join(tempfile.mkdtemp(), "model.keras")
keras.Sequential([keras.Input((5,)), keras.layers.Dense(3), keras.layers.Dense(1)]).save(MODEL_PATH)


def prediction(cosine_s):
    new_model = keras.models.load_model(MODEL_PATH)  # hazard: TFL002
    return new_model.predict(cosine_s, verbose=0)


for _ in range(4):  # the reporter calls it every time new data arrives
    print(prediction(np.random.rand(2, 5)))
