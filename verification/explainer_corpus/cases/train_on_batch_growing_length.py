"""train_on_batch called with sequences one element longer on every call. In wrapped mode
the reader wraps model.train_function: Keras 3 runs train_on_batch through the step behind a
wrapper in that function's closure, not through the function fit calls."""

import keras
import numpy as np
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/issues/38742"
SUMMARY = "train_on_batch(np.ones([1, i]), ...) for i in 1..299 retraces for every length"
EXPECT = [
    # the first step creates the optimizer's variables: TensorFlow traces it twice
    ("TensorFlowTrainer._make_function.<locals>.one_step_on_data", None, "context"),
    # Keras 3 makes the step with reduce_retracing: one retrace, made general (1, None)
    ("TensorFlowTrainer._make_function.<locals>.one_step_on_data", "data[0]", "shape"),
]

inputs = keras.Input([None])
summed = keras.ops.sum(inputs, axis=1, keepdims=True)
output = keras.layers.Dense(1)(summed)
model = keras.Model(inputs, output)
model.compile(optimizer=keras.optimizers.Adam(), loss=keras.losses.MeanSquaredError())
model.make_train_function()
model.train_function = watch(model.train_function)  # what a reader wraps
for i in range(1, 8):
    model.train_on_batch(np.ones([1, i]), np.ones([1]) * i)  # hazard: TFL011
