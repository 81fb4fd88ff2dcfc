"""The fixed form: the model is called in a tf.function with an input signature."""

import numpy as np
import tensorflow as tf

SOURCE = "https://github.com/lichess-org/kaladin/issues/2"
SUMMARY = "fixed form: one tf.function with an input_signature serves every user"

model = tf.keras.models.load_model("kaladin.keras")


@tf.function(input_signature=[tf.TensorSpec([None, 64], tf.float32)])
def score_of(features):
    return model(features, training=False)


def features_of(user):
    return np.random.rand(1, 64).astype("float32")


for user in ["alice", "bob", "carol"]:
    print(user, float(score_of(features_of(user))[0, 0]))
