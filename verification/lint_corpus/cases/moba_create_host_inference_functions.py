"""A learner creates one host per actor, each with its own inference tf.functions."""

import tensorflow as tf

SOURCE = "https://github.com/kimbring2/MOBA_RL/issues/5"
SUMMARY = "create_host, called in a for loop, defines and calls inference tf.functions"

agent = tf.keras.Sequential([tf.keras.layers.Dense(4)])


def create_host(observation):
    @tf.function
    def inference(env_output):  # hazard: TFL001
        return agent(env_output)

    @tf.function
    def agent_inference(env_output):  # hazard: TFL001
        return tf.argmax(inference(env_output), axis=-1)

    return agent_inference(observation)


for actor in range(4):
    create_host(tf.random.normal([1, 8]))
