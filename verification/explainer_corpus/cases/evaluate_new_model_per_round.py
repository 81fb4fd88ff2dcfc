"""A new Keras model made and evaluated after every federated round."""

import keras
import numpy as np

SOURCE = "https://github.com/google-parfait/tensorflow-federated/issues/2794"
SUMMARY = "after the 3rd round: 5 out of the last 9 calls to test_function triggered retracing"
EXPECT = [
    # every round's new model makes new test functions
    ("TensorFlowTrainer._make_function.<locals>.multi_step_on_iterator", None, "object"),
    ("TensorFlowTrainer._make_function.<locals>.one_step_on_data", None, "object"),
    # and the first test step builds the compiled metrics' variables: traced twice
    ("TensorFlowTrainer._make_function.<locals>.one_step_on_data", None, "context"),
]
WRAPPED = False


def create_keras_model():
    return keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="softmax")])


x_test = np.random.rand(20, 6)
y_test = np.random.randint(0, 3, 20)
server_weights = create_keras_model().get_weights()
for round_num in range(4):
    server_weights = [w + 0.01 for w in server_weights]  # what the round's training returned
    eval_model = create_keras_model()  # hazard: TFL002
    eval_model.compile(loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    eval_model.set_weights(server_weights)
    print(round_num, eval_model.evaluate(x_test, y_test, verbose=0))
