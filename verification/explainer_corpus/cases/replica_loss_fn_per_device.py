"""A loss tf.function called inside a MirroredStrategy step on two replicas."""

import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2
)

from corpus_watch import watch  # noqa: E402

SOURCE = "https://github.com/tensorflow/tensorflow/issues/34025"
SUMMARY = "loss_fn warns of retracing with multiple GPUs though it gets tensors of the same shape"
# loss_fn is traced once per replica (experimental_get_tracing_count() is 2): each replica
# calls it under its own device, a different calling context, with the same arguments.
EXPECT = [("loss_fn", None, "context")]

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    kernel = tf.Variable(tf.random.normal([4, 1]))


@tf.function
def loss_fn(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


loss_fn = watch(loss_fn)
dataset = tf.data.Dataset.from_tensor_slices((tf.random.normal([32, 4]), tf.zeros([32, 1])))
dist_dataset = strategy.experimental_distribute_dataset(dataset.batch(8))


@tf.function
def train_step(inputs):
    def step_fn(inputs):
        x, y = inputs
        return loss_fn(y, x @ kernel)

    per_replica = strategy.run(step_fn, args=(inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


for epoch in range(2):
    for inputs in dist_dataset:
        train_step(inputs)
