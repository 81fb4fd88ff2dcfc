"""Every use of TensorFlow's and Keras's private APIs in ``tf_retracing``, in one place.

Nothing else in the package imports a private module or reads a private attribute. Each
function here says what it relies on and what it does when that is missing, so that a
TensorFlow or Keras release that moves something degrades a tool, never breaks a call.
"""

from __future__ import annotations

import contextlib

from tf_retracing._internals.describing import (
    bound_instance,
    describe_context,
    describe_trace,
    describe_type,
    traced_arguments,
)
from tf_retracing._internals.number_dtype import dtype_to_pass
from tf_retracing._internals.serving import (
    AssignmentWatch,
    flat_caller,
    flatten_layers,
    is_plain_functional,
    keras2_model_class,
    onednn_enabled,
    variable_handle,
    watch_assignments,
)
from tf_retracing._internals.tensorflow_modules import (
    EXPLAINER_ERROR,
    RestoredFunction,
    function_deserialization,
)
from tf_retracing._internals.watching import (
    call_stats_key,
    can_watch_in_place,
    copy_rendezvous,
    function_cache,
    function_options,
    hearing_retracing_warnings,
    is_recording_cache,
    python_function_hook,
    recording_cache,
    restored_function_parts,
    saved_arguments,
    set_function_cache,
    set_python_function_hook,
    tracing_frames,
    tracing_locals,
    watch_in_place,
    watching_per_call_functions,
    watching_restored_functions,
    with_python_function,
)

# Defined only where TensorFlow has them (EXPLAINER_ERROR is None).
with contextlib.suppress(ImportError):
    from tf_retracing._internals.tensorflow_modules import (
        ConcreteFunction,
        FunctionCache,
        FunctionContext,
        PolymorphicFunction,
        make_decorator,
    )

__all__ = [
    "EXPLAINER_ERROR",
    "AssignmentWatch",
    "ConcreteFunction",
    "FunctionCache",
    "FunctionContext",
    "PolymorphicFunction",
    "RestoredFunction",
    "bound_instance",
    "call_stats_key",
    "can_watch_in_place",
    "copy_rendezvous",
    "describe_context",
    "describe_trace",
    "describe_type",
    "dtype_to_pass",
    "flat_caller",
    "flatten_layers",
    "function_cache",
    "function_deserialization",
    "function_options",
    "hearing_retracing_warnings",
    "is_plain_functional",
    "is_recording_cache",
    "keras2_model_class",
    "make_decorator",
    "onednn_enabled",
    "python_function_hook",
    "recording_cache",
    "restored_function_parts",
    "saved_arguments",
    "set_function_cache",
    "set_python_function_hook",
    "traced_arguments",
    "tracing_frames",
    "tracing_locals",
    "variable_handle",
    "watch_assignments",
    "watch_in_place",
    "watching_per_call_functions",
    "watching_restored_functions",
    "with_python_function",
]
