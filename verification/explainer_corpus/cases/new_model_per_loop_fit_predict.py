"""A new Keras model built, fitted and asked to predict on every iteration of a loop."""

import keras
import numpy as np

SOURCE = "https://github.com/tensorflow/tensorflow/issues/46012"
SUMMARY = "six models made in a loop, each fit and predict: predict_function retracing warning"
EXPECT = [
    (
        "TensorFlowTrainer._make_function.<locals>.multi_step_on_iterator",
        None,
        "object",
    ),  # new model, new functions
    ("TensorFlowTrainer._make_function.<locals>.one_step_on_data", None, "object"),
    # its first training step creates the optimizer's variables: TensorFlow traces twice
    ("TensorFlowTrainer._make_function.<locals>.one_step_on_data", None, "context"),
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        None,
        "object",
    ),
]
WRAPPED = False

x = np.random.uniform(-1, 1, size=(1, 100))
y = np.array([[0.7974]])
for _ in range(4):
    model = keras.Sequential([keras.Input((100,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(loss="mse", optimizer="adam")
    model.fit(x, y, batch_size=1, epochs=2, verbose=0)
    print(model.predict(x, verbose=0))
