"""Text from a results file reaches the page as text: never as HTML, Markdown or a link."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import markdown
import pytest

from benchmarks.render import provenance_line, runs_table, scenario_plot, scenario_table, text
from benchmarks.schema import ResultsFile, load_results

FIXTURES = Path(__file__).parent / "fixtures" / "benchmarks"
PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "a | b | c",
    "`x` <b>bold</b>",
    "[click](javascript:alert(1))",
    "javascript:alert(1)",
    "*emphasis* _under_ $x^2$",
]
FIELDS = {
    "label": lambda r, v: r["variants"][0].__setitem__("label", v),
    "title": lambda r, v: r.__setitem__("title", v),
    "parameter": lambda r, v: r["parameters"].__setitem__("stream", v),
    "cpu_model": lambda r, v: r["provenance"].__setitem__("cpu_model", v),
    "command": lambda r, v: r["provenance"].__setitem__("command", v),
    "git_commit": lambda r, v: r["provenance"].__setitem__("git_commit", v),
    "date": lambda r, v: r["provenance"].__setitem__("date", v),
    "tensorflow": lambda r, v: r["provenance"].__setitem__("tensorflow", v),
}


@pytest.fixture(scope="module")
def clean() -> dict:
    return load_results(FIXTURES)["cpu"].scenarios["predict_loop"]


def _html(markdown_text: str) -> str:
    return markdown.markdown(markdown_text, extensions=["tables"])


def _rendered(result: dict) -> str:
    return _html(scenario_table("predict_loop", result) + "\n\n" + provenance_line(result))


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("field", list(FIELDS))
def test_a_text_field_cannot_inject_markup(clean, field, payload):
    result = copy.deepcopy(clean)
    FIELDS[field](result, payload)
    html = _rendered(result)
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert "<a " not in html and "<em>" not in html
    clean_columns = [
        row.count("<td") for row in re.findall(r"<tr>.*?</tr>", _rendered(clean), re.S)
    ]
    columns = [row.count("<td") for row in re.findall(r"<tr>.*?</tr>", html, re.S)]
    assert columns == clean_columns  # a "|" adds no column


def test_escaped_text_still_reads_as_the_same_characters(clean):
    import html as html_lib

    payload = "<b>1 | 2</b> & `x`"
    rendered = _html(text(payload))
    assert html_lib.unescape(re.sub(r"</?p>", "", rendered)) == payload


def test_backtick_spans_in_labels_stay_code_and_nothing_else(clean):
    result = copy.deepcopy(clean)
    result["variants"][0]["label"] = "one `tf.function` <i>per</i> model"
    html = _rendered(result)
    assert "<code>tf.function</code>" in html and "<i>" not in html


def test_plot_alt_text_is_escaped_where_the_page_uses_it(clean, tmp_path):
    from benchmarks.render import plot_images, plot_path

    result = copy.deepcopy(clean)
    result["title"] = "<script>alert(1)</script> ](javascript:x)"
    plots = {plot_path("cpu", "predict_loop"): scenario_plot(result)}
    html = _html(plot_images("predict_loop", plots, lambda p: p))
    assert "<script" not in html and "javascript:x)" not in html.split('src="')[1].split('"')[0]


def test_runs_table_escapes_date_and_commit(clean):
    result = copy.deepcopy(clean)
    result["provenance"]["date"] = "<script>x</script>"
    result["provenance"]["git_commit"] = "`a` | b"
    loaded = ResultsFile(
        path=FIXTURES / "cpu.json", device="cpu", scenarios={"predict_loop": result}
    )
    html = _html(runs_table({"cpu": loaded}))
    assert "<script" not in html


def test_plot_labels_are_text_in_the_svg(clean):
    result = copy.deepcopy(clean)
    result["variants"][0]["label"] = "<script>alert(1)</script> $x$"
    plot = scenario_plot(result)
    assert "<script" not in plot.svg  # matplotlib writes labels as XML text
    assert "&lt;script&gt;" in plot.svg
