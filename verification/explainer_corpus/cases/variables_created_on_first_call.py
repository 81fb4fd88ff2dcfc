"""Variables made lazily by a helper on the first call: the train step traces twice."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/47792"
SUMMARY = "train_network() traces twice and network() once with lazily created variables"
EXPECT = [("train_network", None, "context")]

params = {}


def get_param(name, shape):
    if name not in params:
        params[name] = tf.Variable(tf.random.normal(shape), name=name)
    return params[name]


def network(x):
    return tf.nn.relu(x @ get_param("w", [4, 3]) + get_param("b", [3]))


optimizer = tf.keras.optimizers.Adam(0.01)


@tf.function
def train_network(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(network(x) - y))
    variables = list(params.values())
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


train_network = watch(train_network)
x, y = tf.random.normal([8, 4]), tf.random.normal([8, 3])
for _ in range(5):
    train_network(x, y)
