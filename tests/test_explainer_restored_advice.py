"""A function loaded from a SavedModel whose saved graph already accepts the new shape:
the explainer says so (it never asks for a None dimension the export has), and both fixes
it names run without retracing when applied literally."""

from __future__ import annotations

import re

import tensorflow as tf
from tf_retracing import explain_retracing


class Doubler(tf.Module):
    def __init__(self, signature=None):
        super().__init__()
        self.scale = tf.function(lambda x: x * 2.0, input_signature=signature)


def saved(folder, signature=None) -> str:
    module = Doubler(signature)
    module.scale.get_concrete_function(tf.TensorSpec([None], tf.float32))
    path = str(folder / ("signed" if signature else "plain"))
    tf.saved_model.save(module, path)
    return path


def test_the_reason_says_the_saved_graph_accepts_it_and_names_both_fixes(tmp_path):
    loaded = tf.saved_model.load(saved(tmp_path))
    watched = explain_retracing(loaded.scale)
    watched(tf.ones(2))
    watched(tf.ones(3))
    (reason,) = watched.retrace_reasons
    assert "saved graph already accepts that shape" in reason.message
    assert "declare it None" not in reason.message  # the export has the None dimension
    assert list(loaded.signatures) == []  # so signatures are mentioned only conditionally
    assert "If it was saved with signatures" in reason.message
    assert reason.message.count("https://") == 1  # the guide link, once
    spec = re.search(r"get_concrete_function\((tf\.TensorSpec\([^)]*\))\)", reason.message)
    assert spec is not None, reason.message
    # Fix 1, applied literally: the saved graph, got once, then called without a trace.
    concrete = loaded.scale.get_concrete_function(eval(spec.group(1), {"tf": tf}))
    traced = loaded.scale.experimental_get_tracing_count()
    assert [concrete(tf.ones(n)).shape[0] for n in (5, 6, 7)] == [5, 6, 7]
    assert loaded.scale.experimental_get_tracing_count() == traced


def test_the_export_side_fix_leaves_nothing_to_trace(tmp_path):
    # Fix 2, applied literally: that spec in the exported function's input_signature.
    loaded = tf.saved_model.load(saved(tmp_path, [tf.TensorSpec(shape=[None], dtype=tf.float32)]))
    counts = []
    for n in (2, 3, 4):
        loaded.scale(tf.ones(n))
        counts.append(loaded.scale.experimental_get_tracing_count())
    assert counts == [1, 1, 1]  # one trace to pick the saved graph, then none per shape
