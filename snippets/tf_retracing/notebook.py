"""The explainer in a notebook (Jupyter, Colab, VS Code): ``%load_ext tf_retracing``.

From then on, every ``tf.function`` made or called in any cell is watched, as
``python -m tf_retracing.explain`` watches a script. After a cell in which something traced
again, a short summary appears under the cell's output: the function, the cause and its
section of the guide, the argument, what changed, and the advice's first sentence. A cell
in which nothing traced again shows nothing. A background thread's retraces are shown under
the next cell to end, said to be from that thread and when they happened. Places in the
notebook's code are named by cell (``cell In[3], line 2``). ``%retracing`` shows the whole
report so far (as rich HTML in a notebook, as text elsewhere); ``%unload_ext tf_retracing``
stops watching, and nothing more is printed.

IPython is imported only here, when the extension is loaded: it is not a dependency. The
package's ``load_ipython_extension`` runs its TensorFlow version check first and says here
why the explainer cannot run, if it cannot.
"""

from __future__ import annotations

import contextlib
import html
import logging
import re
import threading
import time

from tf_retracing.explainer_types import RetraceReason
from tf_retracing.html_report import inline_code, reason_literals

_SESSION: NotebookSession | None = None


class NotebookSession:
    """Watches every tf.function of a kernel and tells, after each cell, what retraced."""

    def __init__(self, ipython):
        from tf_retracing import explainer  # TensorFlow: imported when the extension loads

        self.ipython = ipython
        self._explainer = explainer
        self._stack = contextlib.ExitStack()
        self.watches = self._stack.enter_context(explainer.watch_every_tf_function())
        # A function made before this load is reported as such, never as made anew.
        self.watches.started = "%load_ext tf_retracing"
        self.watches.watch_again = "run the cell that makes it again"
        # The summary under each cell replaces the log line per retrace (errors still show).
        logger = logging.getLogger(explainer.LOGGER.name)
        self._stack.callback(logger.setLevel, logger.level)
        logger.setLevel(logging.ERROR)
        # At unload, before the logger speaks again: functions made while loaded stop
        # recording and printing (the callbacks run last registered, first).
        self._stack.callback(explainer.stop_watching, self.watches)
        previous = explainer.set_location_namer(self.cell_location)
        self._stack.callback(explainer.set_location_namer, previous)
        self._told: dict[int, int] = {}  # id of a watch -> its traces already looked at
        self._told_unwatched = 0
        self.cell = CellTime()  # the cell running now, or the last one to end

    def cell_location(self, filename: str, line: int) -> str | None:
        """``cell In[3], line 2`` for code of a cell (IPython's own name for it, as in its
        tracebacks); None for a file, which keeps its name."""
        named = getattr(getattr(self.ipython, "compile", None), "format_code_name", None)
        label = named(filename) if named is not None else None
        return f"cell {label[1]}, line {line}" if label else None

    def before_cell(self, _info=None) -> None:
        self.cell.start(getattr(self.ipython, "execution_count", None))

    def new_traces(self) -> list:
        """The traces recorded since the last call that have a reason, per watch."""
        found = []
        for watch in self.watches:
            told = self._told.get(id(watch), 0)
            found.extend(trace for trace in watch.traces[told:] if trace.reason is not None)
            self._told[id(watch)] = len(watch.traces)
        return found

    def new_unwatched(self) -> list:
        unwatched = list(self.watches.unwatched.values())
        fresh = unwatched[self._told_unwatched :]
        self._told_unwatched = len(unwatched)
        return fresh

    def after_cell(self, result=None) -> None:
        number = getattr(result, "execution_count", None)
        traces, unwatched = self.new_traces(), self.new_unwatched()
        if traces or unwatched:
            labelled = [(self.cell.where(trace, number), trace.reason) for trace in traces]
            _display(CellSummary(labelled, unwatched))
        self.cell.end(number)

    def report(self) -> Report:
        return Report(
            self._explainer.report_data(self.watches), self._explainer.report(self.watches)
        )

    def close(self) -> None:
        self._stack.close()


class CellTime:
    """When the current cell started, in which thread, and which cell ended before it: a
    retrace from another thread is placed between them, never in a cell it did not run in."""

    def __init__(self):
        self.number = self.previous = None  # In[] numbers (None where IPython gives none)
        self.started: float | None = None  # perf_counter at the cell's start
        self.thread: int | None = None  # the thread that runs cells

    def start(self, number) -> None:
        self.number, self.started, self.thread = number, time.perf_counter(), threading.get_ident()

    def end(self, number) -> None:
        self.previous = number if number is not None else self.number
        self.started = None

    def where(self, trace, number) -> str | None:
        """None for a retrace of the cell's own thread; otherwise where it came from."""
        if self.thread is None or trace.thread == self.thread:
            return None
        cell = _cell(number)
        done = trace.started + (trace.ms or 0.0) / 1e3  # when it was recorded
        if self.started is not None and done >= self.started:
            when = f"while {cell} ran"
        elif self.previous is not None:
            when = f"after {_cell(self.previous)} ended, before {cell} ran"
        else:
            when = f"before {cell} ran"
        return f"from background thread {trace.thread_name!r}, {when}"


def _cell(number) -> str:
    return f"cell In[{number}]" if number is not None else "this cell"


class CellSummary:
    """What traced again during one cell (and, said so, in other threads meanwhile): one
    line per origin, function and cause."""

    def __init__(self, reasons: list[tuple[str | None, RetraceReason]], unwatched: list):
        self.groups: dict[tuple, list[RetraceReason]] = {}
        for origin, reason in reasons:
            key = (origin, reason.function, reason.cause, reason.argument)
            self.groups.setdefault(key, []).append(reason)
        self.unwatched = unwatched

    def lines(self) -> list[tuple[str | None, RetraceReason, int]]:
        return [(key[0], same[-1], len(same)) for key, same in self.groups.items()]

    def __repr__(self) -> str:
        out = [f"tf_retracing: {_line_text(*line)}" for line in self.lines()]
        out += [f"tf_retracing: {item.advice()}" for item in self.unwatched]
        return "\n".join(out)

    def _repr_html_(self) -> str:
        items = [f"<li>{_line_html(*line)}</li>" for line in self.lines()]
        items += [f"<li>{html.escape(item.advice())}</li>" for item in self.unwatched]
        own = any(origin is None for origin, _, _ in self.lines())
        return (
            f'<div class="tf-retracing-cell"><strong>Traced again'
            f"{' in this cell' if own else ''}</strong><ul>{''.join(items)}</ul>"
            "<small>The whole report: <code>%retracing</code></small></div>"
        )


class Report:
    """The whole-program report: HTML in a notebook (the page ``--html`` writes), text
    elsewhere; ``data`` is the JSON report's content."""

    def __init__(self, data: dict, text: str):
        self.data = data
        self.text = text

    def __repr__(self) -> str:
        return self.text or "No tf.function traced since tf_retracing was loaded."

    def _repr_html_(self) -> str:
        from tf_retracing.html_report import render_fragment

        # No exit status: a notebook's kernel has not ended.
        return render_fragment({**self.data, "script": "this notebook"})


def _line_text(origin: str | None, reason: RetraceReason, times: int) -> str:
    what, advice = split_message(reason.message)
    return f"{_times(origin, times)}{what} {advice} [{reason.cause}] {reason.url}"


def _line_html(origin: str | None, reason: RetraceReason, times: int) -> str:
    what, advice = split_message(reason.message)
    literals = reason_literals(reason.as_dict())
    return (
        f"{html.escape(_times(origin, times))}{inline_code(what, literals)} "
        f"{inline_code(advice, literals)} "
        f'<a href="{html.escape(reason.url)}" target="_blank">{reason.cause}</a>'
    )


def _times(origin: str | None, times: int) -> str:
    where = "in this cell" if origin is None else origin
    if times == 1:
        return "" if origin is None else f"{origin}: "
    return f"{times} retraces of this kind {where}; the last: "


_LINK = re.compile(r"\s*\[TFR\d+\] \S+$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def split_message(message: str) -> tuple[str, str]:
    """A reason's message as what happened (its first sentence) and the advice's first
    sentence, without the cause's link."""
    sentences = _SENTENCE_END.split(_LINK.sub("", message).strip(), maxsplit=2)
    return sentences[0], sentences[1] if len(sentences) > 1 else ""


def _display(value) -> None:
    from IPython.display import display

    display(value)


def load(ipython, unavailable: str | None = None) -> None:
    """``%load_ext tf_retracing``: start watching, summarise after cells, add the magic.
    ``unavailable``: why the explainer cannot run on this TensorFlow (the package's check)."""
    global _SESSION
    if _SESSION is not None:
        return  # loaded already: IPython calls this again on a second %load_ext
    if unavailable is not None:
        raise RuntimeError(f"tf_retracing: {unavailable}; this needs the explainer")
    _SESSION = NotebookSession(ipython)
    ipython.events.register("pre_run_cell", _SESSION.before_cell)
    ipython.events.register("post_run_cell", _SESSION.after_cell)
    ipython.register_magic_function(_retracing_magic, magic_kind="line", magic_name="retracing")
    _SESSION.before_cell()  # the cell running %load_ext: its end is the first after_cell


def unload(ipython) -> None:
    """``%unload_ext tf_retracing``: stop watching; functions made since stay usable, and
    say nothing more."""
    global _SESSION
    if _SESSION is None:
        return
    ipython.events.unregister("pre_run_cell", _SESSION.before_cell)
    ipython.events.unregister("post_run_cell", _SESSION.after_cell)
    _SESSION.close()
    _SESSION = None


def _retracing_magic(_line: str = "") -> Report:
    if _SESSION is None:
        raise RuntimeError("tf_retracing is not loaded: run %load_ext tf_retracing first")
    return _SESSION.report()
