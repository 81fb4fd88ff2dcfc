"""TFL010: a new object passed to a tf.function on every iteration: one trace per object."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.context import Context
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.rule import Rule
from tf_retracing.lint.syntax import FUNCTION


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    for call, traced, ctx in facts.traced_calls():
        if traced.has_signature or not ctx.loops:
            continue
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            made = _new_object(facts, argument, ctx, traced.definition)
            if made is not None:
                yield (
                    argument,
                    f"a new {made} is passed to {traced.name}() on every iteration: "
                    "one trace per object",
                )


def _new_object(
    facts: ModuleFacts, argument: ast.AST, ctx: Context, definition: ast.AST | None
) -> str | None:
    """What new object ``argument`` is on each iteration: a construction in the argument
    itself, or a name the loop binds to one. Not one made in the same iteration as the
    tf.function itself: a new function traces anew anyway (TFL001), and the object adds
    no trace to it."""
    constructions = [argument]
    if isinstance(argument, ast.Name):
        constructions = facts.bound_in_the_same_loop(argument.id, ctx)
    for value in constructions:
        value_ctx = facts.contexts.get(id(value), ctx)
        if _made_with_the_function(facts, value_ctx, definition):
            continue
        made = _constructed_object(facts, value, value_ctx)
        if made is not None:
            return made
    return None


def _made_with_the_function(facts: ModuleFacts, ctx: Context, definition) -> bool:
    """Whether the loop iteration that makes the object also makes the tf.function."""
    if definition is None or not ctx.loops:
        return False
    defined = facts.contexts.get(id(definition))
    return defined is not None and defined.scope is ctx.scope and ctx.loops[-1] in defined.loops


def _constructed_object(facts: ModuleFacts, node: ast.AST, ctx: Context) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    if facts.builds_model(node, ctx):
        return "Keras model"
    if facts.is_keras_object_constructor(node.func):
        return f"{ast.unparse(node.func).split('.')[-1]} object"
    if isinstance(node.func, ast.Name):
        cls = facts.unique_class(node.func.id)
        if cls is not None and _keyed_by_identity(facts, cls):
            return f"{cls.name} object"
    return None


def _keyed_by_identity(facts: ModuleFacts, cls: ast.ClassDef) -> bool:
    """A class of the file whose new instances each make a new trace. tf.function keys an
    object of a hashable class through a weak reference: by identity, or by value while the
    traced instance lives, so a new object per iteration retraces either way. Only a class
    that compares by value and cannot be weakly referenced (``__slots__`` without
    ``__weakref__``, a dataclass with ``slots=True``) is keyed by its value alone; an
    unhashable one is refused with a TypeError (checked on TensorFlow 2.21)."""
    if any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
        return False  # a base class may define the tracing protocol
    members = _members(cls)
    if "__tf_tracing_type__" in members:
        return False
    options = _dataclass_options(facts, cls)
    by_value, hashable = _equality(members, options)
    if not hashable:
        return False  # refused with a TypeError instead of traced per object
    return not by_value or _weakly_referenceable(members, options)


def _members(cls: ast.ClassDef) -> dict[str, ast.AST]:
    """The names the class body defines, with what it binds them to."""
    members: dict[str, ast.AST] = {m.name: m for m in cls.body if isinstance(m, FUNCTION)}
    for m in cls.body:
        if isinstance(m, ast.Assign):
            members.update((t.id, m.value) for t in m.targets if isinstance(t, ast.Name))
    return members


def _equality(members: dict[str, ast.AST], options: dict[str, bool] | None) -> tuple[bool, bool]:
    """Whether instances compare by value, and whether they are hashable."""
    hash_member = members.get("__hash__")
    if isinstance(hash_member, ast.Constant) and hash_member.value is None:
        return True, False  # __hash__ = None
    if options is not None and "__eq__" not in members and hash_member is None:
        eq, frozen = options.get("eq", True), options.get("frozen", False)
        return eq, not eq or frozen or options.get("unsafe_hash", False)
    by_value = "__eq__" in members
    return by_value, hash_member is not None or not by_value


def _weakly_referenceable(members: dict[str, ast.AST], options: dict[str, bool] | None) -> bool:
    if options is not None and options.get("slots", False):
        return options.get("weakref_slot", False)
    slots = members.get("__slots__")
    if slots is None:
        return True
    names = slots.elts if isinstance(slots, ast.Tuple | ast.List | ast.Set) else [slots]
    return any(isinstance(n, ast.Constant) and n.value == "__weakref__" for n in names)


def _dataclass_options(facts: ModuleFacts, cls: ast.ClassDef) -> dict[str, bool] | None:
    for decorator in cls.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        if facts.qualified_name(func) == "dataclasses.dataclass":
            keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
            return {k.arg: bool(getattr(k.value, "value", False)) for k in keywords if k.arg}
    return None


RULE = Rule(
    code="TFL010",
    name="new-object-argument",
    summary="A new object (a plain class's instance, a Keras model or optimizer) passed to a "
    "tf.function in a loop.",
    fix="Create the object once outside the loop, or make it an ExtensionType "
    "(or give it __tf_tracing_type__).",
    page="causes/#custom-objects",
    check=check,
    found=(
        """
class Settings:
    def __init__(self, scale):
        self.scale = scale
@tf.function
def apply(settings, x):
    return x * settings.scale
for _ in range(3):
    apply(Settings(2.0), tf.ones([2]))
""",
        # __slots__ alone does not change the key: an object without __eq__ is its identity
        """
class Settings:
    __slots__ = ("scale",)
    def __init__(self, scale):
        self.scale = scale
@tf.function
def apply(settings, x):
    return x * settings.scale
for _ in range(3):
    apply(Settings(2.0), tf.ones([2]))
""",
        # a new model and optimizer per run, built by a factory of the file
        """
def build_model():
    return keras.Sequential([keras.layers.Dense(1)])
@tf.function
def train_step(model, optimizer, x):
    return model(x)
for run in range(3):
    model = build_model()
    optimizer = tf.keras.optimizers.Adam(1e-3)
    train_step(model, optimizer, tf.ones([2, 4]))
""",
    ),
    clean=(
        """
class Settings(tf.experimental.ExtensionType):
    scale: tf.Tensor
@tf.function
def apply(settings, x):
    return x * settings.scale
for _ in range(3):
    apply(Settings(tf.constant(2.0)), tf.ones([2]))
""",
        """
class Settings:
    def __init__(self, scale):
        self.scale = scale
    def __tf_tracing_type__(self, context):
        return ScaleType(self.scale)
@tf.function
def apply(settings, x):
    return x * settings.scale
settings = Settings(2.0)
for _ in range(3):
    apply(settings, tf.ones([2]))
    apply(Settings(2.0), tf.ones([2]))
""",
        # __eq__ without __hash__: refused with a TypeError, not traced per object
        """
class Settings:
    def __eq__(self, other):
        return True
@tf.function
def apply(settings, x):
    return x
for _ in range(3):
    apply(Settings(), tf.ones([2]))
""",
        # compared by value and not weakly referenceable: keyed by its value alone
        """
import dataclasses
@dataclasses.dataclass(frozen=True, slots=True)
class Settings:
    scale: float
@tf.function
def apply(settings, x):
    return x * settings.scale
for _ in range(3):
    apply(Settings(2.0), tf.ones([2]))
""",
        # the model and the optimizer are built once, before the loop
        """
model = keras.Sequential([keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam()
@tf.function
def train_step(model, optimizer, x):
    return model(x)
for batch in batches:
    train_step(model, optimizer, batch)
""",
    ),
)
