"""Never silent, by construction: TensorFlow's tracing count of a watched function is the
number of traces added to its cache, and every one added reaches the explainer, with its
cause or, where its start could not be read, as a trace "whose cause could not be read"
that says what it was traced for. These tests make the start unreadable on purpose."""

from __future__ import annotations

import logging

import pytest
import tensorflow as tf
from tf_retracing import (
    RetracingBudgetExceeded,
    _internals,
    explain_retracing,
    guard_retracing,
    report,
)
from tf_retracing import explainer as rx


def unread_traces(monkeypatch, how: str) -> None:
    """Make the hook miss every trace from now on: TensorFlow's tracing frame unreadable
    (as after a release that renames its locals), or the hook itself failing."""
    if how == "frame":
        monkeypatch.setattr(_internals, "tracing_locals", lambda frame: None)
    else:

        def broken(self, args):
            raise RuntimeError("hook failed")

        monkeypatch.setattr(rx._Watch, "before_body", broken)


@pytest.mark.parametrize("how", ["frame", "hook"])
def test_a_trace_whose_start_cannot_be_read_is_reported_with_what_is_known(monkeypatch, how):
    @explain_retracing
    def scale(x, factor):
        return x * factor

    scale(tf.ones([2]), 2.0)
    scale(tf.ones([3]), 2.0)  # read: a shape change
    unread_traces(monkeypatch, how)
    scale(tf.ones([4, 4]), 3.0)
    assert scale.experimental_get_tracing_count() == 3
    assert len(scale._watch.traces) == 3  # reconciled with TensorFlow's own count
    # (a parametrized run before this one made a tf.function for this code already)
    first, unread = [r for r in scale.retrace_reasons if r.subkind != "new-tf-function"]
    assert first.kind == "shape"
    assert (unread.kind, unread.subkind, unread.trace, unread.cause) == (
        "unknown",
        "unread",
        3,
        "TFR010",
    )
    assert "the cause could not be read" in unread.message
    assert "x: a float32 tensor of shape (4, 4), factor: 3.0" in unread.message
    assert unread.message.count("[TFR010]") == 1


def test_an_unread_first_trace_is_counted_but_is_not_a_retrace(monkeypatch):
    unread_traces(monkeypatch, "frame")
    watched = explain_retracing(lambda x: x + 1)
    watched(tf.ones([2]))
    assert (len(watched._watch.traces), watched.retrace_reasons) == (1, [])
    watched(tf.ones([3]))
    (reason,) = watched.retrace_reasons
    assert reason.subkind == "unread" and reason.trace == 2


def test_unread_traces_of_a_method_are_counted_for_every_instance(monkeypatch):
    class Scaler(tf.Module):
        @explain_retracing
        def scale(self, x):
            return x * 2.0

    unread_traces(monkeypatch, "frame")
    first, second = Scaler(), Scaler()
    first.scale(tf.ones([2]))
    second.scale(tf.ones([2]))
    first.scale(tf.ones([3]))
    counted = first.scale.experimental_get_tracing_count()
    counted += second.scale.experimental_get_tracing_count()
    assert counted == len(Scaler.scale._watch.traces) == 3
    assert [r.subkind for r in Scaler.scale.retrace_reasons] == ["unread", "unread"]


def test_an_unread_retrace_is_logged_reported_and_guarded(monkeypatch, caplog):
    watched = explain_retracing(lambda x: x + 1)
    watched(tf.ones([2]))
    unread_traces(monkeypatch, "frame")
    with (
        caplog.at_level(logging.WARNING, logger="retrace"),
        pytest.raises(RetracingBudgetExceeded, match="could not be read"),
        guard_retracing(watched),
    ):
        watched(tf.ones([3]))
    assert "could not be read" in caplog.text
    assert "  1 retrace: the cause could not be determined. " in report([watched._watch])


def test_on_readable_programs_the_traces_recorded_equal_tensorflows_count():
    """The same invariant where nothing is forced: shapes, Python values, structures,
    a new instance, a variable-creating first call, a call from another graph."""

    class Counter(tf.Module):
        def __init__(self):
            self.total = None

        @explain_retracing
        def add(self, x):
            if self.total is None:
                self.total = tf.Variable(tf.zeros_like(x))
            return self.total.assign_add(x)

    @explain_retracing
    def body(x, n=1, items=()):
        return x * n + tf.add_n([x, *items])

    def in_a_graph():
        with tf.Graph().as_default():
            body(tf.ones([3]))

    for call in (
        lambda: body(tf.ones([2])),
        lambda: body(tf.ones([3])),
        lambda: body(tf.ones([3]), n=2),
        lambda: body(tf.ones([3]), items=(tf.ones([3]),)),
        lambda: body(tf.ones([3], tf.float64)),
        in_a_graph,
    ):
        call()
    counters = [Counter(), Counter()]
    for counter in counters:
        counter.add(tf.ones([2]))
    assert len(body._watch.traces) == body.experimental_get_tracing_count() == 6
    assert len(body.retrace_reasons) == 5
    counted = sum(counter.add.experimental_get_tracing_count() for counter in counters)
    assert len(Counter.add._watch.traces) == counted
    assert all(r.subkind != "unread" for r in body.retrace_reasons + Counter.add.retrace_reasons)


def test_a_method_called_on_temporaries_is_explained_as_a_new_object_each_time(caplog):
    # TensorFlow traces a method called on a temporary with `self` None: the object is
    # gone by then. Each temporary is a new object with its own traces.
    class Scorer:
        @explain_retracing
        @tf.function
        def score(self, x):
            return x * 2

    with caplog.at_level(logging.ERROR, logger="retrace"):
        for _ in range(3):
            Scorer().score(tf.ones([2]))
        kept = Scorer()
        kept.score(tf.ones([2]))
        kept.score(tf.ones([3]))
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # nothing failed
    reasons = kept.score.retrace_reasons
    assert [(r.cause, r.subkind) for r in reasons[:3]] == [("TFR005", "self")] * 3
    assert "gone by the time it traced" in reasons[0].message
    assert "a new object (Scorer #1, not an object (already collected))" in reasons[2].message
    assert reasons[3].kind == "shape"
    assert len(kept.score._watch.traces) == 5
