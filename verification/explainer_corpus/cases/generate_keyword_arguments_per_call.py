"""A generate function compiled with tf.function and called with prompts of several lengths
and with generation options as keyword arguments (num_beams): each prompt length, each
option passed or left out, and each value of it is a trace of its own."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://huggingface.co/blog/tf-xla-generate"
SUMMARY = "tf.function(model.generate) retraces for each input length and each generation option"
# The post compiles `model.generate`, whose options arrive through **kwargs, and calls it with
# num_beams=2 among others; it pads the prompts to a few lengths to avoid the retraces.
EXPECT = [
    ("generate", "input_ids", "shape"),
    ("generate", "num_beams", "new-argument"),
    ("generate", "num_beams", "python-value"),
]

VOCAB = 11
embedding = tf.random.normal([VOCAB, 4])


def generate(input_ids, max_new_tokens=3, **kwargs):
    num_beams = kwargs.get("num_beams", 1)
    ids = tf.repeat(input_ids, num_beams, axis=0)  # one row per beam
    for _ in range(max_new_tokens):
        scores = tf.matmul(
            tf.nn.embedding_lookup(embedding, ids[:, -1]), embedding, transpose_b=True
        )
        ids = tf.concat([ids, tf.argmax(scores, axis=-1, output_type=tf.int32)[:, None]], 1)
    return ids


xla_generate = watch(tf.function(generate))
prompts = [[1, 2, 3], [4, 5, 6, 7], [8, 9, 1, 2]]
print(xla_generate(tf.constant([prompts[0]])))
print(xla_generate(tf.constant([prompts[1]])))
print(xla_generate(tf.constant([prompts[2]]), num_beams=2))
print(xla_generate(tf.constant([prompts[2]]), num_beams=3))
