"""The fix the explainer prints: a SparseTensorSpec with the row count None."""

import tensorflow as tf

ADVICE = "give `q` the spec tf.SparseTensorSpec(shape=[None, 4], dtype=tf.int32) in input_signature"


@tf.function(input_signature=[tf.SparseTensorSpec(shape=[None, 4], dtype=tf.int32)])
def foo(q):
    print(q.shape)  # (None, 4): one trace for every row count
    return tf.sparse.reduce_sum(q, axis=1)


for rows in (3, 4, 5, 3):
    x = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[rows, 4])
    foo(x)
