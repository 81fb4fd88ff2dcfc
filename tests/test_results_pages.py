"""Results figures cited by claims: each has a page on the site with an anchor on it, the
superscript leads there with a readable title, and a figure of a stale run is shown as
stale beside its claim, counted on the evidence page and refused by the coverage check
unless the record accepts it."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest

from benchmarks.code_hash import code_hashes
from benchmarks.results_pages import figure_anchor, locate, page_of, results_pages, scenario_page
from verification.claims import check, evidence
from verification.claims.index import cited_figures, stale_list
from verification.claims.render import link_title, render_markers
from verification.harness.codeblocks import ROOT

REPO = "https://github.com/example/repo"
CODE = "LIMIT = 3  # the limit\n"


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """A repository with one scenario whose run is of its code, one without a hash."""
    (tmp_path / "code.py").write_text(CODE)
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    document = {
        "device": "cpu",
        "scenarios": {
            "hashed": {
                "provenance": {"date": "today"},
                "extra": {"rows": [{"ms": 3.5, "label": "a *b* <i>`c`</i>"}]},
                "measured": ["code.py"],
                **code_hashes(["code.py"], tmp_path),
            },
            "unhashed": {"provenance": {"date": "before"}, "extra": {"ms": 4}},
        },
    }
    (results / "cpu.json").write_text(json.dumps(document))
    (tmp_path / "docs" / "guide").mkdir(parents=True)
    (tmp_path / "docs" / "guide" / "page.md").write_text(
        "It takes 3.5 ms.[[proof: results benchmarks/results/cpu.json "
        "scenarios/hashed/extra/rows/0/ms]] It took 4 ms.[[proof: results "
        "benchmarks/results/cpu.json scenarios/unhashed/extra/ms]]\n"
    )
    monkeypatch.setattr(evidence, "ROOT", tmp_path)
    evidence.forget_results()
    yield tmp_path
    evidence.forget_results()


def rendered(root: Path) -> str:
    evidence.forget_results()
    page = (root / "docs" / "guide" / "page.md").read_text()
    return render_markers(page, "guide/page.md", root / "docs", REPO, None)


def test_a_figure_links_to_its_line_on_the_scenario_page(project):
    out = rendered(project)
    assert "](../benchmarks/results/cpu/hashed.md#extra-rows-0-ms " in out
    page = results_pages(project, REPO)["benchmarks/results/cpu/hashed.md"]
    assert "- **extra / rows / 0**: ms = `3.5`{ #extra-rows-0-ms .results-figure } · " in page
    # Text from the file reaches the page as code, never as markup.
    assert "label = ``a *b* <i>`c`</i>``{ #extra-rows-0-label .results-figure }" in page
    assert "This run measured the code as it is now" in page


def test_a_stale_figure_is_said_beside_its_claim_and_a_comment_changes_nothing(project):
    out = rendered(project)
    first, second = out.split('id="claim-2"')
    assert "claim-stale" not in first  # the hashed run is of this code
    assert '<span class="claim-stale">(figure from a run with no code hash)</span>' in second
    (project / "code.py").write_text(CODE.replace("# the limit", "# reworded"))
    assert "claim-stale" not in rendered(project).split('id="claim-2"')[0]
    (project / "code.py").write_text(CODE.replace("3", "30"))
    out = rendered(project)
    assert '<span class="claim-stale">(figure older than its code)</span>' in out
    assert "; **older than its code**: The code this run measured (`code.py`)" in out
    page = scenario_page(
        "benchmarks/results/cpu.json",
        "hashed",
        json.loads((project / "benchmarks/results/cpu.json").read_text())["scenarios"]["hashed"],
        project,
        REPO,
    )
    assert '!!! warning "Older than its code"' in page


def test_stale_figures_are_counted_and_the_check_refuses_one_not_accepted(project):
    docs = project / "docs"
    figures = cited_figures(docs)
    assert [(f.claim, f.stale) for f in figures] == [(1, False), (2, True)]
    assert stale_list(docs, "guide/evidence.md").startswith(
        "1 of 2 cited results figures are stale: 0 from a run older than its code, 1 from a "
        "run that recorded no code hash."
    )
    record = {"pages": {}}
    (problem,) = [p for p in check.problems(docs, record, None) if "stale run" in p]
    assert problem.startswith("guide/page.md: claim 2 cites benchmarks/results/cpu.json ")
    accepted = {"pages": {}, "stale_figures": [figures[1].label]}
    assert not [p for p in check.problems(docs, accepted, None) if "stale run" in p]
    (project / "code.py").write_text(CODE.replace("3", "4"))  # a new stale figure
    evidence.forget_results()
    (problem,) = [p for p in check.problems(docs, accepted, None) if "stale run" in p]
    assert problem.startswith("guide/page.md: claim 1 cites ")


def test_a_title_shows_its_text_and_no_character_reference():
    text = "names ['one_step_on_data'] & \"x\" <y> `z` (w)"

    converted = markdown.markdown(f'[1](#a "{link_title(text)}")', extensions=["attr_list"])
    assert [link.get("title") for link in parsed_text(converted).links] == [text]


def test_every_figure_the_site_cites_has_its_anchor_on_a_results_page():
    pages = results_pages(ROOT, REPO)
    cited = [f for f in cited_figures(ROOT / "docs") if f.file.startswith("benchmarks/results/")]
    assert cited
    for figure in cited:
        scenario, inner = locate(figure.key)
        assert (
            f"{{ #{figure_anchor(inner)} .results-figure }}"
            in pages[page_of(figure.file, scenario)]
        ), figure.label


# --- the built site -----------------------------------------------------------------------


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[dict] = []
        self.claim_links: list[dict] = []
        self.ids: set[str] = set()
        self._in_claim = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "a":
            self.links.append(attributes)
        if tag == "sup" and "claim-ref" in (attributes.get("class") or ""):
            self._in_claim = True
        elif tag == "a" and self._in_claim:
            self.claim_links.append(attributes)

    def handle_endtag(self, tag):
        if tag == "sup":
            self._in_claim = False


def parsed_text(text: str) -> Links:
    parser = Links()
    parser.feed(text)
    return parser


def parsed(path: Path) -> Links:
    return parsed_text(path.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_built_results_superscripts_land_on_their_figure_with_plain_titles(built_site):
    """On Serving at scale, every results-figure superscript leads to a results page of
    the site (not to GitHub), where an element has the id it names; no title of any
    claim link on the site shows a character reference once the browser has read it."""
    page = built_site / "guide" / "serving-at-scale" / "index.html"
    links = parsed(page).claim_links
    figures = [link for link in links if "/benchmarks/results/" in link["href"]]
    # A holds condition is one link for all the figures it reads: fewer links than figures.
    assert len(figures) >= 20, len(figures)
    # A results figure's link is the site's page; a cited TensorFlow source may be GitHub's.
    assert not [
        link for link in links if "github.com" in link["href"] and "results" in link["href"]
    ]
    assert any("tensorflow/core/util/port.cc" in link["href"] for link in links)
    for link in figures:
        address, anchor = link["href"].split("#")
        target = (page.parent / address / "index.html").resolve()
        assert anchor in parsed(target).ids, link["href"]
    for html_page in built_site.rglob("index.html"):
        for link in parsed(html_page).claim_links:
            title = link.get("title") or ""
            assert not re.search(r"&(#\d+|#x[0-9a-f]+|[a-z]+);", title), (html_page, title)
            assert html.unescape(title) == title


def test_a_first_run_kept_as_history_is_not_stale_but_the_latest_is(tmp_path):
    from benchmarks.results_pages import FRESH, run_state

    old_run = {"provenance": {"date": "then"}, "measured": ["gone.py"], "code_hash": "0" * 12}
    document = {"first_run": {**old_run, "recall": 0.4}, **old_run, "recall": 0.9}
    assert run_state(document, "first_run/recall", tmp_path) == FRESH
    assert run_state(document, "recall", tmp_path) != FRESH
