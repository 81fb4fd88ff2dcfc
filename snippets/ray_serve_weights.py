"""Tenants held as weights behind Ray Serve: a replica keeps every tenant it has served.

``WeightsServer`` is ``TenantServer``'s routing (``@serve.multiplexed`` by the
``serve_multiplexed_model_id`` header) with a tenant held as its weight arrays, added to one
``SharedGraphPredictor`` per replica with ``add_weights`` on its first request, and no Keras
model per tenant, so that a replica can keep thousands of them: ``TENANTS_PER_REPLICA``
bounds Ray's LRU, and a tenant Ray drops is dropped from the predictor too. Every answer
carries the replica's process id, its traces, its weight-file loads and its tenants so
far, and its resident memory.

``docs/guide/serving-on-ray.md`` runs it beside ``TenantServer``; the ``tenants_as_weights``
benchmark scenario measures it with ten thousand tenants.
"""

# Defined by the page's earlier blocks; here, imported from the example they come from.
from snippets.ray_serve_tenants import _rss_mb, tenant_model  # noqa: I001 - outside the page's part

# --8<-- [start:deployment]
import os
from pathlib import Path

import numpy as np
from ray import serve
from starlette.requests import Request
from tf_retracing import SharedGraphPredictor

TENANTS_PER_REPLICA = 10_000  # held as weights: no Keras model per tenant


class HeldTenant:
    """What ``get_model`` returns for a tenant: a call through the replica's predictor.
    Ray Serve calls ``__del__`` when its LRU drops the tenant."""

    def __init__(self, held: dict, predictor: SharedGraphPredictor, tenant: str):
        self.held, self.predictor, self.tenant = held, predictor, tenant

    def __call__(self, x):
        return self.predictor.predict(self.tenant, x)

    def __del__(self):
        if self.held.get(self.tenant) is self:  # not a later load of the same tenant
            del self.held[self.tenant]
            self.predictor.forget(self.tenant)


@serve.deployment(num_replicas=2, ray_actor_options={"num_cpus": 0})
class WeightsServer:
    def __init__(self, weights_dir: str):
        self.weights_dir = Path(weights_dir)
        self.predictor = SharedGraphPredictor()
        self.architecture = tenant_model()  # cloned once by the predictor, not per tenant
        self.held: dict[str, HeldTenant] = {}
        self.loads = 0

    @serve.multiplexed(max_num_models_per_replica=TENANTS_PER_REPLICA)
    async def get_model(self, tenant: str):
        self.loads += 1  # the file is read at the tenant's first prediction
        path = self.weights_dir / f"{tenant}.weights.h5"
        self.predictor.add_weights(tenant, self.architecture, path)
        self.held[tenant] = HeldTenant(self.held, self.predictor, tenant)
        return self.held[tenant]

    async def __call__(self, request: Request) -> dict:
        predict = await self.get_model(serve.get_multiplexed_model_id())
        x = np.asarray((await request.json())["x"], dtype=np.float32)
        return {
            "y": np.asarray(predict(x)).tolist(),
            "replica": os.getpid(),
            "traces": self.predictor.tracing_count,
            "loads": self.loads,
            "tenants": self.predictor.tenant_count,
            "rss_mb": _rss_mb(),
        }


# --8<-- [end:deployment]
