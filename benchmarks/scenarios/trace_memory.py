"""Memory kept by traces: a function that traces once per shape never lets a trace go.

The stream (the main table) calls a small function on vectors of many lengths: a plain
``tf.function`` traces once per length, one with an ``input_signature`` traces once. The
``extra`` part measures, in a fresh interpreter per function size (so that memory freed by
earlier work cannot be reused and hide growth), the resident memory added by N traces of a
function of K operations, what the same traces add again in a new function after the
first is deleted (little, if deleting freed them), and what the same
calls add through one ``input_signature`` trace.
"""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.scenarios.base import COLD, FunctionRunner, Scenario, Setup, Variant

# Operations per function (a chain of sin, multiply, add): small and large graphs.
OPERATION_COUNTS = (30, 300)


def chain(steps: int):
    """A function whose graph has 3 * steps operations, the same for every input shape."""
    import tensorflow as tf

    def body(x):
        for _ in range(steps):
            x = tf.sin(x) * 2.0 + 1.0
        return x

    return body


def memory_row(operations: int, traces: int) -> dict:
    """Resident memory added by ``traces`` traces, and again after deleting the function (MB)."""
    import gc

    import tensorflow as tf

    from benchmarks.runner import rss_bytes

    def mb() -> float:
        return rss_bytes() / 2**20

    body = chain(operations // 3)
    signed = tf.function(body, input_signature=[tf.TensorSpec([None], tf.float32)])
    signed(tf.ones([1]))  # TensorFlow's own first-use allocations, outside both figures
    start = mb()
    for length in range(2, traces + 2):
        signed(tf.ones([length]))
    signature_mb = mb() - start
    per_shape = tf.function(body)
    start = mb()
    for length in range(2, traces + 2):
        per_shape(tf.ones([length]))
    grown_mb = mb() - start
    kept = per_shape.experimental_get_tracing_count()
    del per_shape
    gc.collect()
    # The allocator keeps freed memory for reuse rather than returning it to the system,
    # so the proof that deleting freed the traces is that the same traces again, in a new
    # function, fit into it.
    again = tf.function(body)
    start = mb()
    for length in range(2, traces + 2):
        again(tf.ones([length]))
    return {
        "operations": operations,
        "traces": kept,
        "grown_mb": grown_mb,
        "kb_per_trace": grown_mb * 1024 / kept,
        "after_del_grown_mb": mb() - start,
        "signature_traces": signed.experimental_get_tracing_count(),
        "signature_grown_mb": signature_mb,
    }


def memory_rows(traces: int) -> list[dict]:
    """One fresh interpreter per function size: earlier frees cannot mask growth."""
    rows = []
    for operations in OPERATION_COUNTS:
        proc = subprocess.run(
            [sys.executable, "-m", __name__, str(operations), str(traces)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            failed = f"trace_memory child ({operations} operations) failed"
            raise RuntimeError(f"{failed}:\n{proc.stderr}")
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return rows


def build(quick: bool) -> Setup:
    import tensorflow as tf

    lengths = list(range(1, (12 if quick else 150) + 1))
    stream = [tf.ones([n]) for n in lengths]
    body = chain(OPERATION_COUNTS[0] // 3)
    traces = 4 if quick else 100
    return Setup(
        variants=[
            Variant("per_shape", "plain `tf.function`", lambda: FunctionRunner(tf.function(body))),
            Variant(
                "signature",
                "`input_signature=[tf.TensorSpec([None])]`",
                lambda: FunctionRunner(
                    tf.function(body, input_signature=[tf.TensorSpec([None], tf.float32)])
                ),
            ),
        ],
        stream=stream,
        samples=[1] * len(stream),
        repetitions=2 if quick else 8,
        parameters={
            "stream": f"float32 vectors of lengths 1 to {len(lengths)}, each once",
            "function": f"{OPERATION_COUNTS[0]} operations (sin, multiply, add)",
            "memory": f"{traces} traces of functions of "
            f"{' and '.join(map(str, OPERATION_COUNTS))} operations, a fresh interpreter each",
        },
        extra=lambda: {"memory": memory_rows(traces)},
    )


SCENARIO = Scenario(
    name="trace_memory",
    title="Memory kept by traces",
    question=(
        "How much memory does each trace of a function that retraces per shape keep, and "
        "does deleting the `tf.function` give it back?"
    ),
    baseline="per_shape",
    headline="signature",
    headline_pass=COLD,
    build=build,
)


if __name__ == "__main__":  # the child process of memory_rows
    print(json.dumps(memory_row(int(sys.argv[1]), int(sys.argv[2]))))
