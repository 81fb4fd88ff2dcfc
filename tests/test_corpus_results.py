"""The corpora's results files: a bad file is refused with its path and the field that is
wrong, before a page renders it; a good one is written whole and read back."""

from __future__ import annotations

import json
import os

import pytest

from verification.corpus_results import ResultsError, render_on_page
from verification.explainer_corpus import results as explainer
from verification.lint_corpus import results as lint


def _write(tmp_path, data) -> object:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def _explainer_case(**changes) -> dict:
    case = {field: "x" for field in explainer.CASE_FIELDS}
    case.update(id="case_one", **changes)
    return case


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ("{not json", "Expecting property name"),
        ({"schema_version": 99}, "schema_version must be 1"),
        ({"schema_version": 1, "provenance": []}, "provenance must be an object"),
        ({"schema_version": 1, "provenance": {}, "cases": []}, "cases must be a non-empty list"),
        ({"schema_version": 1, "provenance": {}, "cases": [3]}, "cases[0] must be an object"),
    ],
)
def test_a_bad_explainer_results_file_names_its_path_and_field(tmp_path, data, named):
    path = _write(tmp_path, data)
    with pytest.raises(ResultsError) as error:
        explainer.read_results(path)
    assert str(error.value).startswith(f"{path}: ")
    assert named in str(error.value)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    with pytest.raises(ResultsError, match="not a regular file"):
        explainer.read_results(fifo)


def test_a_case_missing_a_field_is_named_with_its_id(tmp_path):
    case = _explainer_case()
    del case["fix"]
    path = _write(tmp_path, {"schema_version": 1, "provenance": {}, "cases": [case]})
    with pytest.raises(ResultsError, match=r"cases\[0\] \(case_one\) lacks 'fix'"):
        explainer.read_results(path)


def test_a_bad_file_is_not_written_and_a_good_one_reads_back(tmp_path):
    path = tmp_path / "results.json"
    with pytest.raises(ResultsError, match="cases must be a non-empty list"):
        explainer.write_results(path, {"date": "d"}, [])
    assert not path.exists()
    explainer.write_results(path, {"date": "d"}, [_explainer_case()])
    assert explainer.read_results(path)["cases"][0]["id"] == "case_one"


def test_the_linter_results_need_two_speed_modules(tmp_path):
    record = {"cases": ("id",), "repositories": ("name",)}
    data = {"schema_version": 1, "provenance": {}, "speed": {"modules": [{}]}}
    data.update({key: [dict.fromkeys(fields, "x")] for key, fields in record.items()})
    path = _write(tmp_path, data)
    with pytest.raises(ResultsError, match="lacks 'path'"):  # a case's next required field
        lint.read_results(path)


def test_a_page_with_the_marker_fails_on_a_bad_file_naming_the_corpus(tmp_path):
    path = _write(tmp_path, {"schema_version": 2})

    def read():
        return explainer.read_results(path)

    untouched = render_on_page("no marker", "<!-- m -->", read, None, "explainer corpus", "u")
    assert untouched == "no marker"
    with pytest.raises(ResultsError) as error:
        render_on_page("a <!-- m --> b", "<!-- m -->", read, None, "explainer corpus", "u")
    assert str(error.value) == f"explainer corpus results: {path}: schema_version must be 1"
