"""A metric's tf.function update_state called by each replica of a MirroredStrategy step."""

import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2
)

from corpus_watch import watch  # noqa: E402

SOURCE = "https://github.com/larq/larq/issues/388"
SUMMARY = "FlipRatio.update_state warns 5 out of the last 5 calls retraced when training on 2 GPUs"
# One trace per replica (experimental_get_tracing_count() is 2): the replicas call it with
# the same arguments, each under its own device.
EXPECT = [("FlipRatio.update_state", None, "context")]


class FlipRatio(tf.Module):
    """The fraction of binary weights whose sign flipped since the last update."""

    def __init__(self, shape):
        on_read = dict(
            synchronization=tf.VariableSynchronization.ON_READ,
            aggregation=tf.VariableAggregation.SUM,
            trainable=False,
        )
        self._previous = tf.Variable(tf.zeros(shape), **on_read)
        self.total = tf.Variable(0.0, **on_read)
        self.count = tf.Variable(0.0, **on_read)

    @tf.function
    def update_state(self, values):
        signs = tf.sign(values)
        flips = tf.reduce_mean(tf.cast(tf.not_equal(signs, self._previous), tf.float32))
        self._previous.assign(signs)
        self.total.assign_add(flips)
        self.count.assign_add(1.0)


strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    kernel = tf.Variable(tf.random.normal([4, 2]))
    flip_ratio = FlipRatio(kernel.shape)
flip_ratio.update_state = watch(flip_ratio.update_state)
dataset = tf.data.Dataset.from_tensor_slices(tf.random.normal([32, 4])).batch(8)


@tf.function
def train_step(x):
    def step_fn(x):
        binary_kernel = tf.sign(kernel)  # what the quantizer hands the layer
        flip_ratio.update_state(kernel)
        loss = tf.reduce_mean(tf.square(x @ binary_kernel))
        kernel.assign_sub(0.01 * tf.random.normal(kernel.shape))
        return loss

    return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(step_fn, args=(x,)), None)


for x in strategy.experimental_distribute_dataset(dataset):
    train_step(x)
