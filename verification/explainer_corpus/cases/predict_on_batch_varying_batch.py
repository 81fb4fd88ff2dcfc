"""predict_on_batch called with a batch size that changes on every call."""

import keras
import numpy as np

SOURCE = "https://github.com/tensorflow/tensorflow/issues/34907"
SUMMARY = "predict_on_batch over batches of 1 to 299 rows warns that 5 of 5 calls retraced"
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        "data[0][0]",
        "shape",
    )
]  # Keras 3 relaxes the batch size: one retrace
WRAPPED = False

model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
for rows in range(1, 8):
    model.predict_on_batch(np.ones([rows, 1]))  # hazard: TFL011
