"""A thousand tenants in one process: one graph per architecture against a function each.

A tenant is one Keras model of a shared architecture with its own weights, as a service
that keeps a model per customer holds them. Three ways to serve them:

- ``dedicated``: a ``tf.function`` per tenant, made and traced at its first request, kept;
- ``lru``: the same, but only the ``LRU_SIZE`` most recently used functions are kept (what a
  multiplexing server's per-replica model cache does): a tenant evicted and asked for again
  is traced again;
- ``shared``: ``SharedGraphPredictor``, one graph per architecture for every tenant.

The stream (the main table) serves ``STREAM_TENANTS`` MLP tenants at batch 1 with a skewed
popularity. The ``extra`` part, per architecture (an MLP and a small convolutional network)
and per number of tenants (10, 100 and 1,000 in the full profile), serves every tenant once
(the first request: a trace for a function, the graph check for the shared graph), then a
request stream, round-robin and Zipf-distributed, timing every request: p50 and p99 with
bootstrap intervals, and traces per 1,000 requests. What a tenant costs in memory is
measured apart, a fresh interpreter per figure, by ``tenant_memory``.
"""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np

from benchmarks.measure import BOOTSTRAP_RESAMPLES, CONFIDENCE
from benchmarks.scenarios.base import STEADY, CountingRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import SEED, batch, dense_model, rng

LRU_SIZE = 10
ZIPF_EXPONENT = 1.1  # request share of the k-th most popular tenant ~ 1 / k**1.1
STREAM_TENANTS = 100
IMAGE_SHAPE = (32, 32, 3)


class DedicatedFunctions:
    """A ``tf.function`` per tenant, made at its first request and kept (``capacity``
    None) or kept for the ``capacity`` most recently used tenants only."""

    def __init__(self, capacity: int | None = None):
        self.capacity = capacity
        self.functions: OrderedDict = OrderedDict()
        self.evicted_traces = 0

    def predict(self, model, x):
        import tensorflow as tf

        function = self.functions.get(id(model))
        if function is None:
            function = tf.function(lambda v: model(v, training=False))
            self.functions[id(model)] = function
            if self.capacity is not None and len(self.functions) > self.capacity:
                _, dropped = self.functions.popitem(last=False)
                self.evicted_traces += dropped.experimental_get_tracing_count()
        else:
            self.functions.move_to_end(id(model))
        return function(x)

    @property
    def tracing_count(self) -> int:
        live = sum(f.experimental_get_tracing_count() for f in self.functions.values())
        return self.evicted_traces + live


def predictors() -> dict:
    from tf_retracing import SharedGraphPredictor

    return {
        "dedicated": ("one `tf.function` per tenant, all kept", DedicatedFunctions),
        "lru": (
            f"one `tf.function` per tenant, the {LRU_SIZE} most recent kept",
            lambda: DedicatedFunctions(capacity=LRU_SIZE),
        ),
        "shared": ("`SharedGraphPredictor`: one graph per architecture", SharedGraphPredictor),
    }


def conv_model(seed: int):
    """A small convolutional network: a 32x32 RGB image in, ten scores out."""
    import keras

    keras.utils.set_random_seed(seed)
    return keras.Sequential(
        [
            keras.Input(IMAGE_SHAPE),
            keras.layers.Conv2D(16, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(32, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(10),
        ]
    )


def architectures() -> dict:
    """Name -> (make(seed), one request's input)."""
    return {
        "MLP": (dense_model, batch(1, rng())),
        "small CNN": (conv_model, rng().standard_normal((1, *IMAGE_SHAPE)).astype("float32")),
    }


def request_streams(tenants: int, requests: int) -> dict[str, list[int]]:
    """Tenant indices in request order: round-robin, and Zipf-skewed (seeded)."""
    ranks = np.arange(1, tenants + 1, dtype=float)
    shares = ranks**-ZIPF_EXPONENT / np.sum(ranks**-ZIPF_EXPONENT)
    skewed = np.random.default_rng(SEED + tenants).choice(tenants, size=requests, p=shares)
    return {
        "round-robin": [k % tenants for k in range(requests)],
        "Zipf": [int(k) for k in skewed],
    }


def percentile_ci(values: list[float], percentile: float, seed: int) -> dict[str, float]:
    """A percentile of ``values`` with its 95% percentile-bootstrap interval."""
    data = np.asarray(values, dtype=float)
    picks = np.random.default_rng(seed).integers(0, len(data), (BOOTSTRAP_RESAMPLES, len(data)))
    estimates = np.percentile(data[picks], percentile, axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return {
        "value": float(np.percentile(data, percentile)),
        "ci_low": float(low),
        "ci_high": float(high),
    }


def timed_requests(predictor, models: list, x, order: list[int]) -> list[float]:
    """Each request's time in milliseconds, its output read back as a server would."""
    times = []
    for k in order:
        started = time.perf_counter()
        np.asarray(predictor.predict(models[k], x))
        times.append((time.perf_counter() - started) * 1e3)
    return times


def weight_bytes(model) -> int:
    return int(sum(np.asarray(w).nbytes for w in model.get_weights()))


def serve_tenants(make_predictor, models: list, x, requests: int) -> tuple[list[dict], object]:
    """One way of serving over one set of tenants: first requests, then each stream; the
    rows and the predictor (kept by the caller, so its memory is not reused)."""
    predictor = make_predictor()
    first = timed_requests(predictor, models, x, list(range(len(models))))
    traces_after_first = predictor.tracing_count
    rows = []
    for popularity, order in request_streams(len(models), requests).items():
        traces = predictor.tracing_count
        times = timed_requests(predictor, models, x, order)
        rows.append(
            {
                "popularity": popularity,
                "requests": requests,
                "p50_ms": percentile_ci(times, 50, SEED),
                "p99_ms": percentile_ci(times, 99, SEED),
                "traces_per_1000": 1000 * (predictor.tracing_count - traces) / requests,
                "first_request_ms": float(np.median(first)),
                "first_pass_traces": traces_after_first,
            }
        )
    return rows, predictor


def tenant_rows(counts: tuple[int, ...], requests: int) -> list[dict]:
    """Per architecture, per tenant count, per way of serving: the rows of the extra table."""
    rows = []
    keep = []  # nothing is freed until the end, so no growth hides in reused memory
    for title, (make, x) in architectures().items():
        models = [make(SEED + k) for k in range(max(counts))]
        for model in models:
            model(x)  # built as a served model is: by a call
        for count in counts:
            for name, (label, make_predictor) in predictors().items():
                served, predictor = serve_tenants(make_predictor, models[:count], x, requests)
                keep.append(predictor)
                rows += [
                    {
                        "architecture": title,
                        "tenants": count,
                        "variant": name,
                        "label": label,
                        "weights_kb": weight_bytes(models[0]) / 1024,
                        **row,
                    }
                    for row in served
                ]
    del keep
    return rows


def free_port() -> int:
    """A port nothing listens on now, for Serve's HTTP proxy: a fixed one fails when another
    run, or anything else on the machine, holds it."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ray_serve_rows(counts: tuple[int, ...], requests: int) -> list[dict]:
    """The Ray Serve example (``snippets/ray_serve_tenants.py``) on a local cluster: both
    deployments up at once, 2 replicas each, then a bounded load test per tenant count,
    first on the functions per model, then on the shared graph."""
    import tempfile
    from pathlib import Path

    import ray
    from ray import serve

    from snippets import ray_serve_tenants as example

    rows = []
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        tenants = example.save_tenants(Path(folder), max(counts), seed=SEED)
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            serve.start(http_options={"host": "127.0.0.1", "port": port})
            for name, shared in (("dedicated", False), ("shared", True)):
                app = example.TenantServer.options(name=name).bind(folder, shared)
                serve.run(app, name=name, route_prefix=f"/{name}")
            for count in counts:
                chosen = {f"tenant-{k}": tenants[f"tenant-{k}"] for k in range(count)}
                for name in ("dedicated", "shared"):
                    url = f"http://127.0.0.1:{port}/{name}"
                    before = _traces_after_warm_up(example, url, chosen)
                    times, wrong, replicas = example.load_test(url, chosen, requests, seed=count)
                    traces = sum(r["traces"] for r in replicas.values()) - before
                    rows.append(
                        {
                            "tenants": count,
                            "variant": name,
                            "requests": requests,
                            "wrong": wrong,
                            "replicas": len(replicas),
                            "p50_ms": percentile_ci(times, 50, SEED),
                            "p99_ms": percentile_ci(times, 99, SEED),
                            "traces_per_1000": 1000 * traces / requests,
                            "replica_rss_mb": max(r["rss_mb"] for r in replicas.values()),
                        }
                    )
        finally:
            ray.shutdown()  # the local cluster, Serve with it
    return rows


def _traces_after_warm_up(example, url: str, tenants: dict) -> int:
    """Traces the replicas had made before a load test, read from a short warm-up (one
    request per tenant, a few at a time, so that both replicas answer)."""
    _, _, replicas = example.load_test(url, tenants, 4 * len(tenants), seed=0)
    return sum(r["traces"] for r in replicas.values())


def build(quick: bool) -> Setup:
    import tensorflow as tf

    tenants = 4 if quick else STREAM_TENANTS
    calls = 12 if quick else 300
    x = tf.constant(batch(1, rng()))
    models = [dense_model(SEED + k) for k in range(tenants)]
    choices = predictors()
    stream = request_streams(tenants, calls)["Zipf"]

    def variant(name: str) -> Variant:
        label, make = choices[name]

        def fresh():
            predictor = make()
            return CountingRunner(
                lambda k: predictor.predict(models[k], x), lambda: predictor.tracing_count
            )

        return Variant(name, label, fresh)

    # The quick profile's largest count still exceeds LRU_SIZE, so that the LRU evicts; its
    # Ray Serve counts still exceed what a replica keeps, so that replicas reload.
    counts = (2, LRU_SIZE + 2) if quick else (10, 100, 1000)
    requests = 30 if quick else 1000
    # Ray Serve: 2 replicas, each keeping its 4 most recent tenants.
    ray_counts = (2, 6) if quick else (4, 8, 32)
    ray_requests = 16 if quick else 1000
    return Setup(
        variants=[variant(name) for name in choices],
        stream=stream,
        samples=[1] * calls,
        repetitions=2 if quick else 10,
        steady_repeats=1 if quick else 3,
        parameters={
            "tenants": f"{tenants} MLPs of one architecture, different weights, Zipf popularity",
            "calls per pass": f"{calls}",
            "batch": 1,
            "LRU size": LRU_SIZE,
            "tenant counts": ", ".join(f"{count:,}" for count in counts),
            "requests per stream": requests,
            "Zipf exponent": ZIPF_EXPONENT,
            "Ray Serve": f"2 replicas keeping 4 tenants each; {', '.join(map(str, ray_counts))} "
            f"tenants; {ray_requests} requests each, 4 at a time, tenants picked uniformly",
        },
        extra=lambda: {
            "tenants": tenant_rows(counts, requests),
            "ray_serve": ray_serve_rows(ray_counts, ray_requests),
        },
    )


SCENARIO = Scenario(
    name="many_tenants",
    title="A thousand tenants in one process",
    question=(
        "How do latency, traces and memory grow with the number of tenants (models of one "
        "architecture) served with a `tf.function` each, with an LRU of the "
        f"{LRU_SIZE} most recent, or with one shared graph?"
    ),
    baseline="dedicated",
    headline="shared",
    headline_pass=STEADY,
    build=build,
    requires=(
        "snippets/tf_retracing/serving",
        "snippets/tf_retracing/_internals",
        "snippets/ray_serve_tenants.py",
    ),
)
