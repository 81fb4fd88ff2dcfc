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


def test_the_stock_copy_differs_in_the_machinery_only(tmp_path):
    from verification.search_heldout import stock_copy
    from verification.search_machinery import material_worker

    site = tmp_path / "site"
    (site / "search").mkdir(parents=True)
    page = '<script id="__config">{"search": "w/search-retracing.0123abcd.js"}</script>'
    (site / "index.html").write_text(page)
    config = {"pipeline": ["stemmer"], "fields": {"title": {"boost": 20.0}}, "separator": "x"}
    docs = [{"location": "a/", "title": "A", "text": "a", "boost": 0.5}]
    (site / "search" / "search_index.json").write_text(json.dumps({"config": config, "docs": docs}))
    copy = stock_copy(site, tmp_path)
    assert f"w/{material_worker().name}" in (copy / "index.html").read_text()
    index = json.loads((copy / "search" / "search_index.json").read_text())
    assert index["config"]["pipeline"] == ["stopWordFilter"]
    assert index["config"]["fields"]["title"] == {"boost": 1000.0}
    assert index["config"]["separator"] == "x" and index["docs"] == docs
    assert "search-retracing" in (site / "index.html").read_text()  # the site is left alone
