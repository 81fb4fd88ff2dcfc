"""TFL005: a tf.Variable created unconditionally in the body of a tf.function."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.bodies import bodies
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.rule import Rule

_VARIABLE = frozenset(
    {"tensorflow.Variable", "tensorflow.compat.v2.Variable", "tensorflow.compat.v1.Variable"}
)


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    traced_bodies = bodies(facts)
    for traced in traced_bodies.functions:
        for node, ctx in traced_bodies.nodes(traced):
            if (
                isinstance(node, ast.Call)
                and facts.qualified_name(node.func) in _VARIABLE
                and not ctx.conditional
            ):
                yield (
                    node,
                    f"tf.Variable created on every trace of {traced.name}(): it fails on the "
                    "first call",
                )


RULE = Rule(
    code="TFL005",
    name="variable-in-function",
    summary="A tf.Variable created unconditionally in the body of a tf.function.",
    fix="Create the variable once, outside the function (or only when it does not exist yet).",
    page="claims-checked/#variables",
    check=check,
    found=(
        """
@tf.function
def make_and_use(x):
    weight = tf.Variable(2.0)
    return x * weight
""",
        # a name defined again (a notebook exported as a script): each body is read
        """
@tf.function
def f(x):
    tf.print(x)

@tf.function
def f(x):
    v = tf.Variable(1.0)
    return v
""",
    ),
    clean=(
        # a comprehension in the body (its for clause is read with the body's context)
        """
@tf.function
def scaled(xs):
    return [x * 2.0 for x in xs if x is not None]
""",
        """
weight = tf.Variable(2.0)
@tf.function
def use(x):
    return x * weight
""",
        """
class Scale(tf.Module):
    def __init__(self):
        self.weight = None
    @tf.function
    def __call__(self, x):
        if self.weight is None:
            self.weight = tf.Variable(2.0)
        return x * self.weight
""",
    ),
)
