"""A tf.function given SparseTensors whose dense_shape differs from call to call."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/29198"
SUMMARY = "q.shape prints (None, None) in tf.function; the reply explains how SparseTensors trace"
EXPECT = [("foo", "q", "shape")]


@tf.function
def foo(q):
    print(q.shape)  # (3, 4), then (4, 4), then (5, 4): one trace for each
    return tf.sparse.reduce_sum(q, axis=1)


foo = watch(foo)
for rows in (3, 4, 5, 3):
    x = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[rows, 4])
    foo(x)  # hazard: TFL011
