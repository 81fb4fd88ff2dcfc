"""A cheat detector predicts once per user in a loop: the warning is logged for each user."""

import numpy as np
import tensorflow as tf

SOURCE = "https://github.com/lichess-org/kaladin/issues/2"
SUMMARY = "for each user the model's predict logs '11 out of the last 11 calls ... retracing'"

model = tf.keras.models.load_model("kaladin.keras")


def features_of(user):
    return np.random.rand(1, 64).astype("float32")


users = ["alice", "bob", "carol"]
for user in users:
    score = model.predict(features_of(user), verbose=0)  # hazard: TFL004
    print(user, float(score[0, 0]))
