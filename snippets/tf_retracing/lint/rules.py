"""The rules of the retracing linter: each a stable identifier, a name, a link to the guide
section that explains the cause and its fix, and a check over one parsed module.

Precision comes first: every check fires only where the hazard is certain from the source
alone (a loop counter passed to a ``tf.function`` defined in the same file, not any name
that might be an int). What a check cannot see, it leaves alone; the rule's ``limits``
says what that is.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tf_retracing.lint.model import (
    Context,
    ModuleModel,
    TracedFunction,
    free_names,
    is_python_number,
    numpy_float64_construction,
)

GUIDE = "guide/"


@dataclass(frozen=True)
class Rule:
    code: str  # stable: never renumbered, never reused
    name: str
    summary: str  # what it catches, one line
    fix: str  # one line
    page: str  # the guide page and anchor that explain the cause and the fix
    check: Callable[[ModuleModel], Iterator[tuple[ast.AST, str]]]


# --- TFL001: a new tf.function per iteration or per call ---


def _function_per_call(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for creation in model.function_creations:
        ctx = creation.context
        if not creation.called_where_created:
            continue  # stored or returned: a factory, called elsewhere (maybe once)
        # What changes between two creations: per iteration, the names the loop binds;
        # per call of the enclosing function, its parameters.
        varying = ctx.names_bound_per_iteration() if ctx.loops else ctx.enclosing_parameters()
        if free_names(creation.wrapped) & varying:
            continue  # closes over what changes: a different graph each time, on purpose
        if ctx.loops:
            yield creation.node, "a new tf.function is created and called on every iteration"
        elif ctx.function is not None and model.called_in_a_loop(ctx.function):
            yield (
                creation.node,
                f"a new tf.function is created and called on every call of "
                f"{ctx.function.name}(), which is called in a loop",
            )


# --- TFL002: a Keras model built for each prediction ---


def _model_per_prediction(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for built in model.models_built_in_loops():
        yield built, "a new Keras model is built and predicted with on every iteration"


# --- TFL003: a Python number that changes passed to a tf.function ---


def _python_number_argument(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for call, traced, ctx in model.traced_calls():
        if traced.has_signature or not ctx.loops:
            continue
        counters = ctx.loop_counters()
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            if is_python_number(argument, counters):
                yield (
                    argument,
                    f"a Python number that changes every iteration is passed to "
                    f"{traced.name}(): one trace per value",
                )


# --- TFL004: model.predict per batch in a loop ---


def _predict_in_loop(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for call in model.predicts_in_loops():
        yield call, "model.predict in a loop: each call sets up a data iterator and callbacks"


# --- TFL005: a variable created in a tf.function's body ---


def _variable_in_function(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for traced in model.traced_bodies():
        for node, ctx in traced.body_nodes():
            if (
                isinstance(node, ast.Call)
                and model.resolves_to(node.func, "variable")
                and not ctx.conditional
            ):
                yield (
                    node,
                    f"tf.Variable created on every trace of {traced.name}(): it fails on the "
                    "first call",
                )


# --- TFL006: model.predict inside a tf.function ---


def _predict_in_function(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for traced in model.traced_bodies():
        for node, _ in traced.body_nodes():
            if isinstance(node, ast.Call) and model.is_keras_predict(node):
                yield (
                    node,
                    f"model.{node.func.attr} inside {traced.name}(), a tf.function: it fails "
                    "while tracing",
                )


# --- TFL007: .numpy() on a tensor inside a tf.function ---


def _numpy_in_function(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for traced in model.traced_bodies():
        for node, _ in traced.body_nodes():
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "numpy"
                and not node.args
                and not node.keywords
                and traced.is_graph_value(node.func.value)
            ):
                yield node, f".numpy() on a graph tensor inside {traced.name}(), a tf.function"


# --- TFL008: Python control flow over a tensor with AutoGraph off ---


def _tensor_condition_without_autograph(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for traced in model.traced_bodies():
        if traced.autograph:
            continue
        for node, _ in traced.body_nodes():
            if isinstance(node, ast.If | ast.While | ast.IfExp) and traced.is_tensor_expression(
                node.test
            ):
                yield (
                    node,
                    f"Python `{_keyword(node)}` on a tensor in {traced.name}(), traced with "
                    "autograph=False",
                )
            elif isinstance(node, ast.For) and traced.is_tensor_expression(node.iter):
                yield (
                    node,
                    f"Python `for` over a tensor in {traced.name}(), traced with autograph=False",
                )


def _keyword(node: ast.AST) -> str:
    return "while" if isinstance(node, ast.While) else "if"


# --- TFL009: a float64 NumPy array passed to a tf.function ---


def _numpy_float64_argument(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for call, traced, ctx in model.traced_calls():
        if traced.has_signature:
            continue  # a signature converts the array to its dtype
        arguments = [*enumerate(call.args), *((k.arg, k.value) for k in call.keywords)]
        for where, argument in arguments:
            made = numpy_float64_construction(model, argument, ctx)
            if made is not None and traced.takes_float32(where):
                yield (
                    argument,
                    f"{made} makes a float64 array (NumPy's default) for {traced.name}(): "
                    "a float64 trace beside the float32 one",
                )


# --- TFL010: a new custom object per call ---


def _new_object_argument(model: ModuleModel) -> Iterator[tuple[ast.AST, str]]:
    for call, traced, ctx in model.traced_calls():
        if traced.has_signature or not ctx.loops:
            continue
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            cls = model.identity_keyed_class(argument)
            if cls is not None:
                yield (
                    argument,
                    f"a new {cls} object is passed to {traced.name}() on every iteration: "
                    "one trace per object",
                )


RULES: tuple[Rule, ...] = (
    Rule(
        "TFL001",
        "function-per-call",
        "A tf.function created and called inside a loop, or inside a function called in a loop.",
        "Create the tf.function once (module level or __init__) and call it from the loop.",
        "causes/#a-new-tffunction-or-a-new-model-per-call",
        _function_per_call,
    ),
    Rule(
        "TFL002",
        "model-per-prediction",
        "A Keras model built (or loaded) and predicted with in each iteration of a loop.",
        "Build the model once; load new weights into it with set_weights or load_weights.",
        "keras-models/#building-models-in-a-loop",
        _model_per_prediction,
    ),
    Rule(
        "TFL003",
        "python-number-argument",
        "A loop counter, or a number computed from it, passed to a tf.function in the loop.",
        "Pass tf.constant(value), or give the function an input_signature.",
        "tensor-vs-python/#python-numbers-versus-tfconstant",
        _python_number_argument,
    ),
    Rule(
        "TFL004",
        "predict-in-loop",
        "model.predict called per batch in a loop that does not train the model.",
        "Call the model from one tf.function with an input_signature, created once.",
        "keras-models/#serving-one-tffunction-with-an-input-signature",
        _predict_in_loop,
    ),
    Rule(
        "TFL005",
        "variable-in-function",
        "A tf.Variable created unconditionally in the body of a tf.function.",
        "Create the variable once, outside the function (or only when it does not exist yet).",
        "claims-checked/#variables",
        _variable_in_function,
    ),
    Rule(
        "TFL006",
        "predict-in-function",
        "model.predict or predict_on_batch called inside a tf.function.",
        "Inside a tf.function, call the model: model(x, training=False).",
        "keras-models/#modelpredict-inside-a-tffunction",
        _predict_in_function,
    ),
    Rule(
        "TFL007",
        "numpy-in-function",
        "Tensor.numpy() called on an argument or a local tensor inside a tf.function.",
        "Keep the value a tensor and use TensorFlow operations on it.",
        "lint/#tfl007-numpy-in-function",
        _numpy_in_function,
    ),
    Rule(
        "TFL008",
        "tensor-condition-without-autograph",
        "Python if, while or for over a tensor in a tf.function traced with autograph=False.",
        "Leave AutoGraph on, or write tf.cond / tf.while_loop yourself.",
        "tensor-vs-python/#if-on-a-tensor-one-trace-a-tfcond",
        _tensor_condition_without_autograph,
    ),
    Rule(
        "TFL009",
        "numpy-float64-argument",
        "A NumPy array with the default float64 dtype passed where a float32 value is too.",
        "Give NumPy a dtype (dtype=np.float32), or cast once at the boundary with tf.cast.",
        "causes/#new-dtypes",
        _numpy_float64_argument,
    ),
    Rule(
        "TFL010",
        "new-object-argument",
        "A new instance of a class keyed by identity passed to a tf.function in a loop.",
        "Make it an ExtensionType (tensor fields for what varies) or give it __tf_tracing_type__.",
        "causes/#custom-objects",
        _new_object_argument,
    ),
)

RULES_BY_CODE = {rule.code: rule for rule in RULES}


def rule_url(rule: Rule, site_url: str) -> str:
    return f"{site_url.rstrip('/')}/{GUIDE}{rule.page}"


def _check_rule_table() -> None:
    """The identifiers are a public contract: unique, in order, and in one format."""
    codes = [rule.code for rule in RULES]
    assert codes == sorted(set(codes)), codes
    assert all(len(code) == 6 and code.startswith("TFL") for code in codes), codes


_check_rule_table()
__all__ = ["RULES", "RULES_BY_CODE", "Context", "Rule", "TracedFunction", "rule_url"]
