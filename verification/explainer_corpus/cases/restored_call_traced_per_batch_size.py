"""A model saved with a [None, 3] signature, loaded and called: the restored function traces
again for every new batch size."""

import tempfile

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/39369"
SUMMARY = "a model saved with a None batch signature traces for each batch size once loaded"
EXPECT = [
    # the restored function has the [None, 3] trace but no input_signature: each new batch
    # size is a new trace of it (which then calls the saved [None, 3] graph)
    ("__call__", "x", "shape"),
    # and tf.saved_model.save traced the original again, under its save options
    ("CustomModel.__call__", None, "context"),
]
export_dir = tempfile.mkdtemp()


class CustomModel(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(tf.random.normal([3, 2]))

    @watch
    @tf.function
    def __call__(self, x):
        return tf.nn.relu(x @ self.w)


model = CustomModel()
signature = model.__call__.get_concrete_function(tf.TensorSpec([None, 3], tf.float32))
tf.saved_model.save(model, export_dir, signatures=signature)

loaded = tf.saved_model.load(export_dir)
predict = watch(loaded.__call__)
for batch_size in (1, 2, 3, 4, 2):
    print(predict(tf.ones([batch_size, 3])).shape)
