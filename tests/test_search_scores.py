"""The held-out search scores page (verification/search_scores.py): every set, half and
machinery shown with its first run beside its latest, the newest sealed half's misses
listed, and a malformed results file named with its field."""

import json

import pytest

from verification import search_scores
from verification.corpus_results import ResultsError


def run(first: int, top3: int, rank_of_miss: int | None = 4) -> dict:
    return {
        "date": "2026-11-28 12:00 UTC",
        "machinery": "m",
        "code_hash": "abc123",
        "queries": 3,
        "answerable": 3,
        "first": first,
        "top3": top3,
        "per_query": [
            {"text": "hit", "page": "/a/", "rank": 1, "top": ["/a/"]},
            {"text": "a | b `c`", "page": "/b/", "rank": rank_of_miss, "top": ["/a/", "/b/"]},
        ],
    }


def results(sealed: bool) -> dict:
    runs = {"tune": {"material": {"first_run": run(1, 2), "latest": run(2, 3)}}}
    if sealed:
        runs["sealed"] = {"material": {"first_run": run(1, 2), "latest": run(3, 3)}}
    return {"schema_version": 1, "runs": runs}


def test_each_half_shows_its_first_run_beside_its_latest_and_the_sealed_misses():
    text = search_scores.render({"1": results(True), "2": results(True)}, lambda path: path)
    rows = [line for line in text.splitlines() if line.startswith("| [")]
    assert len(rows) == 4
    assert rows[-1].startswith(
        "| [2](tests/fixtures/search/held_out_2.toml) "
        "([results](verification/search_heldout_2_results.json)) | sealed | material"
    )
    assert "| 1 of 3 | 2 of 3 |" in rows[-1] and rows[-1].endswith("| 3 of 3 | 3 of 3 |")
    assert "Set 2's sealed half, as first scored" in text
    assert "- `a \\| b 'c'`: wants `/b/`, rank 4; first `/a/`" in text
    assert "- `hit`" not in text


def test_a_set_whose_sealed_half_is_not_scored_says_so():
    text = search_scores.render({"1": results(True), "2": results(False)}, lambda path: path)
    assert "Set 2's sealed half has not been scored yet." in text


def test_a_malformed_results_file_is_named_with_its_field(tmp_path, monkeypatch):
    bad = results(True)
    del bad["runs"]["sealed"]["material"]["latest"]["top3"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(bad))
    monkeypatch.setattr(search_scores, "SETS", {"1": (tmp_path / "q.toml", path)})
    with pytest.raises(ResultsError, match=r"r.json: runs/sealed/material/latest lacks 'top3'"):
        search_scores.read_results()


def test_the_committed_results_files_render():
    data = search_scores.read_results()
    assert "1" in data
    assert "| sealed | material |" in search_scores.render(data, lambda path: path)
