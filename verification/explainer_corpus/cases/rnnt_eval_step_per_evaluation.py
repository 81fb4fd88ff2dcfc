"""An eval step defined (with relax_shapes) inside run_evaluate, on padded speech batches."""

import numpy as np
import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2
)

from corpus_watch import watch  # noqa: E402

SOURCE = "https://github.com/noahchalifour/rnnt-speech-recognition/issues/18"
SUMMARY = "multi-GPU training warns 5 out of the last 5 calls to run_evaluate.<locals>.eval_step"
# Each evaluation makes a new eval_step (traced again on its first call); within one, the
# second batch's new lengths make relax_shapes trace once more with those lengths None.
EXPECT = [
    ("run_evaluate.<locals>.eval_step", "dist_inputs[0][0]", "shape"),  # the rest: its others
    ("run_evaluate.<locals>.eval_step", None, "object"),
]

MEL_BINS, VOCAB = 8, 12


def utterances():
    for frames, chars in ((30, 5), (30, 5), (44, 7), (44, 7), (38, 6), (38, 6), (52, 9), (52, 9)):
        labels = np.random.randint(1, VOCAB, size=chars).astype(np.int32)
        mel_specs = np.random.rand(frames, MEL_BINS).astype(np.float32)
        yield mel_specs, np.concatenate([[0], labels[:-1]]), frames, chars, labels


spec = (
    tf.TensorSpec([None, MEL_BINS], tf.float32),
    tf.TensorSpec([None], tf.int32),
    tf.TensorSpec([], tf.int32),
    tf.TensorSpec([], tf.int32),
    tf.TensorSpec([None], tf.int32),
)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    encoder = tf.Variable(tf.random.normal([MEL_BINS, VOCAB]))
    prediction = tf.Variable(tf.random.normal([VOCAB, VOCAB]))


def model(inputs, training=False):
    mel_specs, pred_inp = inputs
    return tf.reduce_mean(mel_specs @ encoder, axis=1, keepdims=True) + tf.gather(
        prediction, pred_inp
    )


def loss_fn(labels, outputs, spec_lengths, label_lengths):
    losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, outputs)
    return tf.reduce_sum(losses, axis=1) / tf.cast(label_lengths, tf.float32)


def run_evaluate(model, loss_fn, eval_dataset, batch_size, strategy):
    @tf.function(experimental_relax_shapes=True)
    def eval_step(dist_inputs):  # hazard: TFL001
        def step_fn(inputs):
            mel_specs, pred_inp, spec_lengths, label_lengths, labels = inputs
            outputs = model([mel_specs, pred_inp], training=False)
            loss = loss_fn(labels, outputs, spec_lengths=spec_lengths, label_lengths=label_lengths)
            return loss * (1.0 / batch_size)

        losses = strategy.run(step_fn, args=(dist_inputs,))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=0)

    eval_step = watch(eval_step)
    loss_object = tf.keras.metrics.Mean()
    for inputs in eval_dataset:
        loss_object(eval_step(inputs))
    return loss_object.result()


dataset = tf.data.Dataset.from_generator(utterances, output_signature=spec).padded_batch(2)
eval_dataset = strategy.experimental_distribute_dataset(dataset)
for global_step in range(0, 3000, 1000):  # evaluate every steps_per_checkpoint steps
    print("Performing evaluation.", float(run_evaluate(model, loss_fn, eval_dataset, 2, strategy)))
