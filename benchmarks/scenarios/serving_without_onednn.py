"""``serving_architectures`` again, in a worker whose TensorFlow runs without oneDNN.

On Linux, TensorFlow replaces convolutions, matrix products and their fusions by oneDNN
kernels on CPUs with neural-network instructions (AVX512_VNNI, AVX512_BF16, AVX_VNNI, AMX),
unless ``TF_ENABLE_ONEDNN_OPTS=0`` is set before TensorFlow is imported.
With weights that are variables (as every served model's are), those kernels redo work on
the weights at every call, which at batch 1 can outweigh the computation. The same
measurement as ``serving_architectures``, with the switch off, shows what that costs each
architecture, and how the shared graph compares with dedicated functions without it.
"""

from __future__ import annotations

import dataclasses

from benchmarks.scenarios import serving_architectures
from benchmarks.scenarios.base import Setup

SWITCH = ("TF_ENABLE_ONEDNN_OPTS", "0")


def build(quick: bool) -> Setup:
    setup = serving_architectures.build(quick)
    if setup.parameters[serving_architectures.ONEDNN] == "on":
        raise RuntimeError(f"TensorFlow runs its oneDNN kernels although {SWITCH[0]}={SWITCH[1]}")
    environment = {"environment": f"{SWITCH[0]}={SWITCH[1]}"}
    return dataclasses.replace(setup, parameters={**environment, **setup.parameters})


SCENARIO = dataclasses.replace(
    serving_architectures.SCENARIO,
    name="serving_without_onednn",
    title="Serving real architectures without oneDNN",
    question=(
        "With TensorFlow's oneDNN kernels switched off, how fast are the shared graph, a "
        "dedicated `tf.function` per model and `predict_on_batch` on the same architectures?"
    ),
    build=build,
    environment=(SWITCH,),
)
