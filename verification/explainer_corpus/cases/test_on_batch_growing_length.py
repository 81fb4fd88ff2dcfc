"""test_on_batch called with sequences one element longer on every call. In wrapped mode
the reader wraps model.test_function, made by make_test_function(): Keras 3 runs
test_on_batch through the step behind a wrapper in that function's closure, as it does
train_on_batch."""

import keras
import numpy as np
from corpus_watch import watch

SOURCE = "https://github.com/tensorflow/tensorflow/pull/35019"
SUMMARY = "{train,test,predict}_on_batch retrace for every new sequence length passed"
EXPECT = [
    # Keras 3 makes the step with reduce_retracing: one retrace, made general (1, None)
    ("TensorFlowTrainer._make_function.<locals>.one_step_on_data", "data[0]", "shape"),
]

inputs = keras.Input([None])
summed = keras.ops.sum(inputs, axis=1, keepdims=True)
model = keras.Model(inputs, keras.layers.Dense(1)(summed))
model.compile(optimizer="adam", loss="mse")
model.make_test_function()
model.test_function = watch(model.test_function)  # what a reader wraps
for length in range(1, 8):
    model.test_on_batch(np.ones([1, length]), np.ones([1]) * length)  # hazard: TFL011
