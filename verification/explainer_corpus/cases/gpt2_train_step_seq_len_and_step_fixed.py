"""The fix the explainer prints: the length declared None, the step passed as a tensor."""

import numpy as np
import tensorflow as tf

ADVICE = "give `x` the spec tf.TensorSpec(shape=[4, None], dtype=tf.int64) in input_signature"


class Gpt2(tf.Module):
    def __init__(self, vocab=50, width=8):
        self.embedding = tf.Variable(tf.random.normal([vocab, width]))
        self.output_layer = tf.Variable(tf.random.normal([width, vocab]))
        self.optimizer = tf.keras.optimizers.Adam(1e-3)
        self.optimizer.build(self.trainable_variables)

    def get_loss(self, targets, logits):
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(targets, logits))

    @tf.function(
        input_signature=[
            tf.TensorSpec(shape=[4, None], dtype=tf.int64),
            tf.TensorSpec(shape=[], dtype=tf.int32),  # the step: tf.constant(2), int32
        ]
    )
    def train_step(self, x, step, grad_clip=True, clip_value=1.0):
        inputs, targets = x[:, :-1], x[:, 1:]
        with tf.GradientTape() as tape:
            logits = tf.gather(self.embedding, inputs) @ self.output_layer
            loss = self.get_loss(targets, logits)
        gradients = tape.gradient(loss, self.trainable_variables)
        if grad_clip:
            gradients = [tf.clip_by_value(g, -clip_value, clip_value) for g in gradients]
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        return loss


model = Gpt2()
for step, length in enumerate((17, 17, 17, 12, 12, 21, 21), start=1):
    model.train_step(np.random.randint(0, 50, size=(4, length)), tf.constant(step))
