"""TFL009: a float64 NumPy array passed to a tf.function that otherwise gets float32."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.bodies import bodies
from tf_retracing.lint.context import Context
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.rule import Rule

# NumPy constructors whose result is float64 unless given a dtype, by how they take one.
_FLOAT64_ALWAYS = frozenset(
    f"numpy.random.{name}"
    for name in ("rand", "randn", "random", "random_sample", "uniform", "normal", "standard_normal")
)
_FLOAT64_UNLESS_DTYPE = {  # name -> position of the dtype argument
    "numpy.zeros": 1,
    "numpy.ones": 1,
    "numpy.empty": 1,
    "numpy.eye": 3,
    "numpy.identity": 1,
    "numpy.linspace": 5,
}


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    traced_bodies = bodies(facts)
    for call, traced, ctx in facts.traced_calls():
        if traced.has_signature or traced.definition is None or traced.shifted:
            continue  # a signature converts the array to its dtype
        arguments = [*enumerate(call.args), *((k.arg, k.value) for k in call.keywords)]
        for where, argument in arguments:
            made = float64_construction(facts, argument, ctx)
            if made is not None and traced_bodies.takes_float32(traced, where):
                yield (
                    argument,
                    f"{made} makes a float64 array (NumPy's default) for {traced.name}(): "
                    "a float64 trace beside the float32 one",
                )


def float64_construction(facts: ModuleFacts, node: ast.AST, ctx: Context) -> str | None:
    """How ``node`` makes a float64 NumPy array without asking for it, if it does: directly,
    or through a name every binding of which does."""
    if isinstance(node, ast.Name):
        return facts.about_name("float64", node.id, ctx, lambda values: _all_made(facts, values))
    return _constructed(facts, node)


def _all_made(facts: ModuleFacts, values: list[ast.AST]) -> str | None:
    made = [_constructed(facts, v) for v in values]
    return made[0] if made and all(made) else None


def _constructed(facts: ModuleFacts, node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    name = facts.qualified_name(node.func) or ""
    keywords = {k.arg for k in node.keywords}
    short = "np." + name.removeprefix("numpy.")
    if name in _FLOAT64_ALWAYS:
        return f"{short}()"
    if "dtype" in keywords:
        return None
    if name in _FLOAT64_UNLESS_DTYPE and len(node.args) <= _FLOAT64_UNLESS_DTYPE[name]:
        return f"{short}()"
    if name in {"numpy.array", "numpy.asarray"} and len(node.args) == 1:
        literal = node.args[0]
        if isinstance(literal, ast.List | ast.Tuple) and any(
            isinstance(n, ast.Constant) and isinstance(n.value, float) for n in ast.walk(literal)
        ):
            return f"{short}() of Python floats"
    if name == "numpy.full" and len(node.args) == 2:
        fill = node.args[1]
        if isinstance(fill, ast.Constant) and isinstance(fill.value, float):
            return f"{short}() with a float"
    floats = [a for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, float)]
    if name == "numpy.arange" and len(node.args) <= 3 and floats:
        return f"{short}() of floats"
    return None


RULE = Rule(
    code="TFL009",
    name="numpy-float64-argument",
    summary="A NumPy array with the default float64 dtype passed where a float32 value is too.",
    fix="Give NumPy a dtype (dtype=np.float32), or cast once at the boundary with tf.cast.",
    page="causes/#new-dtypes",
    check=check,
    found=(
        """
@tf.function
def scaled(x):
    return x * 2
scaled(tf.constant([1.0, 2.0]))
scaled(np.array([1.0, 2.0]))
""",
        """
@tf.function
def scaled(x):
    return tf.cast(x, tf.float32) * 2
features = np.random.rand(8, 4)
scaled(features)
""",
    ),
    clean=(
        """
@tf.function
def scaled(x):
    return x * 2
scaled(tf.constant([1.0, 2.0]))
scaled(np.array([1.0, 2.0], dtype=np.float32))
scaled(tf.cast(np.zeros(3), tf.float32))
""",
        # float64 throughout: one trace, nothing to mix with
        """
@tf.function
def scaled(x):
    return x * 2
scaled(np.zeros(3))
""",
        # a name bound in a cycle is not followed forever
        """
@tf.function
def scaled(x):
    return x * 2
a = b
b = a
scaled(a)
""",
    ),
)
