"""Keras models a module builds: Keras's constructors and loaders, subclasses of
``keras.Model`` of the file, and functions of the file that return a new model. Part of
``ModuleFacts``."""

from __future__ import annotations

import ast

from tf_retracing.lint.context import Context
from tf_retracing.lint.syntax import FUNCTION

KERAS = ("keras", "tensorflow.keras", "tf_keras")
_MODEL_FACTORIES = frozenset(
    f"{keras}.{name}"
    for keras in KERAS
    for name in (
        "Sequential",
        "Model",
        "models.Sequential",
        "models.Model",
        "models.load_model",
        "saving.load_model",
        "models.clone_model",
    )
)
# keras.applications.ResNet50, keras.applications.resnet50.ResNet50...: a class-like name
# under it builds a model (its lowercase functions preprocess or decode).
_APPLICATIONS = tuple(f"{keras}.applications." for keras in KERAS)
# Keras objects whose every new instance is a new key for tf.function (no tracing protocol).
_KERAS_OBJECT_MODULES = ("optimizers.", "layers.", "models.", "losses.", "metrics.")


class ModelFacts:
    """The Keras part of ``ModuleFacts`` (it reads the pass's records)."""

    def is_keras_model_class(self, cls: ast.ClassDef, seen: frozenset[int] = frozenset()) -> bool:
        """A subclass of keras.Model (or Sequential), directly or through the file's classes."""
        for base in cls.bases:
            name = self.qualified_name(base)
            if name is not None and name in _MODEL_FACTORIES:
                return True
            local = self.unique_class(base.id) if isinstance(base, ast.Name) else None
            if (
                local is not None
                and id(local) not in seen
                and self.is_keras_model_class(local, seen | {id(cls)})
            ):
                return True
        return False

    def is_model_factory(self, node: ast.AST) -> bool:
        name = self.qualified_name(node) or ""
        if name.startswith(_APPLICATIONS):
            return name.rsplit(".", 1)[-1][:1].isupper()
        return name in _MODEL_FACTORIES

    def is_keras_object_constructor(self, node: ast.AST) -> bool:
        """``keras.optimizers.Adam``, ``tf.keras.layers.Dense``...: a Keras class."""
        name = self.qualified_name(node) or ""
        for keras in KERAS:
            if name.startswith(keras + "."):
                rest = name[len(keras) + 1 :]
                last = rest.rsplit(".", 1)[-1]
                return last[:1].isupper() and (
                    rest.startswith(_KERAS_OBJECT_MODULES) or name in _MODEL_FACTORIES
                )
        return False

    def builds_model(self, node: ast.AST, ctx: Context, depth: int = 0) -> bool:
        """A call that returns a new Keras model: Keras's constructors and loaders, a
        subclass of keras.Model of the file, or a function of the file that returns one."""
        if not isinstance(node, ast.Call):
            return False
        if self.is_model_factory(node.func):
            return True
        if isinstance(node.func, ast.Name):
            cls = self.unique_class(node.func.id)
            if cls is not None:
                return self.is_keras_model_class(cls)
            if _functional_model_call(node):
                return True
        target = self.called_function(node, ctx)
        return target is not None and self._returns_new_model(target, depth)

    def _returns_new_model(self, function: ast.AST, depth: int) -> bool:
        if depth > 3 or not isinstance(function, FUNCTION) or self.is_memoized(function):
            return False
        cache = self.__dict__.setdefault("_builder_cache", {})
        if id(function) not in cache:
            cache[id(function)] = False  # a recursive builder is not followed
            scope = self.scopes[id(function)]
            inner = Context(scope)
            cache[id(function)] = any(
                self.builds_model(value, inner, depth + 1)
                or (
                    isinstance(value, ast.Name)
                    and any(
                        self.builds_model(v, inner, depth + 1)
                        for v in scope.bindings.get(value.id, [])
                    )
                )
                for value in scope.returns
            )
        return cache[id(function)]


def _functional_model_call(node: ast.Call) -> bool:
    """``Model(inputs=x, outputs=y)``: Keras's functional constructor, known by its two
    keywords also where nothing imports it (a snippet, or a wrapper library's re-export)."""
    keywords = {keyword.arg for keyword in node.keywords}
    return (
        isinstance(node.func, ast.Name)
        and node.func.id == "Model"
        and {"inputs", "outputs"} <= keywords
    )
