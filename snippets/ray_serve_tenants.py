"""Per-tenant Keras models behind Ray Serve's model multiplexing, and a bounded load test.

Ray Serve routes a request by its ``serve_multiplexed_model_id`` header to a replica that
has that tenant's model loaded, and each replica keeps the ``MODELS_PER_REPLICA`` models it
used last (``@serve.multiplexed``). ``TenantServer`` loads a tenant's weights from its file
on demand and serves it either through a ``tf.function`` of its own (``shared=False``: a
trace per model loaded, again after each eviction) or through one ``SharedGraphPredictor``
per replica (``shared=True``: one graph for the architecture, however many tenants come
and go). Every answer carries the replica's process id, its traces so far and its resident
memory, so that a client sees every replica without asking it separately.

``docs/guide/serving-on-ray.md`` runs it; the ``many_tenants`` benchmark scenario measures
it with ``load_test``. Needs ``pip install "tf-retracing[serve]"`` (Ray is not a dependency
of the package).
"""

# --8<-- [start:deployment]
import json
import os
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf
from ray import serve
from starlette.requests import Request
from tf_retracing import SharedGraphPredictor

MODELS_PER_REPLICA = 4
FEATURES = 16


def tenant_model() -> keras.Model:
    """Every tenant's architecture: only the weights differ."""
    return keras.Sequential(
        [
            keras.Input((FEATURES,)),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(1),
        ]
    )


@serve.deployment(num_replicas=2, ray_actor_options={"num_cpus": 0})
class TenantServer:
    def __init__(self, weights_dir: str, shared: bool):
        self.weights_dir = Path(weights_dir)
        self.predictor = SharedGraphPredictor() if shared else None
        self.own_traces = 0  # the tf.functions' traces, counted while they trace

    @serve.multiplexed(max_num_models_per_replica=MODELS_PER_REPLICA)
    async def get_model(self, tenant: str):
        model = tenant_model()
        model.load_weights(self.weights_dir / f"{tenant}.weights.h5")
        if self.predictor is not None:
            return lambda x: self.predictor.predict(model, x)

        @tf.function
        def own_function(x):
            self.own_traces += 1  # Python: runs once per trace
            return model(x, training=False)

        return own_function

    async def __call__(self, request: Request) -> dict:
        predict = await self.get_model(serve.get_multiplexed_model_id())
        x = np.asarray((await request.json())["x"], dtype=np.float32)
        return {
            "y": np.asarray(predict(x)).tolist(),
            "replica": os.getpid(),
            "traces": self.tracing_count(),
            "rss_mb": _rss_mb(),
        }

    def tracing_count(self) -> int:
        if self.predictor is not None:
            return self.predictor.tracing_count
        return self.own_traces


def _rss_mb() -> float:
    """This process's resident memory, from Linux's /proc (0.0 where there is none)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


# --8<-- [end:deployment]


# --8<-- [start:tenants]
def save_tenants(folder: Path, count: int, seed: int = 0) -> dict[str, keras.Model]:
    """``count`` tenants with their own weights, each saved where the replicas load it."""
    folder.mkdir(parents=True, exist_ok=True)
    tenants = {}
    for k in range(count):
        keras.utils.set_random_seed(seed + k)
        model = tenant_model()
        model.save_weights(folder / f"tenant-{k}.weights.h5")
        tenants[f"tenant-{k}"] = model
    return tenants


# --8<-- [end:tenants]


# --8<-- [start:load]
def request(url: str, tenant: str, x: np.ndarray) -> tuple[float, dict]:
    """One HTTP request for ``tenant``: its time in milliseconds and the answer."""
    body = json.dumps({"x": x.tolist()}).encode()
    headers = {"serve_multiplexed_model_id": tenant, "Content-Type": "application/json"}
    started = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, body, headers), timeout=60) as r:
        answer = json.loads(r.read())
    return (time.perf_counter() - started) * 1e3, answer


def load_test(url: str, tenants: dict, requests: int, concurrency: int = 4, seed: int = 0):
    """``requests`` requests for tenants picked at random, ``concurrency`` at a time; stops
    by itself. Returns the request times, the wrong answers (compared with each tenant's
    own ``model(x)``), and each replica's last traces and memory, by process id."""
    rng = np.random.default_rng(seed)
    names = sorted(tenants)
    picks = [names[k] for k in rng.integers(0, len(names), requests)]
    x = rng.standard_normal((1, FEATURES)).astype(np.float32)
    expected = {name: tenants[name](x, training=False).numpy() for name in names}
    with ThreadPoolExecutor(concurrency) as pool:
        done = list(pool.map(lambda tenant: request(url, tenant, x), picks))
    wrong = sum(
        not np.allclose(answer["y"], expected[tenant], rtol=1e-5, atol=1e-6)
        for tenant, (_, answer) in zip(picks, done, strict=True)
    )
    replicas: dict[int, dict] = {}
    for _, answer in done:  # the largest count a replica reported is its latest
        seen = replicas.setdefault(answer["replica"], {"traces": 0, "rss_mb": 0.0})
        seen["traces"] = max(seen["traces"], answer["traces"])
        seen["rss_mb"] = max(seen["rss_mb"], answer["rss_mb"])
    return [ms for ms, _ in done], wrong, replicas


# --8<-- [end:load]
