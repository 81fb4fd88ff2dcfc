"""A tf.function defined inside a method: every call of the method makes a new one."""

import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/YosefLab/epitome/issues/43"
SUMMARY = "9 out of the last 9 calls to run_predictions.<locals>.predict_step triggered retracing"
EXPECT = [("VariationalPeakModel.run_predictions.<locals>.predict_step", None, "object")]


class VariationalPeakModel:
    def __init__(self):
        self.kernel = tf.Variable(tf.ones([4, 1]))

    def run_predictions(self, batches):
        @tf.function
        def predict_step(x):  # hazard: TFL001
            return tf.sigmoid(x @ self.kernel)

        predict_step = watch(predict_step)
        return [predict_step(batch) for batch in batches]


model = VariationalPeakModel()
data = [tf.constant(np.random.rand(8, 4), tf.float32) for _ in range(2)]
for _ in range(4):  # one call per evaluation round, as the reporter's training loop did
    model.run_predictions(data)
