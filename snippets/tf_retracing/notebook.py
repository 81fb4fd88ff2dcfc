"""The explainer in a notebook (Jupyter, Colab, VS Code): ``%load_ext tf_retracing``.

From then on, every ``tf.function`` made or called in any cell is watched, as
``python -m tf_retracing.explain`` watches a script. After a cell in which something traced
again, a short summary appears under the cell's output: the function, the cause and its
section of the guide, the argument, what changed, and the advice's first sentence. A cell
in which nothing traced again shows nothing. ``%retracing`` shows the whole report so far
(as rich HTML in a notebook, as text elsewhere); ``%unload_ext tf_retracing`` stops
watching.

IPython is imported only here, when the extension is loaded: it is not a dependency.
"""

from __future__ import annotations

import contextlib
import html
import logging
import re

import tf_retracing
from tf_retracing.explainer_types import RetraceReason
from tf_retracing.html_report import inline_code, reason_literals

_SESSION: NotebookSession | None = None


class NotebookSession:
    """Watches every tf.function of a kernel and tells, after each cell, what retraced."""

    def __init__(self, ipython):
        self.ipython = ipython
        self._stack = contextlib.ExitStack()
        # Through the package, so that its TensorFlow version check runs (and refuses,
        # with the reason, a release the explainer cannot read).
        self.watches = self._stack.enter_context(tf_retracing.watch_every_tf_function())
        # The summary under each cell replaces the log line per retrace (errors still show).
        logger = logging.getLogger(tf_retracing.explainer.LOGGER.name)
        self._stack.callback(logger.setLevel, logger.level)
        logger.setLevel(logging.ERROR)
        self._told: dict[int, int] = {}  # id of a watch -> its reasons already summarised
        self._told_unwatched = 0

    def new_reasons(self) -> list[RetraceReason]:
        """The reasons recorded since the last call, in the order of the watches."""
        found = []
        for watch in self.watches:
            told = self._told.get(id(watch), 0)
            found.extend(watch.reasons[told:])
            self._told[id(watch)] = len(watch.reasons)
        return found

    def new_unwatched(self) -> list:
        unwatched = list(self.watches.unwatched.values())
        fresh = unwatched[self._told_unwatched :]
        self._told_unwatched = len(unwatched)
        return fresh

    def after_cell(self, _result=None) -> None:
        reasons, unwatched = self.new_reasons(), self.new_unwatched()
        if reasons or unwatched:
            _display(CellSummary(reasons, unwatched))

    def report(self) -> Report:
        return Report(tf_retracing.report_data(self.watches), tf_retracing.report(self.watches))

    def close(self) -> None:
        self._stack.close()


class CellSummary:
    """What traced again during one cell: one line per function and cause."""

    def __init__(self, reasons: list[RetraceReason], unwatched: list):
        self.groups: dict[tuple, list[RetraceReason]] = {}
        for reason in reasons:
            self.groups.setdefault((reason.function, reason.cause, reason.argument), []).append(
                reason
            )
        self.unwatched = unwatched

    def lines(self) -> list[tuple[RetraceReason, int]]:
        return [(same[-1], len(same)) for same in self.groups.values()]

    def __repr__(self) -> str:
        out = [f"tf_retracing: {_line_text(reason, n)}" for reason, n in self.lines()]
        out += [f"tf_retracing: {item.advice()}" for item in self.unwatched]
        return "\n".join(out)

    def _repr_html_(self) -> str:
        items = [f"<li>{_line_html(reason, n)}</li>" for reason, n in self.lines()]
        items += [f"<li>{html.escape(item.advice())}</li>" for item in self.unwatched]
        return (
            '<div class="tf-retracing-cell"><strong>Traced again in this cell</strong>'
            f"<ul>{''.join(items)}</ul>"
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

        return render_fragment({**self.data, "script": "this notebook"})


def _line_text(reason: RetraceReason, times: int) -> str:
    what, advice = split_message(reason.message)
    return f"{_times(times)}{what} {advice} [{reason.cause}] {reason.url}"


def _line_html(reason: RetraceReason, times: int) -> str:
    what, advice = split_message(reason.message)
    literals = reason_literals(reason.as_dict())
    return (
        f"{_times(times)}{inline_code(what, literals)} {inline_code(advice, literals)} "
        f'<a href="{html.escape(reason.url)}" target="_blank">{reason.cause}</a>'
    )


def _times(times: int) -> str:
    return "" if times == 1 else f"{times} retraces of this kind in this cell; the last: "


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


def load(ipython) -> None:
    """``%load_ext tf_retracing``: start watching, summarise after cells, add the magic."""
    global _SESSION
    if _SESSION is not None:
        return  # loaded already: IPython calls this again on a second %load_ext
    _SESSION = NotebookSession(ipython)
    ipython.events.register("post_run_cell", _SESSION.after_cell)
    ipython.register_magic_function(_retracing_magic, magic_kind="line", magic_name="retracing")


def unload(ipython) -> None:
    """``%unload_ext tf_retracing``: stop watching; functions made since stay usable."""
    global _SESSION
    if _SESSION is None:
        return
    ipython.events.unregister("post_run_cell", _SESSION.after_cell)
    _SESSION.close()
    _SESSION = None


def _retracing_magic(_line: str = "") -> Report:
    if _SESSION is None:
        raise RuntimeError("tf_retracing is not loaded: run %load_ext tf_retracing first")
    return _SESSION.report()
