"""An agent's action tf.function given a Python bool and NumPy states of batch 1 or many."""

import keras
import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/keiohta/tf2rl/issues/99"
SUMMARY = "unit tests warn 6 out of the last 11 calls to VPG._get_action_body retraced"
EXPECT = [
    ("VPG._get_action_logp_v_body", "state", "shape"),  # one state, then a batch
    ("VPG._get_action_logp_v_body", "test", "python-value"),  # test=False, then True
]


class VPG(tf.Module):
    def __init__(self, state_shape, action_dim):
        super().__init__(name="VPG")
        self.actor = keras.Sequential([keras.Input(state_shape), keras.layers.Dense(action_dim)])
        self.critic = keras.Sequential([keras.Input(state_shape), keras.layers.Dense(1)])
        self._state_ndim = len(state_shape)

    def get_action_and_val(self, state, test=False):
        is_single_input = state.ndim == self._state_ndim
        if is_single_input:
            state = np.expand_dims(state, axis=0).astype(np.float32)
        action, logp, v = self._get_action_logp_v_body(state, test)
        if is_single_input:
            return action.numpy()[0], logp.numpy()[0], v.numpy()[0]
        return action.numpy(), logp.numpy(), v.numpy()

    @watch
    @tf.function
    def _get_action_logp_v_body(self, state, test):
        logits = self.actor(state)
        action = tf.argmax(logits, axis=1) if test else tf.random.categorical(logits, 1)[:, 0]
        logp = tf.reduce_max(tf.nn.log_softmax(logits), axis=1)
        return action, logp, self.critic(state)[:, 0]


policy = VPG(state_shape=(4,), action_dim=2)
state = np.random.rand(4).astype(np.float32)
states = np.random.rand(16, 4).astype(np.float32)
for test in (False, True):  # as the unit tests call it
    policy.get_action_and_val(state, test=test)
    policy.get_action_and_val(states, test=test)
