"""Two blind markings of the same held-out queries (verification/search_agreement.py):
counted right, refused when a mark is not for its query, and rendered from the committed
files."""

import json

import pytest

from verification import search_agreement
from verification.corpus_results import ResultsError

QUERIES = [
    ("answered alike", "/a/", "tune"),
    ("answered apart", "/a/", "tune"),
    ("only the first answers", "/b/", "sealed"),
    ("neither answers", "", "sealed"),
]
SECOND = [("/a/", []), ("/c/", ["/a/"]), ("", []), ("", [])]


def write_set(folder, second=SECOND, texts=None) -> None:
    queries = "\n".join(
        f"[[query]]\ntext = {json.dumps(text)}\npage = {json.dumps(page)}\n"
        f"half = {json.dumps(half)}\n"
        for text, page, half in QUERIES
    )
    (folder / "held_out_7.toml").write_text(queries)
    texts = texts or [text for text, _, _ in QUERIES]
    marks = "\n".join(
        f"[[mark]]\nid = {n}\ntext = {json.dumps(text)}\npage = {json.dumps(page)}\n"
        f"also = {json.dumps(also)}\n"
        for n, (text, (page, also)) in enumerate(zip(texts, second, strict=True), 1)
    )
    (folder / "second_marker_7.toml").write_text(marks)


@pytest.fixture
def one_set(tmp_path, monkeypatch):
    monkeypatch.setattr(search_agreement, "SETS", {"7": (tmp_path / "held_out_7.toml", None)})
    monkeypatch.setattr(search_agreement, "FIXTURES", tmp_path)
    return tmp_path


def test_agreement_is_counted_per_half_and_over_the_set(one_set):
    write_set(one_set)
    data = search_agreement.read_results()["7"]
    assert data["tune"] == {
        "queries": 2,
        "answerable_first": 2,
        "answerable_second": 2,
        "answerability_agreed": 2,
        "both_answerable": 2,
        "same_page": 1,  # "answered apart": /c/ against /a/
        "among_acceptable": 2,  # /a/ is among the second marker's acceptable pages
    }
    assert data["sealed"]["answerability_agreed"] == 1  # both say nothing answers the 4th
    assert data["sealed"]["same_page"] == 0  # the second marker found no page for the 3rd
    assert data["both halves"]["same_page"] == 1 and data["both halves"]["answerable_first"] == 3


def test_a_mark_for_another_query_is_refused_naming_the_file_and_mark(one_set):
    texts = [text for text, _, _ in QUERIES]
    write_set(one_set, texts=[texts[0], texts[2], texts[1], texts[3]])
    with pytest.raises(ResultsError, match=r"second_marker_7.toml: mark 2 is not for query 2"):
        search_agreement.read_results()


def test_a_marking_of_the_wrong_length_is_refused(one_set):
    write_set(one_set)
    marks = one_set / "second_marker_7.toml"
    marks.write_text(marks.read_text().rsplit("[[mark]]", 1)[0])
    with pytest.raises(ResultsError, match=r"3 marks for the set's 4 queries"):
        search_agreement.read_results()


def test_the_committed_second_markings_pair_with_their_sets_and_render():
    data = search_agreement.read_results()
    assert {"11", "12"} <= set(data)
    for halves in data.values():
        whole = halves["both halves"]
        assert whole["queries"] == halves["tune"]["queries"] + halves["sealed"]["queries"]
        assert whole["same_page"] <= whole["both_answerable"] <= whole["answerable_first"]
    table = search_agreement.render(data, lambda path: path)
    assert "| [12](tests/fixtures/search/second_marker_12.toml) | sealed |" in table
