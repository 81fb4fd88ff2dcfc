"""The weight-swapping cache a popular article proposes, kept as a measured baseline.

Do not serve with it. For each call it copies the served model's weights into a shared
reference model, predicts through the reference's ``tf.function``, then copies the
reference's previous weights back. ``docs/guide/serving-many-models.md`` measures what that
costs and where it goes wrong; ``tf_retracing.SharedGraphPredictor``
(``snippets/tf_retracing/serving/``) is the design to use instead.

Its behaviour follows the article: the reference model is keyed on the model's kind and its
input and output shapes only, the traced function has an ``input_signature`` with a
``None`` batch dimension and ``reduce_retracing=True``, the served model's weights are set
before the ``try`` and the reference's previous weights are restored in ``finally``.
Its latency, memory and wrong outputs are measured beside ``SharedGraphPredictor`` (the
``weight_cache`` benchmark scenario); ``count_wrong_outputs`` below does the counting.
"""

# --8<-- [start:swap]
import threading
from typing import Any

import keras
import numpy as np
import tensorflow as tf


class WeightSwapCache:
    """One reference model and one traced function per (kind, input shape, output shape)."""

    def __init__(self):
        self.reference_models: dict[tuple, keras.Model] = {}
        self.functions: dict[tuple, Any] = {}

    @property
    def tracing_count(self) -> int:
        return sum(f.experimental_get_tracing_count() for f in self.functions.values())

    def predict(self, model: keras.Model, x: Any) -> tf.Tensor:
        reference, predict_fn = self._reference_for(model)
        saved = reference.get_weights()  # copy 1: the reference's weights out
        reference.set_weights(model.get_weights())  # copies 2 and 3: the model's weights in
        try:
            return predict_fn(x)
        finally:
            reference.set_weights(saved)  # copy 4: the reference's weights back

    def _reference_for(self, model: keras.Model) -> tuple[keras.Model, Any]:
        key = (type(model).__name__, tuple(model.input_shape), tuple(model.output_shape))
        if key not in self.functions:
            reference = keras.models.clone_model(model)
            signature = [tf.TensorSpec([None, *model.input_shape[1:]], tf.float32)]

            @tf.function(input_signature=signature, reduce_retracing=True)
            def predict_fn(x):  # pragma: no cover - runs as AutoGraph's copy
                return reference(x, training=False)

            self.reference_models[key] = reference
            self.functions[key] = predict_fn
        return self.reference_models[key], self.functions[key]


# --8<-- [end:swap]


def count_wrong_outputs(predictor, models, x, threads=8, calls_per_thread=500) -> int:
    """Call ``predictor.predict`` from several threads at once and count wrong results.

    Thread ``t``'s call ``i`` serves ``models[(t + i) % len(models)]``; a result is wrong
    when it differs from ``model(x, training=False)`` by more than 1e-6. An exception in
    any thread is raised here once all threads have finished.
    """
    expected = [model(x, training=False).numpy() for model in models]
    wrong = [0] * threads
    errors = []

    def serve(thread):
        try:
            for i in range(calls_per_thread):
                k = (thread + i) % len(models)
                got = predictor.predict(models[k], x).numpy()
                wrong[thread] += not np.allclose(got, expected[k], rtol=0, atol=1e-6)
        except Exception as error:  # re-raised below: a dead thread must not hide calls
            errors.append(error)

    workers = [threading.Thread(target=serve, args=(t,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    return sum(wrong)


# --8<-- [start:overlap]
def overlapping_requests(cache: WeightSwapCache, first, second, x) -> np.ndarray:
    """A (``first``) swaps its weights in and waits; B (``second``) swaps its own in; A
    predicts, then B. Returns A's answer: an overlap of two threads, forced."""
    cache.predict(first, x)  # builds the reference model and its tf.function
    ((key, traced),) = cache.functions.items()
    a_waits, b_swapped, a_done = threading.Event(), threading.Event(), threading.Event()

    def in_order(inputs):  # stands in for the traced function
        if not a_waits.is_set():  # request A
            a_waits.set()
            b_swapped.wait(timeout=60)
            result = traced(inputs)
            a_done.set()
            return result
        b_swapped.set()  # request B, its weights in: A predicts first
        a_done.wait(timeout=60)
        return traced(inputs)

    cache.functions[key], got = in_order, {}
    request_a = threading.Thread(target=lambda: got.update(a=cache.predict(first, x).numpy()))
    request_a.start()
    a_waits.wait(timeout=60)
    cache.predict(second, x)  # request B, in this thread
    request_a.join(timeout=60)
    cache.functions[key] = traced
    return got["a"]


# --8<-- [end:overlap]
