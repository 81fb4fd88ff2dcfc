"""What a tenant costs to add: its first request, and the memory it and its serving take.

The stream (the main table) is the first request of each of 50 tenants (MLPs of one
architecture, batch 1) to a fresh predictor: a trace for a `tf.function` per tenant, the
graph check for the shared graph. The ``extra`` part measures memory in a fresh interpreter
per architecture, way of serving and number of tenants (100 and 1,000): the resident memory
added by building the tenants' Keras models, then by serving each once. Measured in the
same process as other work, memory that an earlier measurement freed is reused and a
tenant seems to cost nothing, or less than nothing; a fresh interpreter per figure, and
the difference between 100 and 1,000 tenants, leave out both that and the fixed costs
(TensorFlow's first trace, Keras's first model).
"""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks import ROOT
from benchmarks.scenarios.base import COLD, CountingRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import SEED, batch, dense_model, rng

FIRST_REQUESTS = 50

# One figure: build ``count`` tenants of an architecture, then serve each once; the
# resident memory before, after building and after serving, in bytes, as JSON.
MEASURE = """\
import gc
import json
import sys

import numpy as np

from benchmarks.scenarios.common import SEED, rss_bytes
from benchmarks.scenarios.many_tenants import architectures, predictors, weight_bytes

title, way, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
make, x = architectures()[title]
gc.collect()
start = rss_bytes()
models = [make(SEED + k) for k in range(count)]
for model in models:
    model(x)  # built as a served model is: by a call
gc.collect()
built = rss_bytes()
predictor = predictors()[way][1]()
for model in models:
    np.asarray(predictor.predict(model, x))
gc.collect()
served = rss_bytes()
print(json.dumps({"start": start, "built": built, "served": served,
                  "weights": weight_bytes(models[0]), "traces": predictor.tracing_count}))
"""


def measured(title: str, way: str, count: int) -> dict:
    command = [sys.executable, "-c", MEASURE, title, way, str(count)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"tenant_memory: {title}, {way}, {count}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def memory_rows(counts: tuple[int, ...], titles: tuple[str, ...] | None = None) -> list[dict]:
    """Per architecture (those of ``titles``, or all), way of serving and count: one figure,
    each from its own interpreter."""
    from benchmarks.scenarios.many_tenants import architectures, predictors

    rows = []
    for title in titles or tuple(architectures()):
        for way, (label, _) in predictors().items():
            for count in counts:
                figure = measured(title, way, count)
                rows.append(
                    {
                        "architecture": title,
                        "variant": way,
                        "label": label,
                        "tenants": count,
                        "traces": figure["traces"],
                        "weights_kb": figure["weights"] / 1024,
                        "models_mb": (figure["built"] - figure["start"]) / 2**20,
                        "serving_mb": (figure["served"] - figure["built"]) / 2**20,
                    }
                )
    return rows


def build(quick: bool) -> Setup:
    import tensorflow as tf

    from benchmarks.scenarios.many_tenants import predictors

    tenants = 4 if quick else FIRST_REQUESTS
    x = tf.constant(batch(1, rng()))
    choices = {name: predictors()[name] for name in ("dedicated", "shared")}

    def variant(name: str) -> Variant:
        label, make = choices[name]

        def fresh():
            # New tenants each repetition: a model's first request to any predictor.
            models = [dense_model(SEED + k) for k in range(tenants)]
            predictor = make()
            return CountingRunner(
                lambda k: predictor.predict(models[k], x), lambda: predictor.tracing_count
            )

        return Variant(name, label, fresh)

    # The quick profile: every way of serving, on one architecture, at two small counts (two,
    # so that a figure per added tenant can be read off): each figure is an interpreter.
    counts = (1, 2) if quick else (100, 1000)
    titles = ("MLP",) if quick else None
    return Setup(
        variants=[variant(name) for name in choices],
        stream=list(range(tenants)),
        samples=[1] * tenants,
        repetitions=2 if quick else 10,
        parameters={
            "first requests": f"{tenants} new MLP tenants, batch 1, a fresh predictor",
            "memory": f"{', '.join(f'{c:,}' for c in counts)} tenants per architecture "
            f"({'MLP only' if quick else 'MLP and small CNN'}) and way of serving, "
            "a fresh interpreter each",
        },
        extra=lambda: {"memory": memory_rows(counts, titles)},
    )


SCENARIO = Scenario(
    name="tenant_memory",
    title="What a tenant costs to add",
    question=(
        "How long does a tenant's first request take, and how much memory does each added "
        "tenant take, against the bytes of its weights, with a `tf.function` per tenant "
        "or one shared graph?"
    ),
    baseline="dedicated",
    headline="shared",
    headline_pass=COLD,
    build=build,
    requires=(
        "snippets/tf_retracing/serving",
        "snippets/tf_retracing/_internals",
        "benchmarks/scenarios/many_tenants.py",
    ),
)
