"""One traced graph for every Keras model of the same architecture, checked against each
model's own call when the model is first served.

``SharedGraphPredictor.predict(model, x)`` returns the output of the model as its weights
define it: what ``model(x, training=False)`` returns, except where Keras's own call reads
state it derived from older weights (an adapted ``Normalization`` after ``set_weights``),
which a ``StaleKerasStateWarning`` names. A model takes one of two routes, decided at its
first use:

- **shared**: a plain ``Sequential`` or functional model whose state all lives in its
  variables (or is derived from them in a way the graph recomputes, as an adapted
  ``Normalization``'s mean and variance). Models of one architecture share one concrete
  function, traced on a clone with the variables as arguments. A subclass of ``Model``,
  whose call its config does not describe, shares the graph of its template, the first
  model of its class with the same variables, once the graph its own call traces (one
  trace, not kept) is the template's, operation for operation and constant for constant.
  Before a model is served from a shared graph, its output is compared with
  ``model(x, training=False)`` on the caller's input and on a perturbed copy of it.
- **own**: everything else (layers with lookup tables or other state outside their
  variables, stateful RNNs, clones or subclasses that do not compute what the model
  computes) is served through a function traced on the model itself, one concrete
  function per kind of input with the model's variables and tables captured (or, for a
  layer that derives state from its variables in a ``finalize_state`` the graph cannot
  recompute, through the model's own eager call). A ``ServingFallbackWarning`` names the model and
  the reason; ``strict=True`` raises ``UnsharableModelError`` instead.

Inputs of one kind (nesting, dtypes, and shapes but for the batch and the dimensions the
model's Inputs leave free) share one graph; a model whose call needs those dimensions while
tracing (a reshape to ``x.shape[0]``) gets one graph per exact input shape instead.

Tenants held as weights: ``add_weights(tenant, architecture, weights)`` keeps a tenant as
its weight arrays (or the ``.weights.h5`` file they are read from at its first request),
packed in one flat buffer per dtype that TensorFlow shares through DLPack, and serves
``predict(tenant, x)`` through a graph of the architecture that takes the weights as
arguments: no Keras model per tenant, one reference model (a clone) per architecture,
which answers each tenant's first-request check. Files laid out as Keras writes the
architecture's files (learnt once from a file Keras wrote) are read straight from HDF5;
others through Keras's ``load_weights``.

The first-request check reads the model's weights once (``_WeightsSnapshot``): a
``set_weights`` in another thread during the check cannot make the graph look wrong.

``choose_xla=True`` traces each shared graph plainly and with ``jit_compile=True`` at its
first request and keeps the XLA one where its output agrees and its median call on that
input is faster (``compilation(model)`` reports the choice and both times).

What is followed from call to call: every variable's value (``set_weights``,
``variable.assign``, ``load_weights``, an optimizer's steps) and the ``Normalization``
statistics derived from them. What is not: a change to a model's Python structure after
its first call for a kind of input (a layer's ``activation`` swapped, a sub-layer replaced),
as Keras's own ``predict`` does not follow it either; call ``forget(model)`` after such a
change and the next call checks the model again.

How the benchmark scenarios measure it, with public names only: ``weight_cache`` serves N
models of one small architecture (traces, steady latency against a dedicated
``tf.function`` per model and the weight-swapping cache, memory, wrong outputs under
threads); ``serving_architectures`` does the same per ``keras.applications``
architecture and per MLP depth, with ``predict_on_batch`` and each dedicated function's
concrete function (its graph without ``tf.function``'s lookup) beside them, and
``serving_without_onednn`` repeats it with TensorFlow's oneDNN kernels switched off.
"""

from __future__ import annotations

from tf_retracing.serving.architecture_identity import architecture_key
from tf_retracing.serving.errors import (
    ArchitecturesEvictedWarning,
    EagerDifferenceWarning,
    ModelChangedWarning,
    ServingFallbackWarning,
    StaleKerasStateWarning,
    UnsharableModelError,
)
from tf_retracing.serving.routing import SharedGraphPredictor

__all__ = [
    "ArchitecturesEvictedWarning",
    "EagerDifferenceWarning",
    "ModelChangedWarning",
    "ServingFallbackWarning",
    "SharedGraphPredictor",
    "StaleKerasStateWarning",
    "UnsharableModelError",
    "architecture_key",
]
