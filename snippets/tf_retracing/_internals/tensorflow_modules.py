"""TensorFlow's private modules the explainer needs, imported once: where one is missing,
``EXPLAINER_ERROR`` says which."""

from __future__ import annotations

# --- The retrace explainer (tf_retracing.explainer) ----------------------------------
# The explainer watches a tf.function by subclassing TensorFlow's Function and its trace
# cache, and reads the call's trace type from the frame of TensorFlow's tracing step.
# Everything it needs from TensorFlow's private modules is imported here; an import that
# fails leaves EXPLAINER_ERROR set and the package falls back to public trace counts.

EXPLAINER_ERROR: str | None = None
try:
    from tensorflow.core.function.polymorphism.function_cache import (  # noqa: F401
        FunctionCache,
        FunctionContext,
    )
    from tensorflow.core.function.trace_type import default_types  # noqa: F401
    from tensorflow.python.eager.polymorphic_function import tracing_compilation
    from tensorflow.python.eager.polymorphic_function.concrete_function import (  # noqa: F401
        ConcreteFunction,
    )
    from tensorflow.python.eager.polymorphic_function.polymorphic_function import (  # noqa: F401
        Function as PolymorphicFunction,
    )
    from tensorflow.python.util.tf_decorator import make_decorator  # noqa: F401

    # The frame of TensorFlow's tracing step: its locals hold the call's trace type.
    TRACING_CODE = tracing_compilation._maybe_define_function.__code__
    SCOPE_TYPES = tracing_compilation.ScopeType
except (ImportError, AttributeError) as error:  # a TensorFlow that moved them
    EXPLAINER_ERROR = f"{type(error).__name__}: {error}"

# Optional: functions restored from a SavedModel are watched only if these are found.
try:
    from tensorflow.python.saved_model import function_deserialization
    from tensorflow.python.saved_model.function_deserialization import RestoredFunction
except ImportError:
    function_deserialization = RestoredFunction = None
