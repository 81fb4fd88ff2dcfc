"""A layer class and a model defined inside a loop, each model asked to predict once."""

import keras
import numpy as np

SOURCE = "https://github.com/tensorflow/tensorflow/issues/43555"
SUMMARY = "developing a Keras layer in Colab: every re-run of the cell warns of retracing"
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        None,
        "object",
    )
]
WRAPPED = False

for _ in range(4):  # each run of the notebook cell

    class MyLayer(keras.layers.Layer):
        def call(self, inputs, training=None):
            return inputs

    inputs = keras.Input((1,))
    model = keras.Model(inputs, MyLayer()(inputs))  # hazard: TFL002
    print(model.predict(np.array([[0.0], [1.0], [3.0]]), batch_size=1, verbose=0).ravel())
