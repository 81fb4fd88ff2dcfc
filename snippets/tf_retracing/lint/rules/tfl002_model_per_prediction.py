"""TFL002: a Keras model built (or loaded) and predicted with on every iteration or call."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.keras_receivers import (
    FITTING_METHODS,
    INFERENCE_METHODS,
    model_constructions,
    models_built_by_init,
    trained_in_scope,
)
from tf_retracing.lint.rule import Rule


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    reported: set[int] = set()
    for call, ctx in facts.calls:
        # a model per item of a listed configuration (a sweep) is on purpose
        if not isinstance(call.func, ast.Attribute) or not facts.runs_repeatedly(
            ctx, count_sweeps=False
        ):
            continue
        if call.func.attr in INFERENCE_METHODS:
            built = _model_built_here(facts, call, ctx)
        else:
            built = _object_with_new_models(facts, call, ctx)
        if built is None or id(built) in reported:
            continue
        reported.add(id(built))
        where = "on every iteration" if ctx.loops else f"on every call of {ctx.scope.name}()"
        yield built, f"a new Keras model is built and used for {call.func.attr} {where}"


def _model_built_here(facts: ModuleFacts, call: ast.Call, ctx) -> ast.AST | None:
    """The construction of the model ``call`` predicts with, in the loop or repeated
    function, that is not trained there too (built and trained each time: a search, where
    the trace is not the cost); a model loaded in one branch is not trained by a fit in the
    other (``load_model`` if the file exists, else build and fit)."""
    receiver = call.func.value
    for built in model_constructions(facts, receiver, ctx):
        if built is receiver or not trained_in_scope(facts, receiver, ctx, FITTING_METHODS, built):
            return built
    return None


def _object_with_new_models(facts: ModuleFacts, call: ast.Call, ctx) -> ast.AST | None:
    """``detector = Detector()`` in the loop, then ``detector.detect(image)``, where
    ``Detector.__init__`` builds Keras models that ``detect`` predicts with."""
    receiver = call.func.value
    if not isinstance(receiver, ast.Name):
        return None
    for value in facts.bound_in_the_same_loop(receiver.id, ctx):
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            continue
        cls = facts.unique_class(value.func.id)
        method = facts.method(cls, call.func.attr) if cls is not None else None
        if method is None:
            continue
        models = models_built_by_init(facts, cls)
        if any(
            isinstance(inner.func, ast.Attribute)
            and inner.func.attr in INFERENCE_METHODS
            and isinstance(inner.func.value, ast.Attribute)
            and isinstance(inner.func.value.value, ast.Name)
            and inner.func.value.value.id == "self"
            and inner.func.value.attr in models
            for inner in facts.scope_of(method).calls
        ):
            return value
    return None


RULE = Rule(
    code="TFL002",
    name="model-per-prediction",
    summary="A Keras model built (or loaded) and predicted or evaluated with in each "
    "iteration or call.",
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
        # a new detector per image, whose __init__ builds the models its method predicts with
        """
class Detector:
    def __init__(self):
        self.net = keras.Sequential([keras.layers.Dense(2)])
    def detect(self, image):
        return self.net.predict(image[None])
for image in images:
    detector = Detector()
    detector.detect(image)
""",
        # a new model per round, compiled and evaluated
        """
for round_number in range(4):
    scored = keras.Sequential([keras.layers.Dense(3)])
    scored.compile(loss="mse")
    scored.evaluate(x, y)
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
        # an object built once, whose models are built in __init__ (and called directly:
        # through predict, the loop would be TFL004's hazard)
        """
class Detector:
    def __init__(self):
        self.net = keras.Sequential([keras.layers.Dense(2)])
    def detect(self, image):
        return self.net(image[None], training=False)
detector = Detector()
for image in images:
    detector.detect(image)
""",
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
        # a sweep over listed configurations, through a helper: one model per item
        """
def compress_and_evaluate(strength):
    model = keras.models.load_model(f"compressed-{strength}.keras")
    return model.evaluate(x, y)
scores = [compress_and_evaluate(strength) for strength in (2.0, 5.0, 10.0)]
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
