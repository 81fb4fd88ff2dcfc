"""A Bayesian optimisation loop that builds its acquisition function afresh at every step, as
a closure over the best value observed so far (eta), and compiles it with tf.function: a
new tf.function per step, each tracing. Made once as it is, it would keep the first eta."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/secondmind-labs/trieste/issues/178"
SUMMARY = "TensorFlow warns that acquisition functions are retraced on every optimisation step"
# Fixed in trieste by updating the functions instead of generating them afresh each step,
# with the changing values held in tf.Variables (secondmind-labs/trieste#271).
EXPECT = [("expected_improvement.<locals>.acquisition", None, "object")]

candidates = tf.linspace(-2.0, 2.0, 41)[:, None]


def predict_mean(x):  # the model's posterior mean, trained in place between steps
    return tf.reduce_sum((x - 0.5) ** 2, axis=-1)


def expected_improvement(eta):
    def acquisition(x):
        return tf.maximum(eta - predict_mean(x), 0.0)

    return acquisition


observations = tf.constant([3.0])
for step in range(4):
    eta = tf.reduce_min(observations)
    acquisition = watch(tf.function(expected_improvement(eta)))
    best = tf.argmax(acquisition(candidates))
    query = candidates[best]
    observations = tf.concat([observations, predict_mean(query[None]) + 1.0 / (step + 2)], 0)
    print(step, float(eta), float(query[0]))
