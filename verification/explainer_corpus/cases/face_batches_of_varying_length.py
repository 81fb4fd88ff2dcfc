"""predict_on_batch given batches of detected faces whose count varies per frame."""

import keras
import numpy as np

SOURCE = "https://github.com/ina-foss/inaFaceAnalyzer/issues/23"
SUMMARY = "5 out of the last 9 calls to predict_function retraced: batches of varying length"
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        "data[0][0]",
        "shape",
    )
]
WRAPPED = False

model = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Flatten(), keras.layers.Dense(2)])
for faces in (3, 1, 4, 2, 5, 1):  # faces found in each frame
    model.predict_on_batch(np.random.rand(faces, 16, 16, 3))  # hazard: TFL011
