"""Serving real architectures: SharedGraphPredictor against a dedicated tf.function per model.

The stream (the main table) serves two MobileNetV2 models at batch 1. The ``extra`` part
measures, per architecture of the serving corpus (``verification/serving_corpus``) and per
MLP depth, at batch 1 and 32, the
steady time per call of the shared graph, of a dedicated ``tf.function`` per model (already
traced), of that function's concrete function called directly, and of
``predict_on_batch``, in interleaved rounds, with the speedup of the shared graph over the
dedicated functions (dedicated time / shared time, per round) and over their concrete
functions, with bootstrap intervals, the number of variables, the traces each took and
the route the predictor chose. An A/A comparison runs in the same rounds: a second
dedicated ``tf.function`` of each model, identical to the first, whose speedup over the
first says how far from 1 two identical calls land on this machine, so that a shared
graph's speedup within that spread is read as a tie.

The concrete function is the dedicated model's own graph without ``tf.function``'s
dispatch (the lookup that finds the trace hashes every captured variable). It is not a
floor for the shared graph: in a run, each can be the faster by more than its interval.
"""

from __future__ import annotations

from benchmarks.measure import bootstrap_median_ci, interleaved_orders
from benchmarks.scenarios.base import STEADY, CountingRunner, Scenario, Setup, Variant
from benchmarks.scenarios.common import SEED

MODELS_PER_ARCHITECTURE = 2
BATCHES = (1, 32)
MLP_DEPTHS = (5, 50, 300)
# The quick profile runs every code path at the smallest size: a model the predictor serves
# through the shared graph (the shallowest MLP, also the stream's) and one it serves through
# its own function (Discretization keeps state outside its variables).
QUICK_ARCHITECTURES = ("discretization",)
QUICK_MLP_DEPTHS = (5,)
CORPUS_DESCRIPTION = (
    "the serving corpus's (keras.applications at 32x32x3, InceptionV3 at 75x75x3, "
    "weights=None, logits); MLPs of 32 units, 32 inputs"
)


def architectures(quick: bool = False) -> dict:
    """Name -> (make(seed), sample(batch, seed)): the serving corpus's architectures (the
    ones its correctness run checks), then MLPs of growing depth; in the quick profile, the
    stream's model first, then one architecture per route."""
    from benchmarks.architectures import ARCHITECTURES

    mlps = {f"MLP, {d} hidden layers": (_mlp(d), _mlp_rows) for d in MLP_DEPTHS}
    if quick:
        chosen = [a for a in ARCHITECTURES if a.id in QUICK_ARCHITECTURES]
        quick_mlps = {f"MLP, {d} hidden layers" for d in QUICK_MLP_DEPTHS}
        makers = {name: maker for name, maker in mlps.items() if name in quick_mlps}
        makers.update({a.title: (a.make, a.sample) for a in chosen})
        return makers
    makers = {a.title: (a.make, a.sample) for a in ARCHITECTURES}
    makers.update(mlps)
    return makers


def _mlp(depth: int):
    def make(seed: int):
        import keras

        keras.utils.set_random_seed(seed)
        hidden = [keras.layers.Dense(32, activation="relu") for _ in range(depth)]
        return keras.Sequential([keras.Input((32,)), *hidden, keras.layers.Dense(4)])

    return make


def _mlp_rows(batch: int, seed: int):
    import numpy as np

    return np.random.default_rng(seed).standard_normal((batch, 32)).astype("float32")


ONEDNN = "oneDNN kernels"  # the parameter that records whether they ran


def onednn_state() -> str:
    """Whether TensorFlow ran its oneDNN kernels in this process: they decide much of a
    convolutional network's time on a CPU, and the default depends on the CPU."""
    from tf_retracing._internals import onednn_enabled

    return {True: "on", False: "off", None: "unknown (TensorFlow does not say)"}[onednn_enabled()]


class Served:
    """Two models of one architecture, the three ways of serving them, and the dedicated
    functions' concrete functions (their graphs called without ``tf.function``'s lookup)."""

    def __init__(self, maker, batch: int, seed: int):
        import warnings

        import tensorflow as tf
        from tf_retracing import (
            ServingFallbackWarning,
            SharedGraphPredictor,
            StaleKerasStateWarning,
        )

        make, sample = maker
        self.models = [make(seed + k) for k in range(MODELS_PER_ARCHITECTURE)]
        self.x = tf.nest.map_structure(tf.constant, sample(batch, seed))
        self.predictor = SharedGraphPredictor()
        # The same, choosing XLA or not per architecture at the first request.
        self.xla_predictor = SharedGraphPredictor(choose_xla=True)
        # The route each model takes is recorded in the results instead of warned about.
        warnings.filterwarnings("ignore", category=ServingFallbackWarning)
        warnings.filterwarnings("ignore", category=StaleKerasStateWarning)
        self.dedicated = [_dedicated_function(m) for m in self.models]
        # The same function made twice: the A/A comparison of the machine's noise.
        self.dedicated_again = [_dedicated_function(m) for m in self.models]
        self.concrete = [f.get_concrete_function(self.x) for f in self.dedicated]

    def shared(self, k: int):
        return self.predictor.predict(self.models[k], self.x)

    def shared_xla(self, k: int):
        return self.xla_predictor.predict(self.models[k], self.x)

    def xla_choice(self) -> dict:
        """What the XLA-choosing predictor chose for the architecture, as row fields."""
        choices = list(self.xla_predictor.compilation(self.models[0]).values())
        choice = choices[0] if choices else None
        if choice is None:
            return {"xla_choice": "not tried (own route)"}
        if "plain_us" not in choice:
            return {"xla_choice": choice["reason"]}
        kept = "XLA" if choice["xla"] else "plain"
        if not choice["agrees"]:
            kept += f" (XLA's output differs: {choice['reason']})"
        return {
            "xla_choice": kept,
            "xla_trial_plain_us": choice["plain_us"],
            "xla_trial_xla_us": choice["xla_us"],
        }

    def own(self, k: int):
        return self.dedicated[k](self.x)

    def own_again(self, k: int):
        return self.dedicated_again[k](self.x)

    def graph_alone(self, k: int):
        return self.concrete[k](self.x)

    def predict_on_batch(self, k: int):
        return self.models[k].predict_on_batch(self.x)

    def dedicated_traces(self) -> int:
        return sum(f.experimental_get_tracing_count() for f in self.dedicated)


def _dedicated_function(model):
    """What a reader writes to serve one model: a ``tf.function`` closing over it."""
    import tensorflow as tf

    return tf.function(lambda x: model(x, training=False))


def _round_us(call, calls: int) -> float:
    import time

    start = time.perf_counter()
    for i in range(calls):
        result = call(i % MODELS_PER_ARCHITECTURE)
    getattr(result, "numpy", lambda: None)()
    return (time.perf_counter() - start) / calls * 1e6


def measure_architecture(name: str, maker, batch: int, rounds: int, calls: int) -> dict:
    import statistics

    served = Served(maker, batch, SEED)
    ways = {
        "shared": served.shared,
        "shared_xla": served.shared_xla,
        "dedicated": served.own,
        "dedicated_again": served.own_again,
        "graph": served.graph_alone,
        "pob": served.predict_on_batch,
    }
    for call in ways.values():  # first calls: traces, verification, warm-up
        for k in range(MODELS_PER_ARCHITECTURE):
            call(k)
    times: dict[str, list[float]] = {way: [] for way in ways}
    for order in interleaved_orders(list(ways), rounds, SEED + batch):
        for way in order:
            times[way].append(_round_us(ways[way], calls))
    ci = _speedup_ci(times["dedicated"], times["shared"])
    graph_ci = _speedup_ci(times["graph"], times["shared"])
    xla_ci = _speedup_ci(times["dedicated"], times["shared_xla"])
    same_ci = _speedup_ci(times["dedicated"], times["dedicated_again"])
    reason = served.predictor.fallback_reason(served.models[0])
    return {
        "architecture": name,
        "variables": len(served.models[0].variables),
        "batch": batch,
        "route": "shared graph" if reason is None else f"own function: {reason}",
        "shared_traces": served.predictor.tracing_count,
        "dedicated_traces": served.dedicated_traces(),
        "shared_us": statistics.median(times["shared"]),
        "dedicated_us": statistics.median(times["dedicated"]),
        "graph_us": statistics.median(times["graph"]),
        "predict_on_batch_us": statistics.median(times["pob"]),
        "speedup_median": ci["median"],
        "speedup_ci_low": ci["ci_low"],
        "speedup_ci_high": ci["ci_high"],
        "graph_speedup_median": graph_ci["median"],
        "graph_speedup_ci_low": graph_ci["ci_low"],
        "graph_speedup_ci_high": graph_ci["ci_high"],
        "rounds": rounds,
        # With choose_xla=True: what was chosen at the first request, the two times that
        # decided it, and the steady time and speedup over the dedicated function.
        **served.xla_choice(),
        "shared_xla_us": statistics.median(times["shared_xla"]),
        "xla_speedup_median": xla_ci["median"],
        "xla_speedup_ci_low": xla_ci["ci_low"],
        "xla_speedup_ci_high": xla_ci["ci_high"],
        # A/A: the dedicated function against an identical second one, in the same rounds.
        "aa_speedup_median": same_ci["median"],
        "aa_speedup_ci_low": same_ci["ci_low"],
        "aa_speedup_ci_high": same_ci["ci_high"],
    }


def _speedup_ci(baseline: list[float], shared: list[float]) -> dict:
    """Median of the per-round speedups (baseline time / shared time), with its interval."""
    speedups = [b / s for b, s in zip(baseline, shared, strict=True)]
    return bootstrap_median_ci(speedups, SEED)


def build(quick: bool) -> Setup:
    rounds, calls = (2, 2) if quick else (15, 20)
    makers = architectures(quick)
    first = next(iter(makers))

    def variant(name: str, label: str, way: str) -> Variant:
        def fresh():
            served = Served(makers[first], 1, SEED)
            counter = {
                "shared": lambda: served.predictor.tracing_count,
                "own": served.dedicated_traces,
                "predict_on_batch": lambda: 0,
            }[way]
            return CountingRunner(getattr(served, way), counter)

        return Variant(name, label, fresh)

    def extra():
        rows = []
        for name, maker in makers.items():
            for batch in BATCHES:
                rows.append(measure_architecture(name, maker, batch, rounds, calls))
        return {"architectures": rows}

    calls_per_pass = 4 if quick else 40
    return Setup(
        variants=[
            variant("dedicated", "one `tf.function` per model", "own"),
            variant("shared_graph", "`SharedGraphPredictor`", "shared"),
            variant("predict_on_batch", "`model.predict_on_batch`", "predict_on_batch"),
        ],
        stream=[k % MODELS_PER_ARCHITECTURE for k in range(calls_per_pass)],
        samples=[1] * calls_per_pass,
        repetitions=2 if quick else 10,
        parameters={
            ONEDNN: onednn_state(),
            "stream": f"{first}, {MODELS_PER_ARCHITECTURE} models, batch 1, alternating",
            "architectures": "; ".join(makers) if quick else CORPUS_DESCRIPTION,
            "per architecture": f"{MODELS_PER_ARCHITECTURE} models, batches "
            f"{' and '.join(map(str, BATCHES))}, {rounds} interleaved rounds of {calls} calls",
        },
        extra=extra,
    )


SCENARIO = Scenario(
    name="serving_architectures",
    title="Serving real architectures through one graph",
    question=(
        "Is a call through `SharedGraphPredictor` as fast as a dedicated, already traced "
        "`tf.function` per model, on real architectures with hundreds of variables?"
    ),
    baseline="dedicated",
    headline="shared_graph",
    headline_pass=STEADY,
    build=build,
    requires=(
        "snippets/tf_retracing/serving",
        "snippets/tf_retracing/_internals",
        "benchmarks/architectures.py",
    ),
)
