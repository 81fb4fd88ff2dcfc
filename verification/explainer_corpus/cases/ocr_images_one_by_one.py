"""A fully convolutional model asked to predict on images of different sizes, one by one."""

import keras
import numpy as np

SOURCE = "https://github.com/faustomorales/keras-ocr/issues/63"
SUMMARY = "recognising images one by one (for latency) warns of unnecessary retracing"
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        "data[0]",  # predict() passes [batch]
        "shape",
    )
]
WRAPPED = False

inputs = keras.Input((None, None, 3))
features = keras.layers.Conv2D(4, 3, padding="same")(inputs)
model = keras.Model(inputs, keras.layers.GlobalAveragePooling2D()(features))
for height, width in ((32, 48), (40, 40), (24, 64), (32, 32)):
    model.predict(np.random.rand(1, height, width, 3), verbose=0)  # hazard: TFL004, TFL011
