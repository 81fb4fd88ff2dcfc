"""The fix the explainer prints: pass the models' variables, matched by dtype and shape,
and compute with them in the function; every model of the architecture shares a trace."""

import keras
import numpy as np
import tensorflow as tf

ADVICE = "pass their variables instead (e.g. [item.variables for item in layers])"

NUM_FEATURES, NUM_PLAYERS = 5, 2


@tf.function
def feedforward_evaluate(weights, x):
    for kernel, bias in weights[:-1]:
        x = tf.nn.relu(tf.matmul(x, kernel) + bias)
    kernel, bias = weights[-1]
    return tf.matmul(x, kernel) + bias


def deep_rcfr_layers():
    layers = [keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
    x = tf.zeros([1, NUM_FEATURES])
    for layer in layers:
        x = layer(x)
    return layers


models = [deep_rcfr_layers() for _ in range(NUM_PLAYERS)]
features = tf.random.normal([6, NUM_FEATURES])
for iteration in range(3):
    for layers in models:
        result = feedforward_evaluate([item.variables for item in layers], features)
        expected = layers[1](layers[0](features))
        np.testing.assert_allclose(result, expected, rtol=1e-5)
