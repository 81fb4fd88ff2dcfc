"""The fix the explainer prints: the variables created outside the function."""

import tensorflow as tf

ADVICE = "create them outside the function to avoid it"

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


x, y = tf.random.normal([8, 4]), tf.random.normal([8, 3])
network(x)  # creates the network's variables, outside the function
optimizer.build(list(params.values()))  # and the optimizer's
for _ in range(5):
    train_network(x, y)
