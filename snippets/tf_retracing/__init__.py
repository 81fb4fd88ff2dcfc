"""Tools from the TensorFlow Retracing Guide: find out why a tf.function traces again,
and serve many Keras models through one graph without ever returning a wrong answer."""

from tf_retracing.serving import (
    ServingFallbackWarning,
    SharedGraphPredictor,
    UnsharableModelError,
    architecture_key,
)

__all__ = [
    "ServingFallbackWarning",
    "SharedGraphPredictor",
    "UnsharableModelError",
    "architecture_key",
]
