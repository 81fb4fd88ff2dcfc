"""model.predict on sequences of different lengths, one at a time."""

import keras
import numpy as np

SOURCE = "https://github.com/tensorflow/tensorflow/issues/38561"
SUMMARY = "unwanted retracing when predicting variable-length inputs one by one"
# Keras 3 makes its predict function with reduce_retracing: one retrace, then general;
# predict() passes [batch], so the path is data[0]
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        "data[0]",  # predict() passes [batch]
        "shape",
    )
]
WRAPPED = False

inputs = keras.Input((None,))
model = keras.Model(inputs, keras.ops.sum(inputs, axis=1, keepdims=True))
for length in (5, 9, 3, 12, 7):
    model.predict(np.ones([1, length]), verbose=0)  # hazard: TFL004, TFL011
