"""TFL002: a Keras model built (or loaded) and predicted with on every iteration or call."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.keras_receivers import PREDICT_METHODS, model_construction, trained_in_scope
from tf_retracing.lint.rule import Rule


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    reported: set[int] = set()
    for call, ctx in facts.calls:
        if not (isinstance(call.func, ast.Attribute) and call.func.attr in PREDICT_METHODS):
            continue
        if not facts.runs_repeatedly(ctx):
            continue
        receiver = call.func.value
        built = model_construction(facts, receiver, ctx)
        if built is None or id(built) in reported:
            continue
        if built is not receiver and trained_in_scope(facts, receiver, ctx):
            continue  # built and trained each time: a search, where the trace is not the cost
        reported.add(id(built))
        where = "on every iteration" if ctx.loops else f"on every call of {ctx.scope.name}()"
        yield built, f"a new Keras model is built and predicted with {where}"


RULE = Rule(
    code="TFL002",
    name="model-per-prediction",
    summary="A Keras model built (or loaded) and predicted with in each iteration or call.",
    fix="Build the model once; load new weights into it with set_weights or load_weights.",
    page="keras-models/#building-models-in-a-loop",
    check=check,
    found=(
        """
def build_model():
    return keras.Sequential([keras.layers.Dense(1)])
for _ in range(3):
    fresh = build_model()
    fresh.predict_on_batch(np.ones((2, 4), "float32"))
""",
        """
for path in paths:
    model = keras.models.load_model(path)
    model.predict(features)
""",
        # loaded on every request by a handler
        """
def prediction(data):
    model = keras.models.load_model("model.keras")
    return model.predict(data)
for data in requests:
    prediction(data)
""",
        # an AWS Lambda entry point runs once per request
        """
def lambda_handler(event, context):
    model = keras.models.load_model("/opt/model.keras")
    return model.predict(np.array(event["rows"])).tolist()
""",
        # a method of the file builds it, and the loop is in another method
        """
class Experiment:
    def make_model(self):
        model = keras.Sequential([keras.layers.Dense(1)])
        return model
    def run(self, batches):
        for batch in batches:
            self.make_model().predict(batch)
""",
    ),
    clean=(
        """
model = keras.Sequential([keras.layers.Dense(1)])
for path in paths:
    model.load_weights(path)
    model.predict_on_batch(features)
""",
        # built and trained per iteration: a search, where the trace is not the cost
        """
for units in (8, 16):
    model = keras.Sequential([keras.layers.Dense(units)])
    model.compile(loss="mse")
    model.fit(x, y)
    model.predict(x)
""",
        # built once, before the loop, in the same function
        """
def evaluate(batches):
    model = keras.models.load_model("model.keras")
    for batch in batches:
        model.predict_on_batch(batch)
""",
    ),
)
