"""The warnings the predictor gives and the error it raises with ``strict=True``."""

from __future__ import annotations


class ServingFallbackWarning(UserWarning):
    """A model is served through its own traced function instead of the shared graph."""


class StaleKerasStateWarning(UserWarning):
    """A model's own call answers from state Keras derived from older weights."""


class EagerDifferenceWarning(UserWarning):
    """A model's traced graphs (the shared one and its own) agree with each other but not
    with its eager call: TensorFlow's graph and eager kernels differ on NaN."""


class ModelChangedWarning(UserWarning):
    """A served model's layer had an attribute assigned (its ``activation``, a sub-layer):
    the predictor checks the model again as it is now, as if it were new."""


class ArchitecturesEvictedWarning(UserWarning):
    """The predictor traced an architecture again after ``max_architectures`` dropped it:
    more architectures are in use than it keeps."""


class UnsharableModelError(TypeError):
    """Raised, with ``strict=True``, for a model the shared graph cannot serve."""
