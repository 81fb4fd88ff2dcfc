"""The explain command's report as one self-contained HTML page (``--html PATH``).

Rendered from the same data as ``--json`` (no TensorFlow here): per function, its traces
in order, and for each retrace its cause, the argument path, what changed, the advice and
the guide's section on the cause. Nothing is loaded from the network (the style is
inline, there is no script), and the layout reflows to a phone's width.
"""

from __future__ import annotations

import html
import re

from tf_retracing.explainer_types import cause_of, printable


def escape(text: str) -> str:
    """HTML-escaped, and unsafe characters (control codes, bidirectional overrides, lone
    surrogates) written as their escapes, so that none reorders or loses the page."""
    return html.escape(printable(text))


STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem;
       padding: 1rem; color: #1b1b1b; background: #fff; overflow-wrap: anywhere; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
code { font: 0.9em ui-monospace, monospace; background: #f2f2f2; padding: 0 0.2em;
       overflow-wrap: anywhere; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.6rem; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
ul.traces { padding-left: 1.2rem; } ul.traces li { margin: 0.8rem 0; }
.cause { font-weight: 600; } .meta { color: #555; font-size: 0.9rem; }
.change { display: block; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  table.summary, table.summary tbody, table.summary tr, table.summary td { display: block; }
  table.summary thead { display: none; }
  table.summary tr { border-bottom: 1px solid #ddd; padding: 0.4rem 0; }
  table.summary td { border: 0; padding: 0.1rem 0; text-align: left; }
  table.summary td[data-label]::before { content: attr(data-label) ": "; color: #555; }
}
@media (prefers-color-scheme: dark) {
  body { color: #e6e6e6; background: #121212; } code { background: #2a2a2a; }
  th, td { border-color: #333; } .meta { color: #aaa; } a { color: #8ab4f8; }
}
"""
SUMMARY_COLUMNS = (
    ("function", "function"),
    ("defined at", "defined_at"),
    ("tf.functions", "tf_functions"),
    ("traces", "traces"),
    ("retraces", "retraces"),
    ("trace ms", "trace_ms"),
    ("retrace ms", "retrace_ms"),
)


def render_html(report: dict) -> str:
    """The page for ``report``: the explain command's JSON report, as a dict."""
    script = report.get("script") or "the program"
    head = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Retracing report: {escape(script)}</title>",
        f"<style>{STYLE}</style></head><body>",
    ]
    return "\n".join([*head, *_content(report), "</body></html>\n"])


SCOPE = "tf-retracing-report"


def render_fragment(report: dict) -> str:
    """The same report as a piece of a larger page (a notebook's output): its style
    applies only inside it."""
    opening = f'<div class="{SCOPE}"><style>{scoped(STYLE, "." + SCOPE)}</style>'
    return "\n".join([opening, *_content(report), "</div>"])


_RULE = re.compile(r"(?P<lead>(?:(?<=[{}])|\A)\s*)(?P<selectors>[^{}]+?)\s*\{")


def scoped(style: str, scope: str) -> str:
    """``style`` with every selector limited to ``scope`` (``body`` becomes the scope)."""

    def limit(match: re.Match) -> str:
        if match["selectors"].startswith("@"):  # an at-rule: its rules are limited inside
            return match.group()
        selectors = [s.strip() for s in match["selectors"].split(",")]
        limited = [scope if s == "body" else f"{scope} {s}" for s in selectors]
        return match["lead"] + ", ".join(limited) + " {"

    return _RULE.sub(limit, style)


def _content(report: dict) -> list[str]:
    script = report.get("script") or "the program"
    functions = report.get("functions", [])
    parts = [
        f"<h1>Retracing report for <code>{escape(script)}</code></h1>",
        _run_line(report),
    ]
    if report.get("explainer_unavailable"):
        parts.append(f"<p>{escape(report['explainer_unavailable'])}</p>")
    unwatched = report.get("unwatched", [])
    if not functions and not unwatched:
        parts.append("<p>No <code>tf.function</code> was created.</p>")
    elif functions:
        parts.append(_summary_table(functions))
        parts.extend(_function_section(number, f) for number, f in enumerate(functions, 1))
    if unwatched:
        parts.append("<section><h2>TensorFlow warned about functions not watched</h2><ul>")
        parts.extend(f"<li>{escape(item['advice'])}</li>" for item in unwatched)
        parts.append("</ul></section>")
    return parts


def _run_line(report: dict) -> str:
    versions = report.get("versions", {})
    facts = []
    if report.get("exit_status") is not None:  # a notebook's report has none
        facts.append(
            escape(
                f"exit status {report['exit_status']} when the program's code ended (atexit "
                "handlers run after this report and can still change the process's)"
            )
        )
    facts += [escape(f"{name} {value}") for name, value in versions.items() if value]
    args = report.get("args") or []
    if args:
        facts.insert(0, "arguments " + " ".join(f"<code>{escape(a)}</code>" for a in args))
    return f'<p class="meta">{escape(", ").join(facts)}</p>'


def _summary_table(functions: list[dict]) -> str:
    header = "".join(f"<th>{escape(title)}</th>" for title, _ in SUMMARY_COLUMNS)
    rows = []
    for number, function in enumerate(functions, 1):
        name = escape(function["function"])
        cells = [
            f'<td><a href="#function-{number}"><code>{name}</code></a></td>',
            f'<td data-label="defined at"><code>{escape(function["defined_at"])}</code></td>',
        ]
        for title, field in SUMMARY_COLUMNS[2:]:
            value = function[field]
            text = f"{value:.1f}" if isinstance(value, float) else str(value)
            cells.append(f'<td class="n" data-label="{title}">{text}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="scroll"><table class="summary"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _function_section(number: int, function: dict) -> str:
    name = escape(function["function"])
    reasons = function["reasons"]  # in the order they happened, per tf.function
    first_traces = function["traces"] - len(reasons)
    first = "<li>trace 1: <span class='cause'>first trace</span>"
    if first_traces > 1:  # tf.function objects whose first trace found no earlier one
        first += f" ({first_traces} first traces)"
    # Numbered through the whole group: with one tf.function, as the reasons number them.
    items = [f"{first}</li>"]
    items += [_reason_item(number, reason) for number, reason in enumerate(reasons, start=2)]
    return (
        f'<section id="function-{number}"><h2><code>{name}</code></h2>'
        f'<p class="meta">defined at <code>{escape(function["defined_at"])}</code>; '
        f"{function['traces']} traces, {len(reasons)} retraces</p>"
        f'<ul class="traces">{"".join(items)}</ul></section>'
    )


def _reason_item(number: int, reason: dict) -> str:
    argument = reason["argument"]
    what = cause_of(reason["kind"], argument, reason.get("subkind")).title
    where = f" for argument <code>{escape(argument)}</code>" if argument else ""
    change = ""
    if reason["before"] or reason["after"]:
        change = (
            f'<span class="change"><code>{escape(reason["before"])}</code> → '
            f"<code>{escape(reason['after'])}</code></span>"
        )
    timing = f" ({reason['trace_ms']:.1f} ms)" if reason.get("trace_ms") is not None else ""
    return (
        f'<li>trace {number}: <span class="cause">'
        f'<a href="{escape(reason["url"])}">{escape(reason["cause"])}</a>: '
        f"{escape(what)}</span>{where}{timing}{change}"
        f"<p>{inline_code(_advice(reason), reason_literals(reason))}</p></li>"
    )


_BACKTICKED = re.compile(r"`([^`]+)`")


def inline_code(text: str, literals=()) -> str:
    """Escaped text whose `backticked` parts are shown as code, not as backticks.

    ``literals`` are the program's own names and values the text quotes (the function's
    name, the argument's path, the values before and after): a backtick inside one is that
    character, not the edge of a code span, so it cannot pair with the wrong one."""
    hidden = {}
    for literal in sorted({x for x in literals if x and "`" in x}, key=len, reverse=True):
        token = f"\ue000{len(hidden)}\ue001"  # private-use characters: no name holds them
        hidden[token] = literal
        text = text.replace(literal, token)
    shown = _BACKTICKED.sub(r"<code>\1</code>", escape(text))
    for token, literal in hidden.items():
        shown = shown.replace(token, escape(literal))
    return shown


def reason_literals(reason: dict) -> tuple[str, ...]:
    """What a reason's message quotes from the program (see ``inline_code``)."""
    fields = ("function", "argument", "before", "after")
    return tuple(str(reason[f]) for f in fields if reason.get(f))


def _advice(reason: dict) -> str:
    """The message without the identifier and link it ends with (shown as the link)."""
    tail = f" [{reason['cause']}] {reason['url']}"
    message = reason["message"]
    return message[: -len(tail)] if message.endswith(tail) else message
