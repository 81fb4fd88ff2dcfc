"""Listing a tf.function's concrete functions for a SavedModel traces each signature again."""

import numpy as np
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/33180"
SUMMARY = "_list_all_concrete_functions_for_serialization doubles f's trace count from 3 to 6"
EXPECT = [
    ("f", "a", "shape"),  # (4, 3) -> (4, 2) -> (4, 1): three traces
    # then each signature again: the listing asks for specs named after the argument ('a'),
    # and a spec's name is part of TensorFlow's cache key
    ("f", "a", "structure"),
]


@tf.function
def f(a):
    tf.print(a.shape)
    return a


f = watch(f)
for shape in [(4, 3), (4, 3), (4, 3), (4, 2), (4, 1)]:
    f(tf.convert_to_tensor(np.random.randn(*shape).astype(np.float32)))  # hazard: TFL011
    print(f.experimental_get_tracing_count())
print(f._list_all_concrete_functions_for_serialization())  # what tf.saved_model.save calls
print(f.experimental_get_tracing_count())
