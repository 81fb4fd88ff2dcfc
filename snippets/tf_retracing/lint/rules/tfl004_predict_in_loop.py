"""TFL004: model.predict called per batch in a loop that does not train the model."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.keras_receivers import (
    is_keras_model,
    model_construction,
    trained_in_scope,
)
from tf_retracing.lint.rule import Rule


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    traced = {id(t.definition) for t in facts.traced_bodies()}
    for call, ctx in facts.calls:
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "predict"):
            continue
        if not ctx.loops or (ctx.function is not None and id(ctx.function) in traced):
            continue  # once, or inside a tf.function (TFL006's hazard)
        receiver = call.func.value
        if not is_keras_model(facts, receiver, ctx):
            continue
        if model_construction(facts, receiver, ctx) is not None:
            continue  # a new model each time: TFL002's hazard
        if trained_in_scope(facts, receiver, ctx):
            continue  # trained between predictions: a new predict function is expected
        yield call, "model.predict in a loop: each call sets up a data iterator and callbacks"


RULE = Rule(
    code="TFL004",
    name="predict-in-loop",
    summary="model.predict called per batch in a loop that does not train the model.",
    fix="Call the model from one tf.function with an input_signature, created once.",
    page="keras-models/#serving-one-tffunction-with-an-input-signature",
    check=check,
    found=(
        """
model = keras.Sequential([keras.layers.Dense(1)])
for batch in batches:
    model.predict(batch, verbose=0)
""",
        # a few literal inputs, one predict each
        """
model = keras.models.load_model("model.keras")
for text in ["good", "bad", "fine"]:
    model.predict(np.array([text]))
""",
        # compiled once before the loop: the loop still predicts step by step
        """
model = keras.Sequential([keras.layers.Dense(1)])
model.compile(loss="mse")
for day in range(5):
    model.predict(np.ones([1, 4]))
""",
        # Keras sets self.model in a callback
        """
class Report(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        for batch in self.batches:
            self.model.predict(batch)
""",
    ),
    clean=(
        """
model = keras.Sequential([keras.layers.Dense(1)])
for epoch in range(10):
    model.fit(x, y)
    model.predict(x_val)
""",
        """
model = keras.Sequential([keras.layers.Dense(1)])
model.predict(dataset)
""",
        # another library's estimator in a file that imports it
        """
from sklearn.linear_model import LinearRegression
model = LinearRegression()
for batch in batches:
    model.predict(batch)
""",
        # a class of the file that is not a Keras model
        """
class LookupModel:
    def predict(self, x):
        return x
model = LookupModel()
for batch in batches:
    model.predict(batch)
""",
        # a loop over one batch runs once
        """
model = keras.Sequential([keras.layers.Dense(1)])
for images, labels in test_dataset.take(1):
    predictions = model.predict(images)
""",
        # predict once, on all the data, then a loop over the results
        """
model = keras.Sequential([keras.layers.Dense(1)])
scores = [float(s) for s in model.predict(features)]
""",
    ),
)
