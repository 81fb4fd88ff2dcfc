"""Tenants held as weights: no Keras model per tenant, ten thousand tenants in one process.

``SharedGraphPredictor.add_weights`` keeps a tenant as its weight arrays (or the
``.weights.h5`` file they are read from at its first request) and serves it through its
architecture's shared graph, which takes the weights as arguments.

The stream (the main table) serves ``STREAM_TENANTS`` MLP tenants at batch 1 with a skewed
popularity, held as Keras models (``predict(model, x)``) or as weights (``add_weights``),
each way with a fresh predictor: the cold pass holds every tenant's first request (the
graph check), the steady pass none. The ``extra`` part, per architecture (the MLP and the
small convolutional network of ``many_tenants``):

- ``latency``: one process and one predictor, grown to 10, 100, 1,000 and 10,000 tenants
  (full profile); at each count every new tenant is served once, then a stream of requests,
  round-robin and Zipf-skewed, is timed request by request: p50 and p99 with bootstrap
  intervals, and the traces the stream made.
- ``memory``: the resident memory added by adding tenants and serving each once, in a
  fresh interpreter per figure, after the architecture's first tenant paid the fixed costs
  (its trace, its reference model); per added tenant, the difference between two counts.
- ``first_request``: a tenant's first request from its ``.weights.h5`` file, against what
  Keras takes to load the same file into a model of the architecture (``load_weights``)
  and one steady request.

A tenant's weights are the architecture's initial weights plus seeded noise, made per
tenant: building ten thousand Keras models to read their weights from would measure Keras.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import ROOT
from benchmarks.scenarios.base import STEADY, CountingRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import SEED, batch, dense_model, rng

STREAM_TENANTS = 100

# One memory figure: the architecture's first tenant served (the fixed costs), then
# ``count`` more added and served once; resident memory before and after, as JSON.
MEASURE = """\
import gc
import json
import sys

import numpy as np

from benchmarks.scenarios.common import SEED, rss_bytes
from benchmarks.scenarios.tenants_as_weights import served_reference, tenant_weights

title, count = sys.argv[1], int(sys.argv[2])
predictor, reference, x = served_reference(title)
base = reference.get_weights()
gc.collect()
start = rss_bytes()
for k in range(count):
    predictor.add_weights(k, reference, tenant_weights(base, k))
    np.asarray(predictor.predict(k, x))
gc.collect()
end = rss_bytes()
weights = sum(w.nbytes for w in reference.get_weights())
print(json.dumps({"start": start, "end": end, "weights": weights,
                  "traces": predictor.tracing_count}))
"""


def tenant_weights(base: list, index: int) -> list:
    """Tenant ``index``'s weights: the reference's (``base``), with seeded noise (a
    tenant's own), made in the weights' dtype, so that no larger temporary is freed
    between two tenants' allocations."""
    generator = np.random.default_rng(SEED + index)
    return [
        w + np.asarray(0.05, w.dtype) * generator.standard_normal(w.shape, dtype=w.dtype)
        for w in base
    ]


def served_reference(title: str):
    """A predictor whose first tenant of ``title`` is served: the fixed costs paid. Returns
    the predictor, a model of the architecture (the reference) and one request's input."""
    import tensorflow as tf
    from tf_retracing import SharedGraphPredictor

    from benchmarks.scenarios.many_tenants import architectures

    make, x = architectures()[title]
    reference = make(SEED)
    x = tf.constant(x)
    reference(x)
    predictor = SharedGraphPredictor()
    predictor.add_weights("first", reference, reference.get_weights())
    np.asarray(predictor.predict("first", x))
    return predictor, reference, x


def measured_memory(title: str, count: int) -> dict:
    command = [sys.executable, "-c", MEASURE, title, str(count)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"tenants_as_weights: {title}, {count}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def memory_rows(titles: tuple[str, ...], counts: tuple[int, ...]) -> list[dict]:
    rows = []
    for title in titles:
        for count in counts:
            figure = measured_memory(title, count)
            rows.append(
                {
                    "architecture": title,
                    "tenants": count,
                    "traces": figure["traces"],
                    "weights_kb": figure["weights"] / 1024,
                    "added_mb": (figure["end"] - figure["start"]) / 2**20,
                }
            )
    return rows


def timed(predictor, order: list, x) -> list[float]:
    """Each request's time in milliseconds, its output read back as a server would."""
    times = []
    for tenant in order:
        started = time.perf_counter()
        np.asarray(predictor.predict(tenant, x))
        times.append((time.perf_counter() - started) * 1e3)
    return times


def latency_rows(titles: tuple[str, ...], counts: tuple[int, ...], requests: int) -> list[dict]:
    """Per architecture, one predictor grown through ``counts`` tenants; per count, each
    new tenant's first request, then the timed streams."""
    from benchmarks.scenarios.many_tenants import percentile_ci, request_streams

    rows = []
    for title in titles:
        predictor, reference, x = served_reference(title)
        base = reference.get_weights()
        weights_kb = sum(w.nbytes for w in base) / 1024
        added = 0
        for count in counts:
            for k in range(added, count):
                predictor.add_weights(k, reference, tenant_weights(base, k))
            first = timed(predictor, list(range(added, count)), x)
            added = count
            for popularity, order in request_streams(count, requests).items():
                traces = predictor.tracing_count
                times = timed(predictor, order, x)
                rows.append(
                    {
                        "architecture": title,
                        "tenants": count,
                        "popularity": popularity,
                        "requests": requests,
                        "weights_kb": weights_kb,
                        "p50_ms": percentile_ci(times, 50, SEED),
                        "p99_ms": percentile_ci(times, 99, SEED),
                        "stream_traces": predictor.tracing_count - traces,
                        "traces": predictor.tracing_count,
                        "first_request_ms": float(np.median(first)),
                    }
                )
    return rows


def first_request_rows(titles: tuple[str, ...], files: int) -> list[dict]:
    """Per architecture: ``files`` tenants saved with ``save_weights``; the median time
    Keras takes to load one into a model of the architecture, of one steady request, and
    of a tenant's first request from its file (the architecture's graph traced before)."""
    rows = []
    for title in titles:
        predictor, reference, x = served_reference(title)
        loader = predictor_free_model(title)
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            base = reference.get_weights()
            for k in range(files):
                loader.set_weights(tenant_weights(base, k))
                paths.append(Path(folder) / f"tenant-{k}.weights.h5")
                loader.save_weights(paths[-1])
            load = []
            for path in paths:
                started = time.perf_counter()
                loader.load_weights(path)
                load.append((time.perf_counter() - started) * 1e3)
            call = timed(predictor, ["first"] * files, x)
            for k, path in enumerate(paths):
                predictor.add_weights(f"disk-{k}", reference, path)
            first = timed(predictor, [f"disk-{k}" for k in range(files)], x)
        rows.append(
            {
                "architecture": title,
                "files": files,
                "load_weights_ms": float(np.median(load)),
                "call_ms": float(np.median(call)),
                "first_request_ms": float(np.median(first)),
                "traces": predictor.tracing_count,
            }
        )
    return rows


def predictor_free_model(title: str):
    """A Keras model of the architecture, built, for saving and loading files."""
    import tensorflow as tf

    from benchmarks.scenarios.many_tenants import architectures

    make, x = architectures()[title]
    model = make(SEED)
    model(tf.constant(x))
    return model


# Ray Serve's three ways of serving tenants of one architecture, each on 2 replicas: a
# tf.function per Keras model and the shared graph on Keras models (``TenantServer``, 4
# tenants a replica, Ray's LRU), and tenants held as weights (``WeightsServer``).
RAY_DESIGNS = {
    "function_per_model": "`TenantServer`: a `tf.function` per model, Ray's LRU of 4 a replica",
    "shared_graph_models": "`TenantServer`: the shared graph on Keras models, LRU of 4 a replica",
    "weights": "`WeightsServer`: tenants held as weights, LRU of 10,000 a replica",
}
RAY_CONCURRENCY = 4
# Replicas push the tenants they hold to Serve's router every 0.1 s; requests sent before
# it knows may go to a replica that does not hold their tenant, which then loads it too.
ROUTING_SETTLE_S = 2.0


def saved_tenants(folder: Path, count: int) -> tuple[list[str], dict]:
    """``count`` tenants of the Ray example's architecture saved with ``save_weights`` into
    ``folder``, and each one's output on one request's input, computed by Keras on a
    model holding its weights (the answer every design must give)."""
    from snippets.ray_serve_tenants import FEATURES, tenant_model

    model = tenant_model()
    base = model.get_weights()
    x = np.random.default_rng(SEED).standard_normal((1, FEATURES)).astype(np.float32)
    names, expected = [], {}
    for k in range(count):
        model.set_weights(tenant_weights(base, k))
        names.append(f"tenant-{k}")
        model.save_weights(folder / f"{names[-1]}.weights.h5")
        expected[names[-1]] = np.asarray(model(x, training=False))
    return names, {"x": x, "outputs": expected}


def ray_requests(url: str, order: list[str], expected: dict) -> tuple[list[float], int, dict]:
    """One request per tenant of ``order``, RAY_CONCURRENCY at a time: each one's time, the
    wrong answers, and per replica (by process id) the largest of each figure it reported."""
    from concurrent.futures import ThreadPoolExecutor

    from snippets.ray_serve_tenants import request

    x, outputs = expected["x"], expected["outputs"]
    with ThreadPoolExecutor(RAY_CONCURRENCY) as pool:
        done = list(pool.map(lambda tenant: request(url, tenant, x), order))
    wrong = sum(
        not np.allclose(answer["y"], outputs[tenant], rtol=1e-5, atol=1e-6)
        for tenant, (_, answer) in zip(order, done, strict=True)
    )
    replicas: dict[int, dict] = {}
    for _, answer in done:
        seen = replicas.setdefault(answer["replica"], {})
        for key in ("traces", "loads", "tenants", "rss_mb"):
            if key in answer:
                seen[key] = max(seen.get(key, 0), answer[key])
    return [ms for ms, _ in done], wrong, replicas


def ray_serve_rows(tenants: int, requests: int) -> list[dict]:
    """The three RAY_DESIGNS on one local cluster, serving ``tenants`` tenants: for tenants
    held as weights, a warm-up of one request per tenant (each tenant's file read once),
    then for each design ``requests`` requests for tenants picked uniformly at random,
    timed; the traces and weight-file loads counted during them, and each replica's
    resident memory at the end."""
    import ray
    from ray import serve

    from benchmarks.scenarios.many_tenants import free_port
    from snippets.ray_serve_tenants import TenantServer
    from snippets.ray_serve_weights import WeightsServer

    rows = []
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        names, expected = saved_tenants(Path(folder), tenants)
        apps = {
            "function_per_model": TenantServer.options(name="f").bind(folder, False),
            "shared_graph_models": TenantServer.options(name="s").bind(folder, True),
            "weights": WeightsServer.options(name="w").bind(folder),
        }
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            serve.start(http_options={"host": "127.0.0.1", "port": port})
            for design, app in apps.items():
                url = f"http://127.0.0.1:{port}/{design}"
                serve.run(app, name=design, route_prefix=f"/{design}")
                warm_up = names if design == "weights" else names[: 2 * RAY_CONCURRENCY]
                _, wrong_before, before = ray_requests(url, warm_up, expected)
                time.sleep(ROUTING_SETTLE_S)  # the router learns which replica holds whom
                picks = np.random.default_rng(SEED).integers(0, tenants, requests)
                times, wrong, after = ray_requests(url, [names[k] for k in picks], expected)
                serve.delete(design)  # its replicas end: the next design has the cores
                warm = {"requests": len(warm_up), "wrong": wrong_before, "replicas": before}
                rows.append(ray_row(design, tenants, warm, times, wrong, after))
        finally:
            ray.shutdown()  # the local cluster, Serve with it
    return rows


def ray_row(design: str, tenants: int, warm: dict, times: list, wrong: int, after: dict) -> dict:
    """One design's row: ``warm`` holds the warm-up's requests, wrong answers and replicas'
    figures, which the counts during the timed requests start from."""
    from benchmarks.scenarios.many_tenants import percentile_ci

    before = warm["replicas"]

    def total(replicas: dict, key: str) -> int:
        return sum(seen.get(key, 0) for seen in replicas.values())

    per_1000 = 1000 / len(times)
    row = {
        "design": design,
        "label": RAY_DESIGNS[design],
        "tenants": tenants,
        "warm_up_requests": warm["requests"],
        "requests": len(times),
        "wrong": wrong + warm["wrong"],
        "replicas": len(after),
        "p50_ms": percentile_ci(times, 50, SEED),
        "p99_ms": percentile_ci(times, 99, SEED),
        "traces_per_1000": (total(after, "traces") - total(before, "traces")) * per_1000,
        "replica_rss_mb_min": min(seen["rss_mb"] for seen in after.values()),
        "replica_rss_mb_max": max(seen["rss_mb"] for seen in after.values()),
    }
    if design == "weights":  # only WeightsServer counts its file loads and its tenants
        row["loads_per_1000"] = (total(after, "loads") - total(before, "loads")) * per_1000
        row["tenants_held_min"] = min(seen["tenants"] for seen in after.values())
    return row


def build(quick: bool) -> Setup:
    import tensorflow as tf
    from tf_retracing import SharedGraphPredictor

    from benchmarks.scenarios.many_tenants import request_streams

    tenants = 4 if quick else STREAM_TENANTS
    calls = 12 if quick else 300
    x = tf.constant(batch(1, rng()))
    models = [dense_model(SEED + k) for k in range(tenants)]
    for model in models:
        model(x)
    arrays = [model.get_weights() for model in models]
    stream = request_streams(tenants, calls)["Zipf"]

    def as_models():
        predictor = SharedGraphPredictor()
        return CountingRunner(
            lambda k: predictor.predict(models[k], x), lambda: predictor.tracing_count
        )

    def as_weights():
        predictor = SharedGraphPredictor()
        for k, weights in enumerate(arrays):
            predictor.add_weights(k, models[0], weights)
        return CountingRunner(lambda k: predictor.predict(k, x), lambda: predictor.tracing_count)

    titles = ("MLP",) if quick else ("MLP", "small CNN")
    counts = (5, 20) if quick else (10, 100, 1000, 10_000)
    memory_counts = (5, 10) if quick else (1000, 10_000)
    requests = 40 if quick else 2000
    files = 3 if quick else 30  # the first file of an architecture also learns its layout
    ray_tenants, ray_requests = (12, 16) if quick else (10_000, 1000)
    return Setup(
        variants=[
            Variant("models", "`predict(model, x)`: a Keras model per tenant", as_models),
            Variant("weights", "`add_weights`: the tenant's weights alone", as_weights),
        ],
        stream=stream,
        samples=[1] * calls,
        repetitions=2 if quick else 10,
        steady_repeats=1 if quick else 3,
        parameters={
            "tenants": f"{tenants} MLPs of one architecture, different weights, Zipf popularity",
            "calls per pass": f"{calls}",
            "batch": 1,
            "architectures": ", ".join(titles),
            "tenant counts": ", ".join(f"{count:,}" for count in counts),
            "requests per stream": requests,
            "memory": f"{', '.join(f'{c:,}' for c in memory_counts)} tenants added after the "
            "first, a fresh interpreter each",
            "first request from disk": f"{files} .weights.h5 files per architecture",
            "Ray Serve": f"{ray_tenants:,} tenants of the Ray example's MLP, 2 replicas a "
            f"design; {ray_requests:,} requests, {RAY_CONCURRENCY} at a time, tenants picked "
            "uniformly; tenants held as weights first served once each",
        },
        extra=lambda: {
            "latency": latency_rows(titles, counts, requests),
            "memory": memory_rows(titles if not quick else titles[:1], memory_counts),
            "first_request": first_request_rows(titles, files),
            "ray_serve": ray_serve_rows(ray_tenants, ray_requests),
        },
    )


SCENARIO = Scenario(
    name="tenants_as_weights",
    title="Tenants held as weights",
    question=(
        "With tenants held as their weights alone (`add_weights`), what does a tenant cost "
        "in memory against its weights' bytes, do latency and traces stay flat up to 10,000 "
        "tenants in one process, and what does a first request from disk cost?"
    ),
    baseline="models",
    headline="weights",
    headline_pass=STEADY,
    build=build,
    requires=(
        "snippets/tf_retracing/serving",
        "snippets/tf_retracing/_internals",
        "benchmarks/scenarios/many_tenants.py",
        "snippets/ray_serve_tenants.py",
        "snippets/ray_serve_weights.py",
    ),
)
