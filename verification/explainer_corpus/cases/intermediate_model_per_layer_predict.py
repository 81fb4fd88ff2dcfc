"""A new intermediate Keras model built for each layer on every profiling call, then predict."""

import keras
import numpy as np

SOURCE = "https://github.com/fastmachinelearning/hls4ml/issues/359"
SUMMARY = "11 out of the last 11 calls to predict_function retraced: a model made per layer"
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        None,
        "object",
    )  # every intermediate model has its own predict function
]
WRAPPED = False


def get_ymodel_keras(model, X):
    trace_output = {}
    for layer in model.layers:
        intermediate = keras.Model(inputs=model.inputs, outputs=layer.output)  # hazard: TFL002
        trace_output[layer.name] = intermediate.predict(X, verbose=0)
    return trace_output


inputs = keras.Input((6,))
hidden = keras.layers.Dense(8, activation="relu", name="fc1")(inputs)
outputs = keras.layers.Dense(2, activation="softmax", name="output")(hidden)
model = keras.Model(inputs, outputs)
X = np.random.rand(10, 6)
for _ in range(2):  # profiling runs more than once
    print({name: out.shape for name, out in get_ymodel_keras(model, X).items()})
