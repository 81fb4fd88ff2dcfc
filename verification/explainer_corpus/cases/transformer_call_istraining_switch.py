"""A model's tf.function call given a Python bool that switches training and translating."""

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/keras-team/keras/issues/15751"
SUMMARY = "call(inputs, istraining) of a Transformer switches teacher forcing and auto-regression"
EXPECT = [("Transformer.call", "istraining", "python-value")]  # one trace per flag value


class Transformer(keras.Model):
    def __init__(self, vocab=20, dim=8, max_len=5):
        super().__init__()
        self.embed = keras.layers.Embedding(vocab, dim)
        self.project = keras.layers.Dense(vocab)
        self.max_len = max_len

    @watch
    @tf.function
    def call(self, source, target, istraining):
        context = tf.reduce_mean(self.embed(source), axis=1, keepdims=True)
        if istraining:  # teacher forcing: the whole target at once
            return self.project(self.embed(target) + context)
        tokens = target[:, :1]  # auto-regression: one token at a time
        for _ in range(self.max_len - 1):
            logits = self.project(self.embed(tokens[:, -1:]) + context)
            tokens = tf.concat([tokens, tf.argmax(logits, -1, output_type=tf.int32)], 1)
        return tokens


model = Transformer()
source = tf.random.uniform([4, 6], maxval=20, dtype=tf.int32)
target = tf.random.uniform([4, 5], maxval=20, dtype=tf.int32)
for _ in range(3):
    model(source, target, istraining=True)  # training steps
print(model(source, target, istraining=False))  # translating
