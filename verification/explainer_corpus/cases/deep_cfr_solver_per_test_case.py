"""Deep CFR tests, one per game, each building its own solver: the regret-matching method
traces once per solver, which each test case needs. Expected, and said to be: nothing to
create once and reuse across test cases."""

import os
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/google-deepmind/open_spiel/issues/1208"
SUMMARY = "Deep CFR tests warn 5 out of the last 32 calls to _get_matched_regrets retraced"
# The report's log runs deep_cfr_tf2_test once per game (a parametrised test), each with a
# solver of its own; the same method of a new instance traces in each case.
EXPECT = [("DeepCFRSolver._get_matched_regrets", "self", "object")]

NUM_ACTIONS = 3


class DeepCFRSolver(tf.Module):
    def __init__(self, info_state_size):
        super().__init__(name="DeepCFRSolver")
        self._network = keras.Sequential(
            [keras.Input((info_state_size,)), keras.layers.Dense(NUM_ACTIONS)]
        )

    @watch
    @tf.function
    def _get_matched_regrets(self, info_state):
        advantages = tf.maximum(self._network(info_state[None])[0], 0)
        return advantages / (tf.reduce_sum(advantages) + 1e-9)


@pytest.mark.parametrize("info_state_size", [11, 30, 18])  # kuhn, leduc, and a third game
def test_matched_regrets_sum_to_one(info_state_size):
    solver = DeepCFRSolver(info_state_size)
    for _ in range(3):
        state = tf.constant(np.random.default_rng(0).normal(size=info_state_size), tf.float32)
        regrets = solver._get_matched_regrets(state)
        assert abs(float(tf.reduce_sum(regrets)) - 1) < 1e-3 or float(tf.reduce_sum(regrets)) == 0


if __name__ == "__main__":
    folder = os.path.dirname(os.path.abspath(__file__))
    arguments = [__file__, "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-c", os.devnull]
    sys.exit(pytest.main([*arguments, "--rootdir", folder]))
