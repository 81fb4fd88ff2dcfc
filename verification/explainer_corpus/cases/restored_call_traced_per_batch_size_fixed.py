"""The fix the explainer prints: the [None, 3] spec in the function's input_signature, which
the restored function keeps."""

import tempfile

import tensorflow as tf

ADVICE = "tf.TensorSpec(shape=[None, 3], dtype=tf.float32) for `x` in its input_signature"
export_dir = tempfile.mkdtemp()


class CustomModel(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(tf.random.normal([3, 2]))

    @tf.function(input_signature=[tf.TensorSpec(shape=[None, 3], dtype=tf.float32)])
    def __call__(self, x):
        return tf.nn.relu(x @ self.w)


model = CustomModel()
tf.saved_model.save(model, export_dir, signatures=model.__call__)

loaded = tf.saved_model.load(export_dir)
for batch_size in (1, 2, 3, 4, 2):
    print(loaded(tf.ones([batch_size, 3])).shape)
