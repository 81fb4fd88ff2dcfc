"""A model's distributed train step (a method) given batches of varying sequence length."""

import numpy as np
import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2
)

from corpus_watch import watch  # noqa: E402

SOURCE = "https://github.com/tensorflow/tensorflow/issues/32232"
SUMMARY = "distributed training is not working when _distributed_train_step has an input_signature"
EXPECT = [("Transformer._distributed_train_step", "inputs[0]", "shape")]  # targets: its others


class Transformer(tf.Module):
    def __init__(self, strategy, vocab=40, width=8, batch_size=4):
        self.mirrored_strategy = strategy
        self.batch_size = batch_size
        with strategy.scope():
            self.embedding = tf.Variable(tf.random.normal([vocab, width]))
            self.projection = tf.Variable(tf.random.normal([width, vocab]))
            self.optimizer = tf.keras.optimizers.Adam(1e-3)
            self.optimizer.build(self.trainable_variables)

    def get_loss(self, tar, logits):
        return tf.nn.sparse_softmax_cross_entropy_with_logits(tar, logits)

    @tf.function
    def _distributed_train_step(self, inputs, targets):
        def step_fn(inp, tar):
            with tf.GradientTape() as tape:
                logits = tf.gather(self.embedding, inp) @ self.projection
                cross_entropy = self.get_loss(tar, logits)
                loss = tf.reduce_sum(cross_entropy) * (1.0 / self.batch_size)
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            return cross_entropy

        per_example_losses = self.mirrored_strategy.run(step_fn, args=(inputs, targets))
        return self.mirrored_strategy.reduce(tf.distribute.ReduceOp.SUM, per_example_losses, axis=0)


def sentences():
    for length in (9, 9, 9, 9, 14, 14, 14, 14, 6, 6, 6, 6):
        tokens = np.random.randint(1, 40, size=length + 1)
        yield tokens[:-1], tokens[1:]


strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
model = Transformer(strategy)
spec = tf.TensorSpec([None], tf.int64)
dataset = tf.data.Dataset.from_generator(sentences, output_signature=(spec, spec))
dist_dataset = strategy.experimental_distribute_dataset(dataset.padded_batch(4))
model._distributed_train_step = watch(model._distributed_train_step)
for inputs, targets in dist_dataset:
    model._distributed_train_step(inputs, targets)
