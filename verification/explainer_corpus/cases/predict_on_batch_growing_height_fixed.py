"""The explainer's advice applied: the model called from a tf.function of our own whose
input_signature leaves the height None."""

import keras
import numpy as np
import tensorflow as tf

ADVICE = (
    "call the model from a tf.function of your own with an input_signature that leaves "
    "that dimension None"
)

inputs = keras.Input((None, 16, 3))
features = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
model = keras.Model(inputs, keras.layers.GlobalAveragePooling2D()(features))


@tf.function(input_signature=[tf.TensorSpec(shape=[1, None, 16, 3], dtype=tf.float32)])
def predict(images):
    return model(images, training=False)


for height in (16, 24, 20, 32, 28):
    predict(np.random.randn(1, height, 16, 3).astype(np.float32))
