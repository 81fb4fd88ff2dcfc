"""A tf.Module's signature functions traced by tf.saved_model.save: once each, in TF 2.21."""

import tempfile

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/56370"
SUMMARY = "tf.saved_model.save traces f1 and f2 of a tf.Module twice (TF 2.4 to 2.8)"
EXPECT = []  # TensorFlow 2.21 traces each once: experimental_get_tracing_count() is 1

F1_SIG = [tf.TensorSpec([None, 4], tf.float32, name="inputs_1")]
F2_SIG = [tf.TensorSpec([None], tf.float32, name="inputs_2")]


class CustomModel(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras.layers.Dense(2)

    def call(self, inputs):
        return self.dense(inputs)


class CustomModule(tf.Module):
    def __init__(self):
        super().__init__()
        self.model = CustomModel()
        self.model(tf.zeros([1, 4]))

    @watch
    @tf.function(input_signature=F1_SIG)
    def f1(self, inputs_1):
        print("tracing f1")
        return self.model(inputs_1)

    @watch
    @tf.function(input_signature=F2_SIG)
    def f2(self, inputs_2):
        print("tracing f2")
        return self.model(tf.reshape(inputs_2, [-1, 4]))


module = CustomModule()
tf.saved_model.save(module, tempfile.mkdtemp(), signatures={"f1": module.f1, "f2": module.f2})
print(module.f1.experimental_get_tracing_count(), module.f2.experimental_get_tracing_count())
