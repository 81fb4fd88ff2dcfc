"""TFL004: model.predict called per batch in a loop that does not train the model."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.keras_receivers import (
    TRAINING_METHODS,
    imported_call,
    model_construction,
    predicts_like_a_keras_model,
    trained_in_scope,
)
from tf_retracing.lint.model_aliases import alias_sources
from tf_retracing.lint.rule import Rule

MESSAGE = "model.predict in a loop: each call sets up a data iterator and callbacks"
# How many calls deep a loop's call is followed into the file's own functions and methods.
_DEPTH = 2


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    traced = {id(t.definition) for t in facts.traced_bodies()}
    for call, ctx in facts.calls:
        if not ctx.loops or (ctx.function is not None and id(ctx.function) in traced):
            continue  # once, or inside a tf.function (TFL006's hazard)
        if _predicts(facts, call, ctx):
            yield call, MESSAGE
            continue
        if _made_in_the_same_loop(facts, call, ctx):
            continue  # a new object, and model, per iteration: TFL002's hazard
        for path in _predicts_reached(facts, call, ctx, traced, _DEPTH):
            if not _trained_in_the_loop(facts, call, ctx, path):
                names = " -> ".join(name for name, _ in path)
                yield call, f"{MESSAGE} (reached through {names})", tuple(n for _, n in path)


def _predicts(facts: ModuleFacts, call: ast.Call, ctx) -> bool:
    """``model.predict(...)`` on a Keras model that is neither built anew here (TFL002's
    hazard) nor trained between predictions (a new predict function is then expected)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "predict"):
        return False
    receiver = call.func.value
    if _own_predict(facts, receiver, ctx) is not None:
        return False  # the file's class overrides predict: its body decides (followed)
    if _each_model_once(facts, receiver, ctx):
        return False
    if _built_by_an_import_in_the_loop(facts, receiver, ctx):
        return False
    sources = [receiver, *(alias_sources(facts, receiver, ctx) or [])]  # net = m
    return (
        predicts_like_a_keras_model(facts, call, ctx)
        and all(model_construction(facts, source, ctx) is None for source in sources)
        and not trained_in_scope(facts, receiver, ctx)
    )


def _each_model_once(facts: ModuleFacts, receiver: ast.AST, ctx) -> bool:
    """``for model in models: model.predict(x)``, the only loop around it, in code that runs
    once: each model predicts once, whatever the list holds. Cycled per batch (a loop
    around it, or a function called in one) is a repeat, and is left to the rules above."""
    outermost = ctx.loops[0] if ctx.loops else None
    if not isinstance(receiver, ast.Name) or not isinstance(outermost, ast.For | ast.AsyncFor):
        return False
    if ctx.function is not None and id(ctx.function) in facts.repeated:
        return False
    bound = [n.id for n in ast.walk(outermost.target) if isinstance(n, ast.Name)]
    return receiver.id in bound and not facts.bound_in_the_same_loop(receiver.id, ctx)


def _built_by_an_import_in_the_loop(facts: ModuleFacts, receiver: ast.AST, ctx) -> bool:
    """``model = create_unet(...)`` from an imported constructor in the innermost loop
    around the predict: a new model per iteration, which TFL004 leaves alone as it does
    Keras's own constructors there (often an ensemble, predicting once with each model it
    loads). Built in an outer loop, it still predicts per batch of the inner one."""
    if not isinstance(receiver, ast.Name):
        return False
    return any(
        imported_call(facts, value)
        and (value_ctx := facts.contexts.get(id(value))) is not None
        and value_ctx.loops[-1:] == ctx.loops[-1:]
        for value in facts.bound_in_the_same_loop(receiver.id, ctx)
    )


def _own_predict(facts: ModuleFacts, receiver: ast.AST, ctx) -> ast.AST | None:
    """The ``predict`` a class of the file defines for ``receiver``'s class (a keras.Model
    subclass that overrides it), unless it hands the call on to Keras's with
    ``super().predict(...)``: what that method runs is followed like any method's."""
    cls = facts.instance_class(receiver, ctx) or _item_class(facts, receiver, ctx)
    method = facts.method(cls, "predict") if cls is not None else None
    if method is None:
        return None
    for inner in facts.scope_of(method).calls:
        func = inner.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "predict"
            and isinstance(func.value, ast.Call)
            and getattr(func.value.func, "id", None) == "super"
        ):
            return None
    return method


def _item_class(facts: ModuleFacts, receiver: ast.AST, ctx) -> ast.ClassDef | None:
    """``for net in self.nets``, where the file only ever fills ``self.nets`` (or ``nets``)
    with instances of one of its classes (``[Dynamics(...) for _ in range(5)]``)."""
    sources = alias_sources(facts, receiver, ctx) or []
    if not sources or not all(isinstance(s, ast.For) for s in sources):
        return None
    items = []
    for loop in sources:
        for container in _container_values(facts, loop.iter, facts.context(loop)):
            if isinstance(container, ast.List | ast.Tuple):
                items += container.elts
            elif isinstance(container, ast.ListComp):
                items.append(container.elt)
            else:
                return None
    return facts.class_of_values(items) if items else None


def _container_values(facts: ModuleFacts, container: ast.AST, ctx) -> list[ast.AST]:
    """What a loop's container (``nets``, ``self.nets``) is bound to, or itself."""
    if isinstance(container, ast.Name):
        return facts.values_of(container.id, ctx)
    on_self = isinstance(container, ast.Attribute) and ast.unparse(container.value) == "self"
    if on_self and ctx.class_ is not None:
        return facts.self_attribute_values(ctx.class_, container.attr)
    return [container]


def _made_in_the_same_loop(facts: ModuleFacts, call: ast.Call, ctx) -> bool:
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    return isinstance(receiver, ast.Name) and any(
        isinstance(value, ast.Call) for value in facts.bound_in_the_same_loop(receiver.id, ctx)
    )


def _predicts_reached(facts: ModuleFacts, call: ast.Call, ctx, traced: set, depth: int):
    """The paths from a loop's call, through the file's own functions and methods, to each
    Keras ``predict`` they run once per call (one in a loop of theirs is found there):
    (name, call node) per step, one path per predict reached."""
    target = facts.called_function(call, ctx)
    if target is None or id(target) in traced or depth == 0:
        return []
    name = _qualified(facts, target)
    paths = []
    for inner in facts.scope_of(target).calls:
        inner_ctx = facts.context(inner)
        if inner_ctx.loops or inner_ctx.function is not target:
            continue
        if _predicts(facts, inner, inner_ctx):
            paths.append([(name, inner), (ast.unparse(inner.func), inner)])
            continue
        for deeper in _predicts_reached(facts, inner, inner_ctx, traced, depth - 1):
            paths.append([(name, inner), *deeper])
    return paths


def _trained_in_the_loop(facts: ModuleFacts, call: ast.Call, ctx, path: list) -> bool:
    """The innermost loop around ``call`` also fits the model that the predict ``path`` reaches,
    directly or through the file's functions: as for a predict written in the loop, a new
    predict function is then expected. Models are told apart by the chain of receivers
    that leads to them from the loop (``self.target.model`` is not ``self.online.model``)."""
    model = _chain([call, *(node for _, node in path[:-1])])
    loop = ctx.loops[-1]  # the innermost: its iterations are what repeat the predict
    pending = [([c], _DEPTH) for c in ctx.scope.calls if loop in facts.context(c).loops]
    while pending:
        calls, depth = pending.pop()
        last = calls[-1]
        if _chain(calls) == model and getattr(last.func, "attr", None) in TRAINING_METHODS:
            return True
        # a name bound to instances of several classes: any of their methods may fit it
        targets = facts.called_functions(last, facts.context(last)) if depth else []
        for target in targets:
            pending += [([*calls, inner], depth - 1) for inner in facts.scope_of(target).calls]
    return False


def _chain(calls: list[ast.Call]) -> tuple[str, ...]:
    """The receivers along a chain of calls (``agent``, ``self.model``): which object it
    ends at. A plain function's call and a method's call on ``self`` keep the object."""
    receivers = (ast.unparse(c.func.value) for c in calls if isinstance(c.func, ast.Attribute))
    return tuple(r for r in receivers if r != "self")


def _qualified(facts: ModuleFacts, function: ast.AST) -> str:
    cls = facts.scope_of(function).class_
    return f"{cls.name}.{function.name}" if cls is not None else function.name


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
        # through the file's own class: an agent's act() predicts once per step
        """
class Agent:
    def __init__(self):
        self.model = keras.models.load_model("q.keras")

    def act(self, state):
        return self.model.predict(state, verbose=0)

agent = Agent()
while not done:
    state, reward, done, info = env.step(agent.act(state))
""",
        # a model from an imported constructor, used as one (load_weights) in the file
        """
from yolov3.models import YoloV3
yolo = YoloV3(classes=80)
yolo.load_weights("yolov3.tf")
for frame in frames:
    boxes = yolo.predict(frame)
""",
        # a model whose name says nothing, loaded by Keras, predicted per detected face
        """
classifier = keras.models.load_model("emotions.keras")
for face in faces:
    classifier.predict(face[None])
""",
        # the file's own wrapper class (its predict calls Keras's) held in an attribute
        """
class Network:
    def __init__(self):
        self.model = keras.Sequential([keras.layers.Dense(2)])

    def predict(self, x):
        return self.model.predict(x, verbose=0)

class Agent:
    def __init__(self):
        self.target = Network()

    def replay(self, batch):
        for state in batch:
            self.target.predict(state)
""",
        # an override that hands the call on to Keras's own predict
        """
class Classifier(keras.Model):
    def predict(self, x, **kwargs):
        return super().predict(x, **kwargs)

model = Classifier()
for batch in batches:
    model.predict(batch)
""",
        # an imported object used as a model (load_weights) in a file that imports nothing else
        """
from models import model
model.load_weights("best.weights.h5")
while True:
    text = input()
    model.predict(encode(text))
""",
        # built by an imported constructor per checkpoint, then predicted per image
        """
from unets import create_unet
for weights in checkpoints:
    model = create_unet()
    model.load_weights(weights)
    for image in images:
        model.predict(image)
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
        # the file's own class wraps a network of its own, whose predict is not Keras's
        """
class Network:
    def predict(self, x):
        return x @ self.weights

class Agent:
    def __init__(self):
        self.model = Network()

    def act(self, state):
        return self.model.predict(state)

agent = Agent()
for state in states:
    agent.act(state)
""",
        # the loop's own steps fit the model that the wrapper predicts with
        """
class Agent:
    def __init__(self):
        self.model = keras.Sequential([keras.layers.Dense(2)])

    def act(self, state):
        return self.model.predict(state)

    def learn(self, x, y):
        self.model.fit(x, y, verbose=0)

agent = Agent()
for state, target in steps:
    agent.act(state)
    agent.learn(state, target)
""",
        # an imported object with predict, never used as a Keras model in the file
        """
from scoring import Scorer
scorer = Scorer()
for row in rows:
    scorer.predict(row)
""",
        # a loop over one batch runs once
        """
model = keras.Sequential([keras.layers.Dense(1)])
for images, labels in test_dataset.take(1):
    predictions = model.predict(images)
""",
        # a keras.Model subclass whose own predict calls the model: no data iterator
        """
class Classifier(keras.Model):
    def call(self, x):
        return x

    def predict(self, x):
        return self(x, training=False)

model = Classifier()
for batch in batches:
    model.predict(batch)
""",
        # an ensemble: each listed model built by an imported constructor, loaded, used once
        """
from unets import create_unet
for weights in ["fold0.h5", "fold1.h5", "fold2.h5"]:
    model = create_unet()
    model.load_weights(weights)
    total += model.predict(volume)
""",
        # predict once, on all the data, then a loop over the results
        """
model = keras.Sequential([keras.layers.Dense(1)])
scores = [float(s) for s in model.predict(features)]
""",
    ),
)
