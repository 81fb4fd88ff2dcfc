"""Serving many models of one architecture: a function per model, weight swapping, one graph."""

from __future__ import annotations

import gc

from benchmarks.scenarios.base import STEADY, CountingRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import SEED, batch, dense_model, rng, rss_bytes

ROWS = 32
SERVED = 10  # models served round-robin in the timed stream
MEMORY_COUNTS = (1, 10, 100)
QUICK_MEMORY_COUNTS = (1, 3)  # the quick profile: the same path at sizes that take seconds
THREADS = 8


class DedicatedFunctions:
    """One ``tf.function`` per model, created and traced at the model's first call."""

    def __init__(self):
        self.functions = {}

    def predict(self, model, x):
        import tensorflow as tf

        function = self.functions.get(id(model))
        if function is None:
            function = tf.function(lambda v: model(v, training=False))
            self.functions[id(model)] = function
        return function(x)

    @property
    def tracing_count(self) -> int:
        return sum(f.experimental_get_tracing_count() for f in self.functions.values())


def predictors():
    from tf_retracing import SharedGraphPredictor

    from snippets.weight_swap_cache import WeightSwapCache

    return {
        "dedicated": ("one `tf.function` per model", DedicatedFunctions),
        "weight_swap": ("weight-swapping cache (the post's design)", WeightSwapCache),
        "shared_graph": (
            "`SharedGraphPredictor`: one graph per architecture",
            lambda: SharedGraphPredictor(max_architectures=4),
        ),
    }


def build(quick: bool) -> Setup:
    import tensorflow as tf

    calls = 10 if quick else 200
    memory_counts = QUICK_MEMORY_COUNTS if quick else MEMORY_COUNTS
    x = tf.constant(batch(ROWS, rng()))
    models = [dense_model(SEED + k) for k in range(SERVED)]
    choices = predictors()

    def variant(name: str) -> Variant:
        label, make = choices[name]

        def fresh():
            predictor = make()
            return CountingRunner(
                lambda k: predictor.predict(models[k], x), lambda: predictor.tracing_count
            )

        return Variant(name, label, fresh)

    def extra():
        return {
            "memory": memory_by_model_count(x, memory_counts),
            "wrong_outputs": wrong_outputs(models, x, calls_per_thread=10 if quick else 250),
        }

    return Setup(
        variants=[variant(name) for name in choices],
        stream=[k % SERVED for k in range(calls)],
        samples=[ROWS] * calls,
        repetitions=2 if quick else 20,
        steady_repeats=1 if quick else 3,
        parameters={
            "models served": f"{SERVED}, same architecture, different weights, round-robin",
            "calls per pass": f"{calls} cold, {calls * (1 if quick else 3)} steady",
            "batch": ROWS,
            "memory": f"{', '.join(map(str, memory_counts))} models",
            "threads": THREADS,
        },
        extra=extra,
    )


def memory_by_model_count(x, counts: tuple[int, ...] = MEMORY_COUNTS) -> list[dict]:
    """Resident memory added by serving N models (each of ``counts``) with N functions, or
    with one graph."""
    _, dedicated = predictors()["dedicated"]
    _, shared = predictors()["shared_graph"]
    models = [dense_model(SEED + 1000 + k) for k in range(max(counts))]
    keep = []  # nothing is freed until the end, so no growth hides in reused memory
    rows = []
    for count in counts:
        row = {"models": count}
        for name, make in (("shared", shared), ("dedicated", dedicated)):
            gc.collect()
            before = rss_bytes()
            predictor = make()
            for model in models[:count]:
                predictor.predict(model, x).numpy()
            row[f"{name}_mb"] = (rss_bytes() - before) / 2**20
            row[f"{name}_traces"] = predictor.tracing_count
            keep.append(predictor)
        rows.append(row)
    return rows


def wrong_outputs(models, x, calls_per_thread: int) -> list[dict]:
    """Results that differ from ``model(x)`` when 8 threads share one predictor."""
    from snippets.weight_swap_cache import count_wrong_outputs

    found = []
    for name, (label, make) in predictors().items():
        wrong = count_wrong_outputs(
            make(), models, x, threads=THREADS, calls_per_thread=calls_per_thread
        )
        found.append(
            {
                "variant": name,
                "label": label,
                "wrong": wrong,
                "calls": THREADS * calls_per_thread,
                "threads": THREADS,
            }
        )
    return found


SCENARIO = Scenario(
    name="weight_cache",
    title="Serving many models of one architecture",
    question=(
        "What does a call cost when many models of one architecture are served with a "
        "`tf.function` per model, with the post's weight-swapping cache, or with one shared "
        "graph, and which of them stay correct under threads?"
    ),
    baseline="dedicated",
    headline="shared_graph",
    headline_pass=STEADY,
    build=build,
    requires=(
        "snippets/tf_retracing/serving",
        "snippets/tf_retracing/_internals",
        "snippets/weight_swap_cache.py",
    ),
)
