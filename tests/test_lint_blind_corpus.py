"""The blind corpus: marks read and checked, files scored against them (a hazard reached
through a wrapper counts where it was marked), and the committed results, if any, of the
linter as it is now."""

from __future__ import annotations

import json
import textwrap

import pytest

from benchmarks.code_hash import freshness
from verification.lint_corpus.blind import (
    RESULTS,
    MarkedFile,
    MarksError,
    read_marks,
    score_file,
    summary,
)

SOURCE = textwrap.dedent(
    """\
    import keras
    class Agent:
        def __init__(self):
            self.model = keras.models.load_model("q.keras")
        def act(self, state):
            return self.model.predict(state)
    agent = Agent()
    while True:
        agent.act(state)
    model = keras.Sequential([keras.layers.Dense(1)])
    for batch in batches:
        model.predict(batch)
    """
)


def test_a_hazard_is_found_at_its_line_or_through_the_call_that_reaches_it():
    marked = MarkedFile("o/r", "c" * 40, "a.py", "hazard", frozenset({(6, "TFL004", None)}))
    scored = score_file(marked, SOURCE)
    assert scored["missed"] == []
    # The predict at line 12 was not marked: a finding no mark covers.
    assert [f[:2] for f in scored["unmarked_findings"]] == [[12, "TFL004"]]
    assert summary([scored])["precision"] == 0.5


def test_a_missed_hazard_lowers_recall():
    marked = MarkedFile("o/r", "c" * 40, "a.py", "hazard", frozenset({(3, "TFL002", None)}))
    counted = summary([score_file(marked, SOURCE)])
    assert counted["recall"] == 0.0 and counted["by_rule"] == {"TFL002": {"marked": 1, "found": 0}}


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# A notebook"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["import keras\n", "model = keras.Sequential([keras.layers.Dense(1)])\n"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["for batch in batches:\n", "    model.predict(batch)\n"]},
    ],
    "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}  # fmt: skip


def test_a_notebooks_hazard_is_matched_in_its_cell_only():
    """Lines count within a code cell, as the linter names findings there: the same line
    in another cell is another place."""
    source = json.dumps(NOTEBOOK)
    right = MarkedFile("o/r", "c" * 40, "n.ipynb", "hazard", frozenset({(2, "TFL004", 2)}))
    scored = score_file(right, source)
    assert scored["missed"] == [] and scored["unmarked_findings"] == []
    wrong = MarkedFile("o/r", "c" * 40, "n.ipynb", "hazard", frozenset({(2, "TFL004", 1)}))
    scored = score_file(wrong, source)
    assert scored["missed"] == [[2, "TFL004", 1]]
    assert [f[:2] + f[-1:] for f in scored["unmarked_findings"]] == [[2, "TFL004", "cell 2"]]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"kind": "maybe"}, r"files\[0\]: kind: 'maybe'"),
        ({"hazards": [{"line": 3, "rule": "TFL099"}]}, r"hazards\[0\]: needs a line and a rule"),
        ({"commit": None, "path": None} | {"drop": "path"}, r"files\[0\]: path: missing"),
        ({"half": "both"}, r"files\[0\]: half: 'both' is not tune or sealed"),
        (
            {"path": "n.ipynb", "hazards": [{"line": 3, "rule": "TFL004"}]},
            r"files\[0\]: hazards\[0\]: cell: a notebook's hazard needs one",
        ),
        (
            {"hazards": [{"line": 3, "rule": "TFL004", "cell": 2}]},
            r"files\[0\]: hazards\[0\]: cell: only a notebook's hazard has one",
        ),
    ],
)
def test_malformed_marks_name_the_file_and_field(tmp_path, entry, message):
    good = {"repository": "o/r", "commit": "c", "path": "a.py", "kind": "clean", "hazards": []}
    bad = {**good, **entry}
    if "drop" in entry:
        del bad[entry["drop"]], bad["drop"]
    path = tmp_path / "marks.json"
    path.write_text(json.dumps({"files": [bad]}), encoding="utf-8")
    with pytest.raises(MarksError, match=message):
        read_marks(path)


def test_the_blind_results_are_of_the_linter_as_it_is_now():
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    assert freshness(results["provenance"]) is None
    assert results["summary"]["files"] >= 40 and results["summary"]["clean_files"] >= 10
    # The first score, the only blind one, is kept beside the latest.
    assert results["first_run"]["summary"]["hazards"] == results["summary"]["hazards"]


def test_the_lint_page_shows_the_blind_score_beside_the_latest():
    from verification.lint_corpus.blind import MARKER, read_results, replace_marker

    data = read_results()
    page = replace_marker(f"x\n{MARKER}\n", data, lambda path: f"https://example.org/{path}")
    first = data["first_run"]["summary"]
    assert f"| {first['found']} of {first['hazards']} |" in page
    assert f"| {data['summary']['found']} of {data['summary']['hazards']} |" in page
    assert page.count("line ") >= sum(len(f["missed"]) for f in data["files"])


# Corpus 11 was collected for the rule families the others lack (TFL001, TFL007-TFL010),
# which real code holds few of: 32 files.
AT_LEAST = {11: 30}


@pytest.mark.parametrize("corpus", [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
def test_the_split_corpora_are_split_in_two_halves_by_family(corpus):
    """Marked blind from the rules page; split before the linter first ran on it, so that
    one half can be tuned on and the other scored once (blind<N>_sealed_results.json keeps
    that first score)."""
    from verification.lint_corpus.blind import split_marks_file

    document, files = read_marks(split_marks_file(corpus))
    assert len(files) >= AT_LEAST.get(corpus, 45)
    assert "tune" in document["split"] and "sealed" in document["split"]
    halves = {half: [f for f in files if f.half == half] for half in ("tune", "sealed")}
    assert len(files) == len(halves["tune"]) + len(halves["sealed"])
    assert all(any(f.kind == "clean" for f in half) for half in halves.values())


def test_scoring_one_half_scores_only_its_files(tmp_path, monkeypatch):
    from verification.lint_corpus import blind

    marks = tmp_path / "marks.json"
    entry = {"repository": "o/r", "commit": "c" * 40, "kind": "hazard"}
    marks.write_text(
        json.dumps(
            {
                "files": [
                    {
                        **entry,
                        "path": "a.py",
                        "half": "tune",
                        "hazards": [{"line": 6, "rule": "TFL004"}],
                    },
                    {
                        **entry,
                        "path": "b.py",
                        "half": "sealed",
                        "hazards": [{"line": 3, "rule": "TFL002"}],
                    },
                ]
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(blind, "source_of", lambda marked, mirror: SOURCE)
    out = tmp_path / "results.json"
    scored = blind.run(tmp_path, marks, out, "sealed")
    assert [f["path"] for f in scored["files"]] == ["b.py"]
    assert scored["provenance"]["half"] == "sealed" and scored["first_run"] is None
    again = blind.run(tmp_path, marks, out, "sealed")
    assert again["first_run"]["summary"] == scored["summary"]  # the first score is kept


def test_a_snippet_from_an_issue_thread_is_scored_from_the_marks_file(tmp_path):
    from verification.lint_corpus import blind

    marks = tmp_path / "marks.json"
    snippet = {
        "source": "https://github.com/tensorflow/tensorflow/issues/1#issuecomment-2",
        "code": SOURCE,
        "path": "snippet.py",
        "kind": "hazard",
        "hazards": [{"line": 6, "rule": "TFL004"}],
    }
    marks.write_text(json.dumps({"files": [snippet]}), encoding="utf-8")
    scored = blind.run(tmp_path / "no-mirror", marks, tmp_path / "results.json")
    (only,) = scored["files"]
    assert only["repository"] == "tensorflow/tensorflow" and only["source"] == snippet["source"]
    assert only["missed"] == [] and scored["summary"]["found"] == 1
    marks.write_text(json.dumps({"files": [{**snippet, "source": "issue 1"}]}), encoding="utf-8")
    with pytest.raises(MarksError, match=r"files\[0\]: source: a snippet names the https"):
        read_marks(marks)


def test_the_split_corpora_show_each_halfs_first_score_beside_the_latest():
    """Every split corpus and half, from its results file: the first score (for a sealed
    half, its one blind score) and the latest, each with its code hash."""
    from verification.lint_corpus import split_scores

    data = split_scores.read_results()
    page = split_scores.replace_marker(f"x\n{split_scores.MARKER}\n", data, str)
    for (corpus, half), results in data.items():
        first = (results["first_run"] or results)["summary"]
        row = next(
            line
            for line in page.splitlines()
            if line.startswith(f"| [{corpus}]") and f"| {half} |" in line
        )
        assert f"{first['found']} of {first['hazards']} (" in row.split(" | ")[3]
        latest = results["summary"]
        assert f"{latest['found']} of {latest['hazards']} (" in row.split(" | ")[4]
        assert f"`{results['provenance']['code_hash']}`" in row


def test_a_malformed_split_result_names_its_file_and_field(tmp_path):
    from verification.corpus_results import ResultsError
    from verification.lint_corpus import split_scores

    path = tmp_path / "blind9_tune_results.json"
    path.write_text(json.dumps({"summary": {"files": "many"}, "provenance": {}}), "utf-8")
    with pytest.raises(ResultsError, match=r"blind9_tune_results.json: latest: summary.files"):
        split_scores.read_results([9], lambda half, corpus: path)
