"""A SQuAD train step given (features dict, labels dict) padded to each batch's longest."""

import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/models/issues/7825"
SUMMARY = "with a fixed batch size but dynamic seq len per batch, the SQuAD train step retraces"
EXPECT = [("train_step", "inputs[0]['input_ids']", "shape")]  # mask, segments: its others

embedding = tf.Variable(tf.random.normal([100, 8]))
span = tf.Variable(tf.random.normal([8, 2]))
optimizer = tf.keras.optimizers.SGD(0.01)
optimizer.build([embedding, span])


def examples():
    for length in (20, 31, 12, 40, 27, 18, 35, 22):
        ids = np.random.randint(1, 100, size=length)
        features = {"input_ids": ids, "input_mask": np.ones(length, np.int64)}
        features["segment_ids"] = np.zeros(length, np.int64)
        labels = {"start_position": [1], "end_position": [length - 2]}
        yield features, labels


feature_spec = {key: tf.TensorSpec([None], tf.int64) for key in ("input_ids", "input_mask")}
feature_spec["segment_ids"] = tf.TensorSpec([None], tf.int64)
label_spec = {key: tf.TensorSpec([1], tf.int64) for key in ("start_position", "end_position")}
dataset = tf.data.Dataset.from_generator(examples, output_signature=(feature_spec, label_spec))
dataset = dataset.padded_batch(2, drop_remainder=True)  # padded to the batch's longest


@tf.function
def train_step(inputs):
    features, labels = inputs
    with tf.GradientTape() as tape:
        hidden = tf.gather(embedding, features["input_ids"])
        hidden *= tf.cast(features["input_mask"], tf.float32)[..., None]
        start_logits, end_logits = tf.unstack(hidden @ span, axis=-1)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels["start_position"][:, 0], start_logits
            )
            + tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels["end_position"][:, 0], end_logits
            )
        )
    variables = [embedding, span]
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


train_step = watch(train_step)
for inputs in dataset:
    train_step(inputs)
