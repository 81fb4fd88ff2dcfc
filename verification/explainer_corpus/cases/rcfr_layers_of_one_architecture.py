"""RCFR's models for both players, of one architecture, each evaluated through one
module-level tf.function given the model's Keras layers: the second model's layers are
other objects, so it traces again."""

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/google-deepmind/open_spiel/issues/1207"
SUMMARY = "RCFR warns 6 out of the last 6 calls to feedforward_evaluate triggered retracing"
# feedforward_evaluate(layers, x) in open_spiel/python/algorithms/rcfr.py; one model per
# player (RcfrSolver(game, models)), both with the same layers
EXPECT = [("feedforward_evaluate", "layers[0]", "object")]

NUM_FEATURES, NUM_PLAYERS = 5, 2


@watch
@tf.function
def feedforward_evaluate(layers, x):
    for layer in layers[:-1]:
        x = layer(x)
    return layers[-1](x)


def deep_rcfr_layers():
    layers = [keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
    x = tf.zeros([1, NUM_FEATURES])
    for layer in layers:
        x = layer(x)
    return layers


models = [deep_rcfr_layers() for _ in range(NUM_PLAYERS)]
features = tf.random.normal([6, NUM_FEATURES])
for iteration in range(3):  # evaluate_and_update_policy: each player's sequence weights
    for layers in models:
        feedforward_evaluate(layers, features)
