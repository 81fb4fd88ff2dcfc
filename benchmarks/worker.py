"""Runs one scenario in this process and writes its result as JSON (the CLI starts it).

Each scenario gets its own interpreter so that traces, caches and peak memory of one
scenario cannot leak into the next. Progress goes to stdout as ``progress DONE TOTAL``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from benchmarks import provenance
from benchmarks.code_hash import code_ast_hash
from benchmarks.scenarios import SCENARIOS
from benchmarks.schema import DEVICES, PROFILES


def resolve_device(requested: str) -> str:
    import tensorflow as tf

    has_gpu = bool(tf.config.list_physical_devices("GPU"))
    if requested == "gpu" and not has_gpu:
        sys.exit("error: --device gpu, but TensorFlow sees no GPU on this machine")
    if requested == "auto":
        return "gpu" if has_gpu else "cpu"
    return requested


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.worker")
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--profile", choices=PROFILES, required=True)
    parser.add_argument("--device", choices=["auto", *DEVICES], required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--command", required=True)
    args = parser.parse_args()

    scenario = SCENARIOS[args.scenario]
    unset = [
        f"{name}={value}" for name, value in scenario.environment if os.environ.get(name) != value
    ]
    if unset:  # TensorFlow reads them once, at import: too late to set them here
        sys.exit(
            f"error: scenario {scenario.name} runs with {' '.join(unset)} in its environment; "
            "python -m benchmarks run sets it"
        )

    from benchmarks.runner import measure

    device = resolve_device(args.device)

    def progress(done: int, total: int) -> None:
        print(f"progress {done} {total}", flush=True)

    result = measure(scenario, args.profile == "quick", device, progress)
    result = {"provenance": provenance.collect(args.profile, device, args.command), **result}
    # The runner records the byte hash (``code_hash``); the syntax tree hash is added here,
    # outside the measured code, so that adding it left every recorded run's hash as it was.
    result["code_ast_hash"] = code_ast_hash(result["measured"])
    args.out.write_text(json.dumps(result, allow_nan=False), "utf-8")


if __name__ == "__main__":
    main()
