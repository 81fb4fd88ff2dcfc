"""The explainer's reporting side: cause identifiers, reasons as data, the whole-program
report's costs, and the production guard."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
import time

import pytest
import tensorflow as tf
from tf_retracing import (
    CAUSES,
    KINDS,
    RetraceReason,
    RetracingBudgetExceeded,
    explain_retracing,
    guard_retracing,
    report,
    report_data,
    watch_every_tf_function,
)
from tf_retracing.explainer_types import GUIDE_URL, cause_of, retraces_sentence

LINK = re.compile(r" \[(TFR\d{3})\] (https://\S+#tfr\d{3})$")


def reason_of(kind: str, argument: str | None = "x", **fields) -> RetraceReason:
    values = dict(function="f", trace=2, before="a", after="b", message="changed.")
    return RetraceReason(argument=argument, kind=kind, **{**values, **fields})


# Cause identifiers ------------------------------------------------------------------


def test_every_kind_has_a_cause_and_every_cause_its_own_code_and_anchor():
    codes = [cause.code for cause in CAUSES]
    assert len(set(codes)) == len(codes)
    assert all(re.fullmatch(r"TFR\d{3}", code) for code in codes)
    assert {cause.kind for cause in CAUSES} == set(KINDS)
    for cause in CAUSES:
        assert cause.url == f"{GUIDE_URL}guide/diagnosing/#{cause.code.lower()}"


@pytest.mark.parametrize(
    ("kind", "argument", "code"),
    [
        ("shape", "x", "TFR001"),
        ("dtype", "x", "TFR002"),
        ("python-value", "n", "TFR003"),
        ("object", "config", "TFR004"),
        ("object", "self", "TFR005"),
        ("object", None, "TFR006"),
        ("structure", "xs", "TFR007"),
        ("new-argument", "training", "TFR008"),
        ("context", None, "TFR009"),
        ("unknown", None, "TFR010"),
    ],
)
def test_each_message_ends_with_its_cause_and_link(kind, argument, code):
    reason = reason_of(kind, argument)
    assert reason.cause == code == cause_of(kind, argument).code
    match = LINK.search(reason.message)
    assert match and match.groups() == (code, reason.url)
    assert reason.message.startswith("changed. [")


@pytest.mark.parametrize(
    ("kind", "argument", "subkind", "code"),
    [
        ("structure", "x", "spec-name", "TFR011"),
        ("context", None, "saving", "TFR012"),
        ("context", None, "device", "TFR013"),
        ("structure", "x", "container", "TFR007"),
        ("context", None, "variable-creation", "TFR009"),
    ],
)
def test_a_change_with_its_own_cause_gets_its_own_code_and_section(kind, argument, subkind, code):
    """A spec's name is not a container change; saving and devices are not just context."""
    reason = reason_of(kind, argument, subkind=subkind)
    assert reason.cause == code == cause_of(kind, argument, subkind).code
    match = LINK.search(reason.message)
    assert match and match.groups() == (code, reason.url)
    assert reason.message.startswith("changed. [")


# The argument and subkind of a reason of each cause, as the report's lines group them.
EACH_CAUSE = {
    "TFR001": ("shape", "x", "dimension"),
    "TFR002": ("dtype", "x", "dtype"),
    "TFR003": ("python-value", "k", "value"),
    "TFR004": ("object", "config", None),
    "TFR005": ("object", "self", None),
    "TFR006": ("object", None, None),
    "TFR007": ("structure", "xs", "container"),
    "TFR008": ("new-argument", "training", None),
    "TFR009": ("context", None, "variable-creation"),
    "TFR010": ("unknown", None, None),
    "TFR011": ("structure", "x", "spec-name"),
    "TFR012": ("context", None, "saving"),
    "TFR013": ("context", None, "device"),
}


@pytest.mark.parametrize("cause", CAUSES, ids=lambda cause: cause.code)
def test_the_report_heads_each_cause_with_a_sentence(cause):
    """Issue 42: '3 retraces: a new tf.function for the same code', not '3 x object of (no
    argument)'; every cause reads as a sentence, with its argument where it has one."""
    kind, argument, subkind = EACH_CAUSE[cause.code]
    assert cause_of(kind, argument, subkind) is cause
    (one, three) = (retraces_sentence(n, kind, argument, subkind) for n in (1, 3))
    where = f" for argument `{argument}`" if argument else ""
    assert one == f"1 retrace{where}: {cause.title}"
    assert three == f"3 retraces{where}: {cause.title}"
    assert " x " not in three and "(no argument)" not in three


def test_the_text_report_shows_those_sentences(program_watches):
    lines = report(program_watches).splitlines()
    (busy,) = [line for line in lines if "busy` traced again" in line]
    assert busy.startswith("  3 retraces for argument `x`: a tensor's shape changed. `")


def test_the_link_is_added_once_even_when_the_reason_is_copied():
    reason = dataclasses.replace(reason_of("shape"), trace_ms=1.5)
    assert reason.message.count("[TFR001]") == 1 and reason.trace_ms == 1.5


def test_an_unknown_kind_is_refused_with_the_list_of_kinds():
    with pytest.raises(ValueError, match=r"unknown kind of retrace 'sizes'.*shape, dtype"):
        reason_of("sizes")


def test_real_reasons_end_with_their_link():
    watched = explain_retracing(lambda x: x)
    watched(tf.zeros(1))
    watched(tf.zeros(1, tf.int32))
    (reason,) = watched.retrace_reasons
    assert reason.cause == "TFR002"
    assert reason.message.endswith(f"[TFR002] {GUIDE_URL}guide/diagnosing/#tfr002")


def test_the_counting_fallback_links_to_the_unknown_cause():
    from tf_retracing._counting import make_explain_retracing

    watched = make_explain_retracing("TensorFlow 9.9 is outside the supported range")(lambda x: x)
    watched(tf.zeros(1))
    watched(tf.zeros(2))
    (reason,) = watched.retrace_reasons
    assert reason.cause == "TFR010" and reason.message.endswith("#tfr010")


# Reasons as data --------------------------------------------------------------------


def test_as_dict_is_complete_plain_json_data():
    reason = reason_of("structure", others=("`y` shape (1,) -> (2,)",), count=None, trace_ms=2.0)
    data = reason.as_dict()
    fields = {field.name for field in dataclasses.fields(RetraceReason)}
    assert set(data) == fields | {"cause", "url"}
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["others"] == ["`y` shape (1,) -> (2,)"] and data["cause"] == "TFR007"


# The whole-program report: costs -------------------------------------------------------


@pytest.fixture(scope="module")
def program_watches():
    """One run only: a second run would be reported as new tf.functions for the same code."""
    with watch_every_tf_function() as watches:

        @tf.function
        def slow(x):
            time.sleep(0.3)  # runs only while tracing
            return x

        @tf.function
        def busy(x):
            return x + 1

        for n in (1, 2):
            slow(tf.zeros(n))
        for n in (1, 2, 3, 4):
            busy(tf.zeros(n))
    return watches


def test_report_totals_trace_time_and_puts_the_costliest_retracing_first(program_watches):
    text = report(program_watches)
    lines = text.splitlines()
    assert lines[0].split() == [
        "function", "defined", "at", "tf.functions", "traces", "retraces", "trace",
        "ms", "retrace", "ms",
    ]  # fmt: skip
    slow_row, busy_row = lines[1].split(), lines[2].split()
    # one retrace of slow costs more than three of busy: slow comes first
    assert slow_row[0].endswith("slow") and slow_row[2:5] == ["1", "2", "1"]
    assert busy_row[0].endswith("busy") and busy_row[2:5] == ["1", "4", "3"]
    slow_total, slow_retraces = map(float, slow_row[5:7])
    assert slow_retraces >= 300 and slow_total >= 600
    assert float(busy_row[6]) < slow_retraces


def test_report_data_is_versioned_plain_data_matching_the_text(program_watches):
    data = json.loads(json.dumps(report_data(program_watches), allow_nan=False))
    assert data["schema_version"] == 1
    slow, busy = data["functions"]
    assert slow["function"].endswith("slow") and busy["function"].endswith("busy")
    assert (slow["tf_functions"], slow["traces"], slow["retraces"]) == (1, 2, 1)
    assert busy["retraces"] == len(busy["reasons"]) == 3
    assert busy["retrace_ms"] == pytest.approx(sum(r["trace_ms"] for r in busy["reasons"]))
    assert busy["trace_ms"] > busy["retrace_ms"]  # the first trace counts in the total
    assert {r["cause"] for r in busy["reasons"]} == {"TFR001"}
    assert set(slow) == {
        "function", "defined_at", "tf_functions", "traces", "trace_ms", "retrace_ms",
        "retraces", "reasons",
    }  # fmt: skip


# The production guard ----------------------------------------------------------------


def test_guard_warmup_lets_each_function_trace_that_often_inside_the_block():
    watched = explain_retracing(lambda x: x * 2)
    with guard_retracing(watched, warmup=2) as guard:
        watched(tf.zeros(1))  # first trace: warm-up
        watched(tf.zeros(2))  # second trace: still warm-up
        with pytest.raises(RetracingBudgetExceeded, match=r"retrace after warm-up.*\[TFR001\]"):
            watched(tf.zeros(3))
    assert [r.trace for r in guard.reasons] == [3]


def test_guard_counts_every_tf_function_made_for_one_code_together():
    def handle(request):
        return tf.function(lambda x: x + 1)(request)  # a new tf.function per request

    with watch_every_tf_function(), guard_retracing(warmup=1) as guard:
        handle(tf.zeros(1))
        with pytest.raises(RetracingBudgetExceeded, match=r"\[TFR006\]"):
            handle(tf.zeros(1))
    assert [r.cause for r in guard.reasons] == ["TFR006"]


def test_guard_ignores_the_second_trace_of_a_first_call_that_creates_variables():
    weights = []

    @explain_retracing
    def dense(x):
        if not weights:
            weights.append(tf.Variable(tf.ones((2, 2))))
        return x @ weights[0]

    with guard_retracing(dense) as guard:
        dense(tf.zeros((1, 2)))  # traces twice in this call; neither is a retrace to act on
    assert dense.experimental_get_tracing_count() == 2
    assert [r.kind for r in dense.retrace_reasons] == ["context"] and guard.reasons == []


def test_guard_is_thread_safe_and_logs_once_per_function(caplog):
    @explain_retracing
    def serve(x):
        return x + 1

    serve(tf.zeros(1))
    widths = range(2, 10)
    with (
        caplog.at_level(logging.ERROR, logger="retrace"),
        guard_retracing(action="log") as guard,
    ):
        threads = [threading.Thread(target=serve, args=(tf.zeros(n),)) for n in widths]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "retrace after warm-up" in errors[0].getMessage()
    assert sorted(r.after for r in guard.reasons) == sorted(f"({n},)" for n in widths)


def test_a_raising_guard_lets_the_other_guards_count_first():
    watched = explain_retracing(lambda x: x)
    watched(tf.zeros(1))
    with (
        guard_retracing(action="log") as logging_guard,
        guard_retracing(watched) as raising_guard,
        pytest.raises(RetracingBudgetExceeded),
    ):
        watched(tf.zeros(2))
    assert len(logging_guard.reasons) == len(raising_guard.reasons) == 1


@pytest.mark.parametrize("warmup", [-1, 1.5, True, "2"])
def test_guard_refuses_a_bad_warmup(warmup):
    with (
        pytest.raises(ValueError, match="warmup must be an int >= 0"),
        guard_retracing(warmup=warmup),
    ):
        pass
