"""A Deep CFR solver's regret-matching method given the player as a Python int, which picks
that player's advantage network from a list: one trace per player, which is expected (a
tensor cannot index a Python list)."""

import keras
import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/google-deepmind/open_spiel/issues/1208"
SUMMARY = "Deep CFR tests warn 5 out of the last 32 calls to _get_matched_regrets retraced"
# the report's log runs a test per game, each with its own solver; one solver is kept here
EXPECT = [("DeepCFRSolver._get_matched_regrets", "player", "python-value")]

NUM_PLAYERS, NUM_ACTIONS, INFO_STATE_SIZE = 2, 3, 11


class DeepCFRSolver(tf.Module):
    def __init__(self):
        super().__init__(name="DeepCFRSolver")
        self._num_actions = NUM_ACTIONS
        self._adv_networks = [
            keras.Sequential([keras.Input((INFO_STATE_SIZE,)), keras.layers.Dense(NUM_ACTIONS)])
            for _ in range(NUM_PLAYERS)
        ]

    @watch
    @tf.function
    def _get_matched_regrets(self, info_state, legal_actions_mask, player):
        advs = self._adv_networks[player](tf.expand_dims(info_state, axis=0), training=False)[0]
        advantages = tf.maximum(advs, 0)
        summed_regret = tf.reduce_sum(advantages)
        if summed_regret > 0:
            matched_regrets = advantages / summed_regret
        else:
            best = tf.argmax(tf.where(legal_actions_mask == 1, advs, -10e20))
            matched_regrets = tf.one_hot(best, self._num_actions)
        return advantages, matched_regrets

    def sample_action_from_advantage(self, info_state, legal_actions_mask, player):
        info_state = tf.constant(info_state, dtype=tf.float32)
        mask = tf.constant(legal_actions_mask, dtype=tf.float32)
        advantages, matched = self._get_matched_regrets(info_state, mask, player)  # hazard: TFL003
        return advantages.numpy(), matched.numpy()


solver = DeepCFRSolver()
rng = np.random.default_rng(0)
for _ in range(4):  # tree traversals: each player's turns ask that player's network
    for player in range(NUM_PLAYERS):
        info_state = rng.normal(size=INFO_STATE_SIZE)
        solver.sample_action_from_advantage(info_state, np.ones(NUM_ACTIONS), player)
