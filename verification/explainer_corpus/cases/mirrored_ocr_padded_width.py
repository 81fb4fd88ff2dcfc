"""A MirroredStrategy train step fed padded batches whose image width differs per batch."""

import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2
)

from corpus_watch import watch  # noqa: E402

SOURCE = "https://github.com/tensorflow/tensorflow/issues/33320"
SUMMARY = (
    "a CRNN OCR distributed_train_step retraces (7 out of the last 7 calls) on tfrecord batches"
)
EXPECT = [("distributed_train_step", "dist_inputs[0][0]", "shape")]  # the rest: its others

NORM_H = 8
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    kernel = tf.Variable(tf.random.normal([NORM_H * 3, 10]))
    optimizer = tf.keras.optimizers.SGD(0.01)
    optimizer.build([kernel])


def text_lines():  # each line image is as wide as its text is long
    for width in (24, 24, 40, 40, 56, 56, 72, 72):
        yield tf.random.uniform([NORM_H, width, 3]), tf.ones([width // 8], tf.int32)


dataset = tf.data.Dataset.from_generator(
    text_lines,
    output_signature=(
        tf.TensorSpec([NORM_H, None, 3], tf.float32),
        tf.TensorSpec([None], tf.int32),
    ),
).padded_batch(2, padded_shapes=([NORM_H, None, 3], [None]))
dist_dataset = strategy.experimental_distribute_dataset(dataset)


def train_step(inputs):
    images, labels = inputs
    with tf.GradientTape() as tape:
        columns = tf.reshape(
            tf.transpose(images, [0, 2, 1, 3]), [tf.shape(images)[0], -1, NORM_H * 3]
        )
        logits = columns @ kernel
        loss = tf.reduce_mean(logits) + 0.0 * tf.cast(tf.reduce_sum(labels), tf.float32)
    optimizer.apply_gradients([(tape.gradient(loss, kernel), kernel)])
    return loss


@tf.function
def distributed_train_step(dist_inputs):
    per_replica_losses = strategy.run(train_step, args=(dist_inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


distributed_train_step = watch(distributed_train_step)
for dist_inputs in dist_dataset:
    distributed_train_step(dist_inputs)
