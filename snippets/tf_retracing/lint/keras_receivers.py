"""Keras models in one file: which receivers are Keras models, where models are built,
and which are trained. Shared by the rules about predict and about models per call."""

from __future__ import annotations

import ast
import re

from tf_retracing.lint.context import Context
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.model_aliases import alias_sources, aliases_models

PREDICT_METHODS = frozenset({"predict", "predict_on_batch"})
# What a model built anew is used for, each use tracing its own function.
INFERENCE_METHODS = PREDICT_METHODS | {"evaluate", "test_on_batch"}
FITTING_METHODS = frozenset({"fit", "train_on_batch", "fit_generator"})
# compile() too starts new functions: a predict after it is expected to trace.
TRAINING_METHODS = FITTING_METHODS | {"compile"}
# Libraries whose estimators or models also have .predict: a file that imports one is not
# guessed at (the Object Detection API's models take predict(images, shapes) inside a
# tf.function by design).
_OTHER_PREDICTORS = (
    "sklearn",
    "xgboost",
    "lightgbm",
    "catboost",
    "statsmodels",
    "torch",
    "object_detection",
    "tensorflow_federated",  # its models' predict_on_batch runs inside a tf.function
)
_NOT_KERAS = frozenset({*_OTHER_PREDICTORS, "joblib", "pickle", "onnxruntime", "tflite_runtime"})
_KERAS_MODULES = frozenset({"tensorflow", "keras", "tf_keras"})  # their names are APIs, not models
# A call whose name says it makes or loads a model (``build_transformer_model``,
# ``DeepFace.build_model``, ``loadModel``): what a wrapper library around Keras returns.
_MODEL_MAKER = re.compile(r"^(?:build|load|create|make|get|init|restore|construct)_?\w*model$")
_CALLBACK_BASES = frozenset(
    f"{keras}.callbacks.Callback" for keras in ("keras", "tensorflow.keras", "tf_keras")
)


def model_construction(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> ast.AST | None:
    """The call that built the model ``receiver`` names, when it is built where ``ctx``
    runs: in the same loop, or in the same function when that function runs repeatedly."""
    return next(iter(model_constructions(facts, receiver, ctx)), None)


def model_constructions(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> list[ast.AST]:
    """Every call that builds the model ``receiver`` names where ``ctx`` runs (one per
    branch: ``load_model`` if a file exists, else a new ``Sequential``)."""
    if facts.builds_model(receiver, ctx):
        return [receiver]
    if not isinstance(receiver, ast.Name):
        return []
    if ctx.loops:
        candidates = facts.bound_in_the_same_loop(receiver.id, ctx)
    else:  # a function that runs repeatedly: built in its body, outside loops
        candidates = [
            value
            for value in ctx.scope.bindings.get(receiver.id, [])
            if id(value) in facts.contexts and not facts.contexts[id(value)].loops
        ]
    return [
        value
        for value in candidates
        if (value_ctx := facts.contexts.get(id(value))) is not None
        and facts.builds_model(value, value_ctx)
    ]


def trained_in_scope(
    facts: ModuleFacts,
    receiver: ast.AST,
    ctx: Context,
    methods=TRAINING_METHODS,
    built: ast.AST | None = None,
) -> bool:
    """``receiver.fit(...)`` (or another of ``methods``) where ``ctx`` runs: in the loop
    around it (compiling once before the loop does not count), else in its function; with
    ``built``, not in the other branch of an ``if`` that builds the model there."""
    # ``m = model`` in the loop: fitting ``model`` trains what ``m`` predicts with
    texts = {ast.unparse(r) for r in [receiver, *(alias_sources(facts, receiver, ctx) or [])]}
    outer = ctx.loops[0] if ctx.loops else None
    return any(
        isinstance(call.func, ast.Attribute)
        and call.func.attr in methods
        and ast.unparse(call.func.value) in texts
        and (outer is None or outer in facts.context(call).loops)
        and not (built is not None and _exclusive(facts, built, call))
        for call in ctx.scope.calls
    )


def _exclusive(facts: ModuleFacts, first: ast.AST, second: ast.AST) -> bool:
    """``first`` and ``second`` lie in the two branches of one ``if``: never both run."""
    node = first
    while (parent := facts.parent(node)) is not None:
        if isinstance(parent, ast.If):
            if _holds(parent.body, first) and _holds(parent.orelse, second):
                return True
            if _holds(parent.orelse, first) and _holds(parent.body, second):
                return True
        node = parent
    return False


def _holds(statements: list[ast.stmt], node: ast.AST) -> bool:
    return any(inner is node for statement in statements for inner in ast.walk(statement))


def is_keras_model(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """Built by Keras in this file, Keras's ``self.model`` in a callback, a name that only
    stands for such a model (``net = self.net``), or named like a model in a file that uses
    no other library with ``predict`` and never binds the name to something that is not a
    Keras model."""
    if facts.builds_model(receiver, ctx):
        return True
    if _callback_model(facts, receiver, ctx):
        return True
    if _self_attribute_models(facts, receiver, ctx):
        return True
    if _used_as_a_model(facts, receiver, ctx) or _bound_to_built_models(facts, receiver, ctx):
        return True
    if _passed_models(facts, receiver, ctx) or _annotated_model(facts, receiver, ctx):
        return True
    if _instance_attribute_models(facts, receiver, ctx):
        return True
    if aliases_models(facts, receiver, ctx, is_keras_model):
        return True
    if not facts.relevant:
        return False  # a name alone says nothing in a file that shows no TensorFlow or Keras
    return _named_like_a_model(facts, receiver, ctx)


def predicts_like_a_keras_model(facts: ModuleFacts, call: ast.Call, ctx: Context) -> bool:
    """``receiver.predict(x)`` on a Keras model (``is_keras_model``), or, in a file that
    shows no TensorFlow or Keras, on a receiver named like a model and given an input of
    three or more dimensions (``X[:, : i + 1, :]``, ``np.zeros((1, maxlen, chars))``) or
    Keras's own options (``verbose=0``, ``batch_size=32``): scikit-learn's estimators, and
    the other libraries' that predict from a table, take neither."""
    receiver = call.func.value
    if is_keras_model(facts, receiver, ctx):
        return True
    if facts.relevant:
        return False
    keras_options = any(k.arg in _KERAS_PREDICT_OPTIONS for k in call.keywords)
    deep = bool(call.args) and _least_dimensions(facts, call.args[0], ctx) >= 3
    return (keras_options or deep) and _named_like_a_model(facts, receiver, ctx)


# Options of Keras's predict that scikit-learn's (and XGBoost's, LightGBM's) do not take.
_KERAS_PREDICT_OPTIONS = frozenset({"batch_size", "verbose"})


# NumPy's constructors whose first argument is the shape.
_SHAPED = frozenset(f"numpy.{n}" for n in ("zeros", "ones", "empty", "full"))


def _least_dimensions(facts: ModuleFacts, value: ast.AST, ctx: Context, depth: int = 2) -> int:
    """How many dimensions an array has at least, as the source shows: one per slice or new
    axis of ``x[:, : i + 1, :]`` (an integer index drops one, ``...`` may stand for none),
    the shape given to ``np.zeros`` or ``reshape``, or the least of what a name is bound
    to. 0 when unknown."""
    if isinstance(value, ast.Name):
        values = facts.values_of(value.id, ctx) if depth else []
        found = [_least_dimensions(facts, v, ctx, depth - 1) for v in values]
        return min(found, default=0)
    if isinstance(value, ast.Subscript):
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        return sum(
            isinstance(part, ast.Slice) or (isinstance(part, ast.Constant) and part.value is None)
            for part in parts
        )
    if not isinstance(value, ast.Call):
        return 0
    if keeps_shape(facts, value) and value.args and depth:
        return _least_dimensions(facts, value.args[0], ctx, depth - 1)
    if facts.qualified_name(value.func) in _SHAPED and value.args:
        return _shape_length(value.args[0])
    if getattr(value.func, "attr", None) == "reshape":
        shape = value.args[1:] if facts.qualified_name(value.func) == "numpy.reshape" else None
        shape = value.args if shape is None else shape
        return _shape_length(shape[0]) if len(shape) == 1 else len(shape)
    return 0


# Conversions whose result has the shape of what they are given (at least its dimensions:
# expand_dims adds one), ``convert_to_tensor(x[:, : i + 1, :])``.
SAME_SHAPE = frozenset(
    {
        "tensorflow.constant",
        "tensorflow.convert_to_tensor",
        "tensorflow.cast",
        "numpy.asarray",
        "numpy.array",
        "numpy.float32",
        "numpy.expand_dims",
        "tensorflow.expand_dims",
    }
)
_SAME_SHAPE_NAMES = frozenset(name.rsplit(".", 1)[1] for name in SAME_SHAPE)


def keeps_shape(facts: ModuleFacts, call: ast.Call) -> bool:
    """A conversion of ``SAME_SHAPE``, also called by its bare name in a file that never
    binds that name (a notebook's snippet, its import in another cell)."""
    if facts.qualified_name(call.func) in SAME_SHAPE:
        return True
    func = call.func
    return (
        isinstance(func, ast.Name)
        and not facts.binding_counts[func.id]
        and func.id in _SAME_SHAPE_NAMES
    )


def _shape_length(shape: ast.AST) -> int:
    return len(shape.elts) if isinstance(shape, ast.Tuple | ast.List) else 0


def _named_like_a_model(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """Named like a model, in a file that uses no other library with ``predict``, defines
    no such class, and never binds the name to something that is not a Keras model."""
    name = receiver.id if isinstance(receiver, ast.Name) else getattr(receiver, "attr", None)
    if name is None or "model" not in name.lower():
        return False
    if any(facts.imports(other) for other in _OTHER_PREDICTORS) or facts.derived(_own_predictor):
        return False
    if isinstance(receiver, ast.Name):
        return facts.about_name(
            "may be a model", receiver.id, ctx, lambda values: _all_may_be_models(facts, values)
        )
    return _all_may_be_models(facts, _attribute_values(facts, receiver, ctx))


# Methods only a Keras model (of the names' values seen in real code) is used with.
_MODEL_ONLY_METHODS = frozenset(
    {"load_weights", "save_weights", "compile", "fit", "train_on_batch", "fit_generator"}
)


def _bound_to_built_models(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """``classifier = load_model(path)``: a name, however it is called, bound only to
    models that Keras or the file's own code builds."""
    if not isinstance(receiver, ast.Name):
        return False

    def all_built(values: list[ast.AST]) -> bool:
        return bool(values) and all(
            id(value) in facts.contexts
            and (
                facts.builds_model(value, facts.contexts[id(value)])
                or named_model_maker(facts, value)
            )
            for value in values
        )

    return facts.about_name("bound to built models", receiver.id, ctx, all_built)


def named_model_maker(facts: ModuleFacts, value: ast.AST) -> bool:
    """A call of a function the file does not define, named as one that builds or loads a
    model (``build_transformer_model(...)``, ``DeepFace.build_model(...)``), in a file that
    uses no other library with ``predict``."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name is None or not _MODEL_MAKER.match(name.lower()):
        return False
    if isinstance(func, ast.Name) and facts.definitions.get(func.id):
        return False  # the file's own function: what it returns decides (builds_model)
    if isinstance(func, ast.Attribute) and not isinstance(func.value, ast.Name | ast.Attribute):
        return False
    if isinstance(func, ast.Attribute) and func.value is not None:
        root = func.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in ("self", "cls"):
            return False  # the file's own method
    qualified = facts.qualified_name(func) or ""
    if qualified.split(".")[0] in _NOT_KERAS:
        return False
    if not facts.relevant and not (qualified and name.lower().startswith(("build", "load"))):
        return False  # in a file that shows no Keras: only an imported builder or loader
    return not any(facts.imports(other) for other in _OTHER_PREDICTORS)


def _used_as_a_model(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """``yolo = YoloV3(...)`` (or ``self.actor = Actor(...)``) from an imported
    constructor whose name says nothing, and ``yolo.load_weights(...)`` (or compile, fit)
    on it somewhere in the file: a Keras model."""
    if any(facts.imports(other) for other in _OTHER_PREDICTORS):
        return False
    if isinstance(receiver, ast.Name):
        imported = facts.about_name(
            "built by an imported constructor",
            receiver.id,
            ctx,
            lambda values: bool(values) and all(imported_call(facts, v) for v in values),
        ) or _imported_object(facts, receiver.id, ctx)
    elif ctx.class_ is not None and _self_attribute(receiver):
        values = facts.self_attribute_values(ctx.class_, receiver.attr)
        imported = bool(values) and all(imported_call(facts, v) for v in values)
    else:
        return False
    return imported and _model_methods_called(facts, receiver, ctx)


def _imported_object(facts: ModuleFacts, name: str, ctx: Context) -> bool:
    """``from models import model``: an object another module of the project made, never
    bound in this file (a model a wrapper library or the project's own module builds)."""
    if facts.values_of(name, ctx):
        return False
    qualified = facts.aliases.get(name, "")
    return "." in qualified and qualified.split(".")[0] not in _NOT_KERAS | _KERAS_MODULES


def _self_attribute(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def imported_call(facts: ModuleFacts, value: ast.AST) -> bool:
    """A call of something the file imports (not one of its classes), from a library not
    known for other models with ``predict``."""
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name) and facts.unique_class(value.func.id) is not None:
        return False  # a class of the file: its own bases decide
    name = facts.qualified_name(value.func)
    return name is not None and name.split(".")[0] not in _NOT_KERAS


def _model_methods_called(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """load_weights, compile or fit called on the same name (in the same class, for an
    attribute of ``self``)."""
    return _receiver_key(receiver, ctx) in facts.derived(_model_method_receivers)


def _model_method_receivers(facts: ModuleFacts) -> set[tuple]:
    # ``fit`` is scikit-learn's too: in a file that shows no TensorFlow or Keras, only the
    # methods no other library's estimators have count.
    methods = _MODEL_ONLY_METHODS if facts.relevant else _MODEL_ONLY_METHODS - {"fit"}
    return {
        _receiver_key(call.func.value, call_ctx)
        for call, call_ctx in facts.calls
        if isinstance(call.func, ast.Attribute) and call.func.attr in methods
    }


def _receiver_key(receiver: ast.AST, ctx: Context) -> tuple:
    owner = id(ctx.class_) if _self_attribute(receiver) else None
    return owner, ast.unparse(receiver)


def _self_attribute_models(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """``self.pnet``, which the class's methods only ever set to a model they build, or to
    a parameter that is one (annotated as a Keras model, or given one by every call)."""
    values = _set_values(_attribute_values(facts, receiver, ctx))
    return bool(values) and all(
        facts.builds_model(value, facts.contexts.get(id(value), ctx))
        or named_model_maker(facts, value)
        or _model_parameter(facts, value)
        for value in values
    )


def _model_parameter(facts: ModuleFacts, value: ast.AST) -> bool:
    value_ctx = facts.contexts.get(id(value))
    return (
        isinstance(value, ast.Name)
        and value_ctx is not None
        and (_annotated_model(facts, value, value_ctx) or _passed_models(facts, value, value_ctx))
    )


def models_built_by_init(facts: ModuleFacts, cls: ast.ClassDef) -> set[str]:
    """The attributes ``__init__`` sets to a model it builds (``self.rnet = keras.Model``)."""
    init = facts.method(cls, "__init__")
    if init is None:
        return set()
    scope = facts.scope_of(init)
    return {
        attribute
        for attribute, values in facts.self_attributes(cls).items()
        if any(
            facts.contexts.get(id(value)) is not None
            and facts.contexts[id(value)].scope is scope
            and facts.builds_model(value, facts.contexts[id(value)])
            for value in values
        )
    }


def _own_predictor(facts: ModuleFacts) -> bool:
    """The file defines a class with a ``predict`` method that is not a Keras model: a
    name like ``model`` may well be one of those. (Once per module: ``facts.derived``.)"""
    return any(
        facts.method(cls, "predict") is not None and not facts.is_keras_model_class(cls)
        for classes in facts.classes.values()
        for cls in classes
    )


def _all_may_be_models(facts: ModuleFacts, values: list[ast.AST]) -> bool:
    return all(_may_be_model(facts, value) for value in values)


def _may_be_model(facts: ModuleFacts, value: ast.AST) -> bool:
    """A value bound to the name: a call of something known not to be a Keras model rules
    the name out (a class of the file that is not a keras.Model, another library)."""
    if not isinstance(value, ast.Call):
        return True
    value_ctx = facts.contexts.get(id(value))
    if value_ctx is not None and facts.builds_model(value, value_ctx):
        return True
    if isinstance(value.func, ast.Name):
        cls = facts.unique_class(value.func.id)
        if cls is not None:
            return False  # a class of the file that is not a Keras model
    name = facts.qualified_name(value.func)
    # another library's estimator, or one unpickled: not a Keras model; a class imported
    # from the project's own modules may well be one (class VGG16(keras.Model))
    return name is None or name.split(".")[0] not in _NOT_KERAS


def _attribute_values(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> list[ast.AST]:
    """What ``self.model = ...`` (or ``Predictor.model = ...``, through the class's own
    name) assigns in the class's methods."""
    if not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)):
        return []
    if ctx.class_ is None or receiver.value.id not in ("self", ctx.class_.name):
        return []
    return facts.self_attribute_values(ctx.class_, receiver.attr)


def _annotated_model(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """``def __init__(self, base_classifier: tf.keras.Model)``: a parameter whose annotation
    names a Keras model class (Keras's own or the file's subclass), ``Optional`` or not."""
    if not isinstance(receiver, ast.Name):
        return False
    scope = facts.binding_scope(receiver.id, ctx)
    function = scope.function if scope is not None else None
    if function is None or scope.bindings.get(receiver.id) != [function.args]:
        return False  # not a parameter, or also bound in the body
    arguments = function.args
    parameters = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
    parameter = next((p for p in parameters if p.arg == receiver.id), None)
    return parameter is not None and _names_a_model_class(facts, parameter.annotation)


def _names_a_model_class(facts: ModuleFacts, annotation: ast.AST | None) -> bool:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:  # a quoted annotation: "tf.keras.Model"
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [annotation.left, annotation.right]  # tf.keras.Model | None
        named = [side for side in sides if not _is_none(side)]
        return len(named) == 1 and _names_a_model_class(facts, named[0])
    if isinstance(annotation, ast.Subscript):  # Optional[Model], Union[Model, None]
        kind = _typing_name(facts, annotation.value)
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
        named = [part for part in parts if not _is_none(part)]
        if kind == "Union" and len(named) == 1:
            return _names_a_model_class(facts, named[0])
        return kind == "Optional" and _names_a_model_class(facts, annotation.slice)
    own = facts.unique_class(annotation.id) if isinstance(annotation, ast.Name) else None
    if own is not None:  # a class of the file: a keras.Model subclass or not
        return facts.is_keras_model_class(own)
    return annotation is not None and facts.is_model_factory(annotation)


def _typing_name(facts: ModuleFacts, node: ast.AST) -> str | None:
    """``Optional`` or ``Union`` for typing's (``typing.Optional``, or the bare name)."""
    name = facts.qualified_name(node) or (node.id if isinstance(node, ast.Name) else "")
    short = name.removeprefix("typing.")
    return short if short in ("Optional", "Union") else None


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _set_values(values: list[ast.AST]) -> list[ast.AST]:
    """What an attribute is set to besides ``None``: ``self.autoencoder = None`` in a
    method, then a model in another, still holds only models whenever ``predict`` can run."""
    return [value for value in values if not _is_none(value)]


# How many attributes deep ``vae.decoder`` (an attribute of an instance) is followed.
_ATTRIBUTE_DEPTH = 2


def _instance_attribute_models(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """``vae.decoder``, where ``vae`` is an instance of the file's class (built there, or
    passed to a parameter by every call) whose methods only ever set ``self.decoder`` to
    Keras models (``self.decoder = decoder``, the model its constructor is given)."""
    if not isinstance(receiver, ast.Attribute) or _self_attribute(receiver):
        return False
    guard: set = facts.__dict__.setdefault("_instance_attributes", set())
    if id(receiver) in guard or len(guard) >= _ATTRIBUTE_DEPTH:
        return False
    guard.add(id(receiver))
    try:
        cls = facts.instance_class(receiver.value, ctx)
        values = facts.self_attribute_values(cls, receiver.attr) if cls is not None else []
        values = _set_values(values)
        return bool(values) and all(
            id(value) in facts.contexts and is_keras_model(facts, value, facts.context(value))
            for value in values
        )
    finally:
        guard.discard(id(receiver))


def _callback_model(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """``self.model`` in a keras.callbacks.Callback: Keras sets it to the model trained."""
    if not (
        isinstance(receiver, ast.Attribute)
        and receiver.attr == "model"
        and isinstance(receiver.value, ast.Name)
        and receiver.value.id == "self"
        and ctx.class_ is not None
    ):
        return False
    return any(name in _CALLBACK_BASES for name in facts.base_names(ctx.class_))


# How many parameters deep a model handed from function to function is followed.
_PASSING_DEPTH = 3


def _passed_models(facts: ModuleFacts, receiver: ast.AST, ctx: Context) -> bool:
    """``def generate(net, seed): ... net.predict(...)`` (or ``encoder, decoder = models``
    in it): a parameter, or a part unpacked from one, to which every call of the function
    in the file passes a Keras model (and the function is not handed on elsewhere)."""
    if not isinstance(receiver, ast.Name):
        return False
    scope = facts.binding_scope(receiver.id, ctx)
    guard: set = facts.__dict__.setdefault("_passing_models", set())
    key = (id(scope), receiver.id)
    if scope is None or key in guard or len(guard) >= _PASSING_DEPTH:
        return False
    guard.add(key)
    try:
        passed = facts.passed_arguments(receiver.id, scope)
        return bool(passed) and all(is_keras_model(facts, arg, arg_ctx) for arg, arg_ctx in passed)
    finally:
        guard.discard(key)
