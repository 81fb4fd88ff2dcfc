"""A distributed iterator passed to the train step, next() inside it, a new iterator per epoch."""

import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2
)

from corpus_watch import watch  # noqa: E402

SOURCE = "https://github.com/tensorflow/tensorflow/issues/29911"
SUMMARY = (
    "input_signature crashes on PerReplica inputs; the reply: pass iter(dataset), next() inside"
)
# Not a retrace: the iterator's spec carries the dataset's element_spec (lengths None), so
# batches of new lengths, and a new iterator each epoch, reuse the one trace.
EXPECT = []


def sequences():
    for length in (5, 9, 7, 12, 6, 8, 11, 4):
        yield tf.random.normal([length, 3]), tf.ones([length], tf.int32)


strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    kernel = tf.Variable(tf.random.normal([3, 1]))
spec = (tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.int32))
dataset = tf.data.Dataset.from_generator(sequences, output_signature=spec).padded_batch(2)
dist_dataset = strategy.experimental_distribute_dataset(dataset)


@tf.function
def train_step(iterator):
    def step_fn(inputs):
        features, mask = inputs
        scores = tf.squeeze(features @ kernel, -1) * tf.cast(mask, tf.float32)
        loss = tf.reduce_mean(tf.square(scores))
        kernel.assign_sub(0.01 * tf.ones_like(kernel) * loss)
        return loss

    per_replica = strategy.run(step_fn, args=(next(iterator),))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


train_step = watch(train_step)
for epoch in range(2):
    iterator = iter(dist_dataset)
    for step in range(4):
        train_step(iterator)
