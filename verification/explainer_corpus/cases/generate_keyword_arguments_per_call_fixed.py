"""The fixes the explainer prints, applied as written: num_beams passed on every call as an
int32 tensor (the calls that left it out included), and the prompts padded to one length
(with **kwargs, neither input_signature nor reduce_retracing=True fits)."""

import numpy as np
import tensorflow as tf

ADVICE = "bound them by passing it as a tensor on every call, the calls that left it out included"

VOCAB, LENGTH = 11, 4
embedding = tf.random.normal([VOCAB, 4])


def generate(input_ids, max_new_tokens=3, **kwargs):
    num_beams = kwargs.get("num_beams", 1)
    ids = tf.repeat(input_ids, num_beams, axis=0)
    for _ in range(max_new_tokens):
        scores = tf.matmul(
            tf.nn.embedding_lookup(embedding, ids[:, -1]), embedding, transpose_b=True
        )
        ids = tf.concat([ids, tf.argmax(scores, axis=-1, output_type=tf.int32)[:, None]], 1)
    return ids


xla_generate = tf.function(generate)
prompts = [[1, 2, 3], [4, 5, 6, 7], [8, 9, 1, 2]]
for prompt, beams in [(prompts[0], 1), (prompts[1], 1), (prompts[2], 2), (prompts[2], 3)]:
    padded = tf.constant([[0] * (LENGTH - len(prompt)) + prompt])  # "pad or bucket inputs"
    result = xla_generate(padded, num_beams=tf.constant(beams, dtype=tf.int32))
    np.testing.assert_array_equal(result, generate(padded, num_beams=beams))
