"""Models and inputs shared by the scenarios; all built from fixed seeds."""

from __future__ import annotations

import numpy as np

FEATURES = 50  # the input width used by the article's examples
SEED = 20_251_121


def dense_model(seed: int = SEED):
    """A small multilayer perceptron: 50 features in, one value out."""
    import keras

    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [
            keras.Input(shape=(FEATURES,)),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(1),
        ]
    )
    return model


def rng(seed: int = SEED) -> np.random.Generator:
    return np.random.default_rng(seed)


def batch(rows: int, generator: np.random.Generator, dtype: str = "float32") -> np.ndarray:
    return generator.standard_normal((rows, FEATURES)).astype(dtype)


def rss_bytes() -> int:
    """The process's resident memory; scenarios and the runner measure growth with it."""
    import psutil

    return psutil.Process().memory_info().rss
