"""TFL006: model.predict or predict_on_batch called inside a tf.function."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.bodies import bodies
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.keras_receivers import PREDICT_METHODS, is_keras_model
from tf_retracing.lint.rule import Rule


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    traced_bodies = bodies(facts)
    for traced in traced_bodies.functions:
        for node, ctx in traced_bodies.nodes(traced):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in PREDICT_METHODS
                and is_keras_model(facts, node.func.value, ctx)
            ):
                yield (
                    node,
                    f"model.{node.func.attr} inside {traced.name}(), a tf.function: it fails "
                    "while tracing",
                )


RULE = Rule(
    code="TFL006",
    name="predict-in-function",
    summary="model.predict or predict_on_batch called inside a tf.function.",
    fix="Inside a tf.function, call the model: model(x, training=False).",
    page="keras-models/#modelpredict-inside-a-tffunction",
    check=check,
    found=(
        """
model = keras.Sequential([keras.layers.Dense(1)])
@tf.function
def predict_in_graph(features):
    return model.predict(features, verbose=0)
""",
    ),
    clean=(
        """
model = keras.Sequential([keras.layers.Dense(1)])
@tf.function
def serve(features):
    return model(features, training=False)
""",
    ),
)
