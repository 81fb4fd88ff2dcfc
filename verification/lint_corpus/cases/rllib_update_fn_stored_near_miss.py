"""A near miss: the trainer wraps its update function once per module and keeps it."""

import tensorflow as tf

SOURCE = "https://github.com/ray-project/ray/pull/31543"
SUMMARY = "near miss: tf.function(self._do_update_fn) made in add_module and kept on self"


class TfRLTrainer:
    def __init__(self, enable_tf_function=True):
        self._enable_tf_function = enable_tf_function
        self.weights = tf.Variable(tf.zeros([4]))
        self._update_fn = self._do_update_fn

    def _do_update_fn(self, batch):
        self.weights.assign_add(tf.reduce_mean(batch, axis=0))
        return tf.reduce_sum(self.weights)

    def add_module(self, name):
        if self._enable_tf_function:
            self._update_fn = tf.function(self._do_update_fn)

    def update(self, batch):
        return self._update_fn(batch)


trainer = TfRLTrainer()
trainer.add_module("default_policy")
for step in range(10):
    trainer.update(tf.ones([8, 4]))
