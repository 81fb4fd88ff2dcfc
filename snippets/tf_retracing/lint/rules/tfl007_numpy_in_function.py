"""TFL007: .numpy() on a tensor inside a tf.function."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.bodies import bodies
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.rule import Rule


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    traced_bodies = bodies(facts)
    for traced in traced_bodies.functions:
        for node, _ in traced_bodies.nodes(traced):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "numpy"
                and not node.args
                and not node.keywords
                and traced_bodies.is_graph_value(traced, node.func.value)
            ):
                yield node, f".numpy() on a graph tensor inside {traced.name}(), a tf.function"


RULE = Rule(
    code="TFL007",
    name="numpy-in-function",
    summary="Tensor.numpy() called on an argument or a local tensor inside a tf.function.",
    fix="Keep the value a tensor and use TensorFlow operations on it.",
    page="lint/rules/#tfl007-numpy-in-function",
    check=check,
    found=(
        """
@tf.function
def to_list(x):
    return x.numpy().tolist()
""",
        """
@tf.function
def total(x):
    summed = tf.reduce_sum(x)
    return summed.numpy()
""",
    ),
    clean=(
        """
@tf.function
def total(x):
    return tf.reduce_sum(x)
print(total(tf.ones([2])).numpy())
""",
        # inside a tf.py_function callback, which runs eagerly
        """
@tf.function
def total(x):
    def eager(t):
        return t.numpy().sum()
    return tf.py_function(eager, [x], tf.float32)
""",
    ),
)
