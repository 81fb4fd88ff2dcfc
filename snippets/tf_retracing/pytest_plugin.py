"""A pytest plugin: fail a test whose code makes a tf.function trace again too often.

Registered through the ``pytest11`` entry point, so installing tf-retracing makes it
available to pytest; it does nothing (and imports no TensorFlow) unless a test asks::

    @pytest.mark.max_retraces(0)          # every tf.function the test creates: no retrace
    def test_serving_loop(): ...

    def test_training(retrace_budget):     # or a block inside the test
        with retrace_budget(2):            # at most 2 retraces per function in the block
            ...

Only tf.functions created inside the test (or the block) are watched, as with
``watch_every_tf_function``: the two cannot be nested. A trace that is part of a one-off
(the second trace of a first call that creates variables, or one ``tf.saved_model.save``
makes of a concrete function) is not counted. The failure lists each function over
budget with the explainer's reason for each retrace (the first ``SHOWN_REASONS``, then how
many more), once: the watch's own log line per retrace is held back inside the block.

A retrace made by a thread that was already running when the test (or block) began, a
background thread an earlier test left behind, is not this test's doing: it is not counted
against the budget, and the test gets a ``pytest.PytestWarning`` saying how many such
retraces were left out and in which threads. (Thread identities are Python's
``threading.get_ident()``; one reused by a thread started inside the block after an older
thread ended would be left out too.)
"""

from __future__ import annotations

import contextlib
import logging
import threading
import warnings
from collections.abc import Callable

import pytest

MARKER = "max_retraces"
# Retraces that are part of something done once (see explainer._part_of_a_one_off).
_ONE_OFF = frozenset({("context", "variable-creation"), ("context", "saving")})
SHOWN_REASONS = 20  # per function over budget; the rest are counted, not printed


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(n=0): fail the test if a tf.function it creates traces again more than "
        "n times; the failure gives tf_retracing's reason for each retrace",
    )


def _budget(marker) -> int:
    if marker.kwargs and set(marker.kwargs) != {"n"}:
        raise pytest.UsageError(f"@pytest.mark.{MARKER} takes one argument, n: {marker}")
    values = [*marker.args, *marker.kwargs.values()]
    if len(values) > 1:
        raise pytest.UsageError(f"@pytest.mark.{MARKER} takes one argument, n: {marker}")
    budget = values[0] if values else 0
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise pytest.UsageError(f"@pytest.mark.{MARKER}: n must be an int >= 0, got {budget!r}")
    return budget


class _Watching:
    """Watches every tf.function made inside the block; at its end, fails with the reasons
    of each function over the budget. A class, not a generator, so that a failure shows
    the reader's test and the reasons, none of this plugin's frames (__tracebackhide__)."""

    def __init__(self, budget: int, where: str):
        self.budget, self.where = budget, where
        self._block = None
        self._watches: list = []
        self._older_threads: dict[int, str] = {}
        self._quiet = _HeldBack(self)

    def __enter__(self) -> None:
        from tf_retracing import watch_every_tf_function

        current = threading.get_ident()
        self._older_threads = {
            thread.ident: thread.name
            for thread in threading.enumerate()
            if thread.ident is not None and thread.ident != current
        }
        self._block = watch_every_tf_function()
        self._watches = self._block.__enter__()
        logging.getLogger("retrace").addFilter(self._quiet)

    def __exit__(self, *exc_info) -> bool:
        __tracebackhide__ = True
        logging.getLogger("retrace").removeFilter(self._quiet)
        self._block.__exit__(*exc_info)
        if exc_info[0] is None:
            self._check()
        return False

    def _check(self) -> None:
        __tracebackhide__ = True
        from tf_retracing import RetracingBudgetExceeded
        from tf_retracing.explainer import summarise

        over, elsewhere = [], []
        threads = {id(t.reason): t.thread for w in self._watches for t in w.traces if t.reason}
        for summary in summarise(self._watches):
            counted = []
            for reason in summary.reasons:
                if not _counts(reason, self._watches):
                    continue
                thread = threads.get(id(reason))
                if thread in self._older_threads:
                    elsewhere.append(self._older_threads[thread])
                else:
                    counted.append(reason)
            if len(counted) > self.budget:
                over.append(_over_budget(summary, counted, self.budget))
        if elsewhere:
            note = _older_thread_note(self.where, elsewhere)
            warnings.warn(note, pytest.PytestWarning, stacklevel=2)
        if over:
            raise RetracingBudgetExceeded(f"{self.where}:\n" + "\n".join(over))


class _HeldBack(logging.Filter):
    """Holds back the watch's log line for each retrace of the block's functions: the
    failure lists them, and pytest would otherwise print each one a second time, under
    "Captured log call"."""

    def __init__(self, watching: _Watching):
        super().__init__()
        self.watching = watching

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(
            watch.reasons and watch.reasons[-1].message == message
            for watch in self.watching._watches
        )


def _over_budget(summary, counted: list, budget: int) -> str:
    lines = [
        f"`{summary.function}` ({summary.defined_at}) traced again {len(counted)} "
        f"time{'' if len(counted) == 1 else 's'}; the budget is {budget}:"
    ]
    lines.extend(f"  - {reason.message}" for reason in counted[:SHOWN_REASONS])
    if len(counted) > SHOWN_REASONS:
        lines.append(
            f"  ... and {len(counted) - SHOWN_REASONS} more retraces "
            f"(the first {SHOWN_REASONS} are shown)"
        )
    return "\n".join(lines)


def _older_thread_note(where: str, threads: list[str]) -> str:
    names = ", ".join(sorted(set(threads)))
    return (
        f"{where}: {len(threads)} retrace{'' if len(threads) == 1 else 's'} made by a thread "
        f"that was running before the test began ({names}) not counted against the budget: "
        "an earlier test's background thread is not this test's doing"
    )


def _counts(reason, watches: list) -> bool:
    """Whether a retrace counts against the budget: not a one-off, and not the first trace
    of the first tf.function the block made for its code (a tf.function made for the same
    code before the block, by an earlier test say, is not this block's doing)."""
    if (reason.kind, reason.subkind) in _ONE_OFF:
        return False
    if reason.subkind != "new-tf-function":
        return True
    first = next(w for w in watches if any(r is reason for r in w.reasons))
    same_code = [watch for watch in watches if watch.code is first.code]
    return first is not same_code[0]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    __tracebackhide__ = True
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return (yield)
    with _Watching(_budget(marker), f"@pytest.mark.{MARKER}({_budget(marker)})"):
        return (yield)


@pytest.fixture
def retrace_budget() -> Callable[[int], contextlib.AbstractContextManager]:
    """``with retrace_budget(n):`` fails the test if a tf.function created in the block
    traces again more than ``n`` times."""

    def budget(max_retraces: int = 0) -> contextlib.AbstractContextManager:
        if isinstance(max_retraces, bool) or not isinstance(max_retraces, int):
            raise TypeError(f"retrace_budget(): max_retraces must be an int, got {max_retraces!r}")
        if max_retraces < 0:
            raise ValueError(f"retrace_budget(): max_retraces must be >= 0, got {max_retraces}")
        return _Watching(max_retraces, f"retrace_budget({max_retraces})")

    return budget
