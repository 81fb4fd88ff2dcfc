"""TFL008: Python control flow over a tensor in a tf.function traced with autograph=False."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.bodies import bodies
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.rule import Rule


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    traced_bodies = bodies(facts)
    for traced in traced_bodies.functions:
        if traced.autograph:
            continue
        for node, _ in traced_bodies.nodes(traced):
            if isinstance(node, ast.If | ast.While | ast.IfExp):
                if traced_bodies.is_tensor_expression(traced, node.test):
                    keyword = "while" if isinstance(node, ast.While) else "if"
                    yield (
                        node,
                        f"Python `{keyword}` on a tensor in {traced.name}(), traced with "
                        "autograph=False",
                    )
            elif isinstance(node, ast.For) and traced_bodies.is_tensor_expression(
                traced, node.iter
            ):
                yield (
                    node,
                    f"Python `for` over a tensor in {traced.name}(), traced with autograph=False",
                )


RULE = Rule(
    code="TFL008",
    name="tensor-condition-without-autograph",
    summary="Python if, while or for over a tensor in a tf.function traced with autograph=False.",
    fix="Leave AutoGraph on, or write tf.cond / tf.while_loop yourself.",
    page="tensor-vs-python/#if-on-a-tensor-one-trace-a-tfcond",
    check=check,
    found=(
        """
def magnitude(x):
    if x > 0:
        return x
    return -x
tf.function(magnitude, autograph=False)(tf.constant(3.0))
""",
        """
@tf.function(autograph=False, input_signature=[tf.TensorSpec([], tf.int32)])
def count(n):
    for i in tf.range(n):
        pass
    return n
""",
    ),
    clean=(
        """
@tf.function
def magnitude(x):
    if x > 0:
        return x
    return -x
magnitude(tf.constant(3.0))
""",
        # Python tests on static properties are fine without AutoGraph
        """
@tf.function(autograph=False, input_signature=[tf.TensorSpec([None], tf.float32)])
def first(x, default=None):
    if x.shape[0] is None or isinstance(x, tf.RaggedTensor):
        return x
    if default is None:
        return x
    return x
""",
    ),
)
