"""OpenSpiel's RCFR evaluates every model through one module-level tf.function that takes
the model's Keras layers as a list: each model's layers are new objects, so each model
traces again, whatever the number of its layers."""

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/google-deepmind/open_spiel/issues/1207"
SUMMARY = "RCFR warns 6 out of the last 6 calls to feedforward_evaluate triggered retracing"
# feedforward_evaluate(layers, x, ...) in open_spiel/python/algorithms/rcfr.py; the
# report's tests build models of several depths. Trace 3 (a second model with 3 layers) is
# explained against trace 2 (3 layers too): new objects, not a new length.
EXPECT = [
    ("feedforward_evaluate", "layers", "structure"),
    ("feedforward_evaluate", "layers[0]", "object"),
]

NUM_FEATURES = 5


@watch
@tf.function
def feedforward_evaluate(layers, x, use_skip_connections=False, hidden_are_factored=False):
    i = 0
    while i < len(layers) - 1:
        y = layers[i](x)
        i += 1
        if hidden_are_factored:
            y = layers[i](y)
            i += 1
        if use_skip_connections:
            y = x + y
        x = y
    return layers[-1](x)


class DeepRcfrModel:
    def __init__(self, num_hidden_units, num_hidden_layers=1):
        self.layers = [
            keras.layers.Dense(num_hidden_units, activation="relu")
            for _ in range(num_hidden_layers)
        ]
        self.layers.append(keras.layers.Dense(1))
        x = tf.zeros([1, NUM_FEATURES])  # build the variables by a call, as RCFR does
        for layer in self.layers:
            x = layer(x)

    def __call__(self, x):
        return feedforward_evaluate(layers=self.layers, x=x)


features = tf.random.normal([6, NUM_FEATURES])
for hidden_layers in (1, 2, 2):  # the tests' models: one of one hidden layer, two of two
    model = DeepRcfrModel(num_hidden_units=8, num_hidden_layers=hidden_layers)
    for _ in range(3):  # each model is evaluated many times: traced once per model
        model(features)
