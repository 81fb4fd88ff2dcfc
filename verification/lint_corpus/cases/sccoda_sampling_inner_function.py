"""MCMC sampling defines its tf.function inside the sampling method, run once per chain."""

import tensorflow as tf

SOURCE = "https://github.com/theislab/scCODA/issues/13"
SUMMARY = "CompositionalModel.sampling.<locals>.sample_mcmc warns of retracing when running chains"


class CompositionalModel:
    def __init__(self, counts):
        self.counts = tf.constant(counts, tf.float32)

    def sampling(self, num_results, step_size):
        @tf.function
        def sample_mcmc(num_results, current_state):  # hazard: TFL001
            return current_state + tf.random.normal([num_results, 3]) * step_size

        return sample_mcmc(tf.constant(num_results), tf.zeros([3]))


model = CompositionalModel([[10.0, 20.0, 30.0]])
chains = []
for chain in range(4):
    chains.append(model.sampling(num_results=100, step_size=0.01))
