"""predict_on_batch on a convolutional model whose input height is left free, called with
images of a different height each time. In wrapped mode the reader wraps
model.predict_function, made by make_predict_function()."""

import keras
import numpy as np
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/39178"
SUMMARY = "ResNet50(input_shape=(None, 224, 3)).predict_on_batch is far slower on flexible input"
EXPECT = [
    # Keras 3 makes its predict function with reduce_retracing: one retrace, then general;
    # predict_on_batch passes [(x,)], so the path is data[0][0]
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        "data[0][0]",
        "shape",
    )
]

inputs = keras.Input((None, 16, 3))  # the height is free, the width fixed, as in the report
features = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
model = keras.Model(inputs, keras.layers.GlobalAveragePooling2D()(features))
model.make_predict_function()
model.predict_function = watch(model.predict_function)  # what a reader wraps
for height in (16, 24, 20, 32, 28):
    model.predict_on_batch(np.random.randn(1, height, 16, 3))  # hazard: TFL011
