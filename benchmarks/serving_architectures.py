"""Steady per-call latency of SharedGraphPredictor against a dedicated tf.function, per
real architecture and per MLP depth (batch 1 and 32), with predict_on_batch beside them.

Not yet a registered scenario (its figures are not rendered on the site): run it with
``python -m benchmarks.serving_architectures [--repeats N]`` and it prints one JSON line
per case: architecture, variables, batch, median microseconds per call of each variant
(medians of ``repeats`` interleaved rounds), and the shared / dedicated ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

CALLS_PER_ROUND = 20


def architectures():
    import keras

    small = {"input_shape": (32, 32, 3), "weights": None}
    return {
        "MobileNetV2": lambda: keras.applications.MobileNetV2(alpha=0.35, **small),
        "EfficientNetB0": lambda: keras.applications.EfficientNetB0(**small),
        "DenseNet121": lambda: keras.applications.DenseNet121(**small),
        "ResNet50": lambda: keras.applications.ResNet50(**small),
        **{f"MLP-{depth}": (lambda depth=depth: mlp(depth)) for depth in (5, 50, 300)},
    }


def mlp(depth: int):
    import keras

    layers = [keras.layers.Dense(32, activation="relu") for _ in range(depth)]
    return keras.Sequential([keras.Input((32,)), *layers, keras.layers.Dense(4)])


def per_call_us(call, rounds: list[float]) -> None:
    start = time.perf_counter()
    for _ in range(CALLS_PER_ROUND):
        call()
    rounds.append((time.perf_counter() - start) / CALLS_PER_ROUND * 1e6)


def measure(name: str, make, batch: int, repeats: int) -> dict:
    import tensorflow as tf
    from tf_retracing import SharedGraphPredictor

    model = make()
    shape = (batch, *model.inputs[0].shape[1:])
    x = tf.constant(np.random.default_rng(0).standard_normal(shape).astype("float32"))
    predictor = SharedGraphPredictor()
    dedicated = tf.function(lambda v: model(v, training=False))
    variants = {
        "shared": lambda: predictor.predict(model, x),
        "dedicated": lambda: dedicated(x),
        "predict_on_batch": lambda: model.predict_on_batch(x),
    }
    for call in variants.values():  # trace and warm up
        call()
        call()
    rounds = {key: [] for key in variants}
    for _ in range(repeats):  # interleaved, so drift hits every variant alike
        for key, call in variants.items():
            per_call_us(call, rounds[key])
    medians = {key: statistics.median(values) for key, values in rounds.items()}
    return {
        "architecture": name,
        "variables": len(model.variables),
        "batch": batch,
        "median_us": {key: round(value, 1) for key, value in medians.items()},
        "shared_over_dedicated": round(medians["shared"] / medians["dedicated"], 3),
        "shared_route": predictor.fallback_reason(model) is None,
        "traces": predictor.tracing_count,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--only", nargs="*", help="architecture names")
    args = parser.parse_args(argv)
    for name, make in architectures().items():
        if args.only and name not in args.only:
            continue
        for batch in (1, 32):
            print(json.dumps(measure(name, make, batch, args.repeats)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
