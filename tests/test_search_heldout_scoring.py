"""The held-out search scorer's rule and its results file (verification.search_heldout):
ranks and counts from a ranking, the no-answer rule, and a first run never replaced."""

import json

import pytest

from verification.search_heldout import load_queries, page_of, record, score_ranking

QUERIES = [
    {"text": "a", "page": "/guide/a/", "half": "tune"},
    {"text": "b", "page": "/guide/b/", "half": "tune"},
    {"text": "c", "page": "/guide/c/", "half": "tune"},
    {"text": "none", "page": "", "half": "tune"},
]


def test_ranks_counts_and_the_no_answer_rule():
    rankings = [
        ["guide/a/", "guide/b/"],  # first
        ["guide/a/", "guide/x/", "guide/b/#section"],  # third
        ["guide/a/"] * 10 + ["guide/c/"],  # 11th: not among the first 10
        ["guide/a/"],
    ]
    run = score_ranking(QUERIES, rankings)
    assert [entry["rank"] for entry in run["per_query"]] == [1, 3, None]
    assert (run["first"], run["top3"], run["answerable"], run["queries"]) == (1, 2, 3, 4)
    assert run["no_answer"] == [{"text": "none", "first": "/guide/a/", "results": 1}]


def test_page_of_reads_locations_and_urls():
    assert (
        page_of("guide/a/#x")
        == page_of("/guide/a/index.html")
        == page_of("/guide/a")
        == "/guide/a/"
    )
    assert page_of("") == "/"


def test_a_first_run_is_kept_and_the_latest_replaced(tmp_path):
    path = tmp_path / "results.json"
    first = {"half": "sealed", "first": 1}
    record(first, "material", path)
    record({"half": "sealed", "first": 2}, "material", path)
    slot = json.loads(path.read_text())["runs"]["sealed"]["material"]
    assert slot["first_run"] == first and slot["latest"]["first"] == 2


def test_a_wrong_half_is_named():
    with pytest.raises(SystemExit, match="--half must be one of"):
        load_queries("both")
