"""Claim markers: parsed, resolved to evidence that exists (or the build stops), rendered
as links with a list of the page's claims, and counted per page for the index."""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from verification.claims import check
from verification.claims.coverage import sentences
from verification.claims.evidence import MatrixLine, OutputLine, ResultFigure, Source, resolve
from verification.claims.index import guide_pages, page_counts, replace_index_marker
from verification.claims.markers import ClaimError, find_markers, strip_markers
from verification.claims.render import (
    anchor_output_lines,
    link_title,
    page_claims,
    render_markers,
)
from verification.claims.reviews import read_reviews
from verification.claims.reviews import render as render_reviews
from verification.harness.codeblocks import ROOT, page_blocks
from verification.matrix.schema import RESULTS_FILE, block_digest, read_document

DOCS = ROOT / "docs"
REPO = "https://github.com/example/repo"

PAGE = textwrap.dedent(
    """\
    # A page

    A new shape is a new trace, every time.[[proof: "shapes: 2"]] It stays cached.

    ```python
    print("shapes: 2")
    print("dtypes: 3")
    ```

    <!--pytest-codeblocks:expected-output-->

    ```text
    shapes: 2
    dtypes: 3
    ```

    Run it twice.[[no-claim: instruction]] Three dtypes give 3 traces.
    """
)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "page.md").write_text(PAGE, encoding="utf-8")
    return tmp_path


def test_markers_are_read_with_each_piece_of_evidence():
    text = (
        'A.[[proof: "x; y"; ../other.md "z"]] B.[[proof: results benchmarks/r.json a/0/b; '
        "source https://example.com/c]] C.[[no-claim: site]]"
    )
    markers = find_markers(text, "p.md")
    assert [m.kind for m in markers] == ["proof", "proof", "no-claim"]
    first, second, third = markers
    assert [(r.kind, r.page, r.text) for r in first.refs] == [
        ("output", "", "x; y"),
        ("output", "../other.md", "z"),
    ]
    assert [(r.kind, r.file, r.text) for r in second.refs] == [
        ("results", "benchmarks/r.json", "a/0/b"),
        ("source", "", "https://example.com/c"),
    ]
    assert third.no_claim_kind == "site"
    assert strip_markers(text, "p.md") == "A. B. C."


def test_markers_in_code_are_not_markers():
    text = "Prose.\n\n```python\nx = '[[proof: \"a\"]]'\n```\n"
    assert find_markers(text, "p.md") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('A.[[proof: "a"', "line 1: a claim marker is not closed"),
        ("A.[[no-claim: maybe]]", "the kind must be one of"),
        ("A.[[proof: plain words]]", "is not"),
        ("A.[[proof: source ftp://x]]", "a source is an http"),
        ('A.[[proof: "a";]]', "empty piece of evidence"),
    ],
)
def test_a_malformed_marker_is_an_error_naming_the_page(text, message):
    with pytest.raises(ClaimError, match=message) as error:
        find_markers(text, "guide/p.md")
    assert "guide/p.md" in str(error.value)


def test_an_output_line_is_found_by_its_text(docs):
    (marker,) = [m for m in find_markers(PAGE, "guide/page.md") if m.kind == "proof"]
    evidence = resolve(marker.refs[0], "guide/page.md", docs, "here")
    assert evidence == OutputLine("guide/page.md", 1, 1, "shapes: 2")
    assert evidence.anchor == "output-1-1"


@pytest.mark.parametrize(
    ("fragment", "found"), [("nowhere", "no line"), (": ", "block 1 line 1, block 1 line 2")]
)
def test_output_text_must_be_in_exactly_one_shown_line(docs, fragment, found):
    page = PAGE.replace('"shapes: 2"', f'"{fragment}"')
    (docs / "guide" / "page.md").write_text(page, encoding="utf-8")
    with pytest.raises(ClaimError, match=f"it is in {found}"):
        page_claims(page, "guide/page.md", docs)


def test_a_block_that_is_not_run_is_no_evidence(docs):
    page = PAGE.replace("```python", '```python title="Not run: needs a GPU"')
    (docs / "guide" / "page.md").write_text(page, encoding="utf-8")
    with pytest.raises(ClaimError, match="no line"):
        page_claims(page, "guide/page.md", docs)


def test_evidence_on_another_page_is_looked_up_there(docs):
    other = 'Also two.[[proof: page.md "dtypes: 3"]]\n'
    (docs / "guide" / "other.md").write_text(other, encoding="utf-8")
    ((_, claim),) = page_claims(other, "guide/other.md", docs)
    assert claim.evidence == (OutputLine("guide/page.md", 1, 2, "dtypes: 3"),)
    with pytest.raises(ClaimError, match=r"gone\.md, which does not exist"):
        page_claims(other.replace("page.md", "gone.md"), "guide/other.md", docs)


def test_a_results_figure_must_exist_and_be_a_figure(docs):
    results = ROOT / "benchmarks" / "results" / "cpu.json"
    document = json.loads(results.read_text(encoding="utf-8"))
    key = next(k for k, v in document.items() if isinstance(v, (str, int, float)))
    ok = f"It is so.[[proof: results benchmarks/results/cpu.json {key}]]\n"
    ((_, claim),) = page_claims(ok, "guide/x.md", docs)
    assert claim.evidence == (ResultFigure("benchmarks/results/cpu.json", key, document[key]),)
    with pytest.raises(ClaimError, match="there is no 'no_such_key'"):
        page_claims(ok.replace(key, "no_such_key"), "guide/x.md", docs)
    dictionary = next(k for k, v in document.items() if isinstance(v, dict))
    with pytest.raises(ClaimError, match="is not a figure"):
        page_claims(ok.replace(key, dictionary), "guide/x.md", docs)


def test_a_source_is_kept_as_cited(docs):
    page = "It was added in 2019.[[proof: source https://github.com/o/r/commit/abc]]\n"
    ((_, claim),) = page_claims(page, "guide/x.md", docs)
    assert claim.evidence == (Source("https://github.com/o/r/commit/abc"),)


def test_markers_become_links_and_the_page_lists_its_claims(docs):
    out = render_markers(PAGE, "guide/page.md", docs, REPO, None)
    assert "[[" not in out
    title = link_title("Output of block 1, line 1: shapes: 2")
    assert f'<sup class="claim-ref" id="claim-1">[1](#output-1-1 "{title}")</sup>' in out
    assert "Run it twice. Three dtypes" in out  # the set-aside marker leaves nothing
    listing = out[out.index("??? abstract") :]
    assert '1. A new shape is a new trace, every time. [↩](#claim-1 "Back to the text")' in listing
    assert "[output of block 1, line 1](#output-1-1): `shapes: 2`" in listing


def test_a_marker_outside_a_sentence_stops_the_build(docs):
    page = PAGE + '\n<div>x.[[proof: "shapes: 2"]]</div>\n'
    with pytest.raises(ClaimError, match="must end a sentence"):
        render_markers(page, "guide/page.md", docs, REPO, None)


def test_a_table_cell_carries_a_marker_and_a_title_can_only_be_set_aside(docs):
    page = PAGE + '\n| a | b |\n|---|---|\n| Two dtypes give 3.[[proof: "dtypes: 3"]] | y |\n'
    out = render_markers(page, "guide/page.md", docs, REPO, None)
    assert '| Two dtypes give 3.<sup class="claim-ref" id="claim-2">' in out
    heading = PAGE + "\n## Each call traces[[no-claim: site]]\n"
    assert "\n## Each call traces\n" in render_markers(heading, "guide/page.md", docs, REPO, None)
    box = PAGE + '\n!!! note "Traces twice[[proof: "shapes: 2"]]"\n\n    Text.\n'
    with pytest.raises(ClaimError, match="line 19: an admonition title cannot carry"):
        render_markers(box, "guide/page.md", docs, REPO, None)


def test_a_headings_proof_is_listed_and_links_back_to_the_heading(docs):
    """The heading shows no number (the table of contents would repeat it); the list
    under the page gives its evidence and a link to the heading's id."""
    page = PAGE + '\n## Each `call` traces[[proof: "shapes: 2"]]\n\n## Each `call` traces\n'
    out = render_markers(page, "guide/page.md", docs, REPO, None)
    assert "\n## Each `call` traces\n" in out
    assert '2. Each `call` traces [↩](#each-call-traces "Back to the text")' in out
    explicit = PAGE + '\n## Twice[[proof: "shapes: 2"]] {#twice-here}\n'
    out = render_markers(explicit, "guide/page.md", docs, REPO, None)
    assert '[↩](#twice-here "Back to the text")' in out
    later = PAGE + '\n## Other\n\n## Other[[proof: "shapes: 2"]]\n'
    assert "(#other_1 " in render_markers(later, "guide/page.md", docs, REPO, None)


def test_quantities_in_words_and_every_kind_of_text_are_counted():
    text = textwrap.dedent(
        """\
        # Traced once per shape

        A tensor is keyed on its shape. It traces once. Each call is cheap. Ten calls.

        - All of them run.

        | Case | Traces |
        |---|---|
        | a list | twice |

        !!! note "Whenever it runs"

            It runs whenever asked.
        """
    )
    found = [(s.kind, s.text, s.must_have_evidence) for s in sentences(text, "p.md")]
    assert found == [
        ("heading", "Traced once per shape", True),
        ("prose", "A tensor is keyed on its shape.", False),
        ("prose", "It traces once.", True),
        ("prose", "Each call is cheap.", True),
        ("prose", "Ten calls.", True),
        ("list item", "All of them run.", True),
        ("table", "Case", False),
        ("table", "Traces", False),
        ("table", "a list", False),
        ("table", "twice", True),
        ("admonition title", "Whenever it runs", True),
        ("prose", "It runs whenever asked.", True),
    ]


def test_a_row_of_checked_statements_is_one_statement_with_its_verdict():
    text = textwrap.dedent(
        """\
        | ID | Statement | Verdict |
        |---|---|---|
        | F8 | Three dtypes. Each traces | holds[[proof: "F8 traces: 3"]] |
        | F9 | A timing, twice as fast | not measured here |
        | Case 2 | twice | y |
        | 32 | Swapping reuses one graph | holds |
        """
    )
    found = [(s.kind, s.text, s.status) for s in sentences(text, "p.md")]
    assert found[:5] == [
        ("table", "ID", "free"),
        ("table", "Statement", "free"),
        ("table", "Verdict", "free"),
        ("table", "F8 | Three dtypes. Each traces | holds", "proof"),
        ("table", "F9 | A timing, twice as fast | not measured here", "missing"),
    ]
    # a first cell that is not an identifier leaves the row's cells counted one by one
    assert found[5:] == [
        ("table", "Case 2", "missing"),
        ("table", "twice", "missing"),
        ("table", "y", "free"),
        ("table", "32 | Swapping reuses one graph | holds", "missing"),
    ]


def test_output_lines_get_ids_in_the_rendered_page(docs):
    html = (
        "<p>x</p><!--pytest-codeblocks:expected-output-->\n<div><pre><code>"
        '<span id="__span-1-1">shapes: 2\n</span><span id="__span-1-2">dtypes: 3\n</span>'
        "</code></pre></div>"
    )
    out, ids = anchor_output_lines(html, docs / "guide" / "page.md", "guide/page.md")
    assert ids == {"output-1-1", "output-1-2"}
    assert '<span id="__span-1-2"><a class="output-line" id="output-1-2"></a>dtypes' in out
    with pytest.raises(ClaimError, match="1 executed blocks show an output but"):
        anchor_output_lines("<p>no output</p>", docs / "guide" / "page.md", "guide/page.md")


def test_sentences_are_flagged_by_universal_words_numbers_and_versions():
    text = (
        "A tensor is keyed on its shape. It never retraces. It retraced 3 times. "
        "Since TensorFlow 2.14 it holds. The `x[0]` form is fine.\n"
    )
    flagged = [s.must_have_evidence for s in sentences(text, "p.md")]
    assert flagged == [False, True, True, True, False]


def test_counts_add_up_on_every_guide_page():
    for page in guide_pages(DOCS):
        counts = page_counts(DOCS, page)
        parts = counts["flagged_proof"] + counts["flagged_no_claim"] + counts["flagged_missing"]
        assert parts == counts["flagged"] <= counts["sentences"], page


# --- the coverage check: a lost, misspelt or unresolved marker fails -------------------


def test_the_site_passes_the_coverage_check():
    """Every page: markers read and resolve; every flagged guide sentence has a marker;
    every sentence recorded with evidence (recorded.json) still has it. On failure, each
    line says what and where; a claim removed on purpose is recorded again with
    ``python -m verification.claims record``."""
    doc = read_document(RESULTS_FILE, require_complete=True)
    assert check.problems(DOCS, check.read_record(), doc) == []


DIAGNOSING = "guide/diagnosing.md"
CAUSES_SHOWN = "guide/diagnosing/causes-shown.md"  # where Diagnosing's examples are shown
DEVICE_SENTENCE = "A plain `tf.device` scope does not retrace."


@pytest.fixture(scope="module")
def docs_copy(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("docs") / "docs"
    shutil.copytree(DOCS, copy, ignore=shutil.ignore_patterns("*.ipynb", "assets"))
    return copy


def _check_changed(docs_copy: Path, page: str, change) -> list[str]:
    path = docs_copy / page
    original = path.read_text(encoding="utf-8")
    changed = change(original)
    assert changed != original
    path.write_text(changed, encoding="utf-8")
    try:
        doc = read_document(RESULTS_FILE, require_complete=True)
        return check.problems(docs_copy, check.read_record(), doc, pages=[page])
    finally:
        path.write_text(original, encoding="utf-8")


def _without_marker_after(sentence: str):
    def change(markdown: str) -> str:
        start = markdown.index(sentence) + len(sentence)
        assert markdown.startswith("[[proof:", start)
        return markdown[:start] + markdown[markdown.index("]]", start) + 2 :]

    return change


def test_the_check_passes_on_the_unchanged_copy(docs_copy):
    doc = read_document(RESULTS_FILE, require_complete=True)
    assert check.problems(docs_copy, check.read_record(), doc, pages=[DIAGNOSING]) == []


def test_the_check_fails_when_a_marker_is_removed_even_from_a_sentence_it_does_not_flag(
    docs_copy,
):
    # "does not retrace" has no universal word: the count alone would not see it.
    found = _check_changed(docs_copy, DIAGNOSING, _without_marker_after(DEVICE_SENTENCE))
    assert found == [
        f"{DIAGNOSING}: this sentence had a [[proof: ...]] marker and has none now: "
        f"{DEVICE_SENTENCE}",
        found[1],
    ]
    assert found[1].startswith(f"{DIAGNOSING}: ") and "were recorded" in found[1]


def test_the_check_fails_when_a_claim_goes_with_its_marker(docs_copy):
    def drop(markdown: str) -> str:
        start = markdown.index(DEVICE_SENTENCE)
        return markdown[:start] + markdown[markdown.index("]]", start) + 2 :]

    (found,) = _check_changed(docs_copy, DIAGNOSING, drop)
    assert "were recorded; not found with a marker now: " + DEVICE_SENTENCE in found
    assert "python -m verification.claims record" in found


def test_the_check_fails_on_a_flagged_sentence_without_a_marker(docs_copy):
    sentence = "Three dtypes give 3 traces."

    def add(markdown: str) -> str:
        return markdown.replace("\n## Checklist\n", f"\n{sentence}\n\n## Checklist\n", 1)

    (found,) = _check_changed(docs_copy, DIAGNOSING, add)
    assert found == f"{DIAGNOSING}: a sentence the count flags has no marker: {sentence}"


def test_the_check_fails_on_a_misspelt_marker_naming_page_and_line(docs_copy):
    def misspell(markdown: str) -> str:
        start = markdown.index(DEVICE_SENTENCE) + len(DEVICE_SENTENCE)
        return markdown[:start] + "[[Proof:" + markdown[start + len("[[proof:") :]

    line = (DOCS / DIAGNOSING).read_text("utf-8").split(DEVICE_SENTENCE)[0].count("\n") + 1
    (found,) = _check_changed(docs_copy, DIAGNOSING, misspell)
    assert found.startswith(f"{DIAGNOSING}: line {line}: [[Proof: ... is not a claim marker")


def test_the_check_fails_when_the_cited_output_line_is_gone(docs_copy):
    def change_output(markdown: str) -> str:
        return markdown.replace(
            "\ntraces after a second save: 4\n", "\ntraces after another save: 4\n", 1
        )

    (found,) = _check_changed(docs_copy, CAUSES_SHOWN, change_output)
    assert found.startswith(f"{CAUSES_SHOWN}: claim ")
    assert 'evidence "traces after a second save: 4" must be in exactly one line' in found


def test_the_check_passes_a_claim_reworded_with_its_marker(docs_copy):
    def reword(markdown: str) -> str:
        return markdown.replace(DEVICE_SENTENCE, "A `tf.device` scope alone does not retrace.")

    assert _check_changed(docs_copy, DIAGNOSING, reword) == []


def test_the_check_command_runs_the_same_check(capsys):
    from verification.claims.__main__ import main

    assert main(["check"]) == 0
    assert capsys.readouterr().out.strip().endswith("every claim keeps its marker and evidence")


def test_the_index_renders_the_table_and_the_set_aside_sentences():
    out = replace_index_marker("<!-- claims:coverage -->\n\n<!-- claims:set-aside -->", DOCS)
    assert "| **All counted pages** |" in out
    assert "| [install.md](../install.md) | new |" in out  # pages outside the guide too
    assert "| Kind of text | Flagged | With evidence | Set aside | Without |" in out
    assert re.search(r"\| table \| \d+ \| \d+ \| \d+ \| \d+ \|", out)
    assert "Flagged before: counted at commit" in out


def test_a_marker_in_inline_code_is_an_example_not_a_marker():
    text = 'Write `[[proof: "x"]]` after the sentence.[[no-claim: instruction]]\n'
    (marker,) = find_markers(text, "p.md")
    assert marker.kind == "no-claim"


def _matrix(docs: Path, status: str, output: str, error: str = "") -> dict:
    (block,) = page_blocks(docs / "guide" / "page.md")
    digest = block_digest(block.code, block.expected_output)
    result = {"status": status, "output": output, "error": error}
    return {
        "pages": {"docs/guide/page.md": [{"sha256": digest}]},
        "entries": [
            {
                "id": "tf2.13",
                "environment": {"status": "ok"},
                "pages": {"docs/guide/page.md": {"error": "", "blocks": [result]}},
            }
        ],
    }


def test_evidence_on_another_release_is_read_from_the_version_matrix(docs):
    page = 'On 2.13 it prints 4 instead.[[proof: on tf2.13 "shapes: 4"]]\n'
    doc = _matrix(docs, "differs", "shapes: 4\ndtypes: 3\n")
    ((_, claim),) = page_claims(page, "guide/page.md", docs, doc)
    assert claim.evidence == (MatrixLine("tf2.13", "guide/page.md", 1, "shapes: 4"),)
    out = render_markers(page, "guide/page.md", docs, REPO, doc)
    assert "(../versions/tf2.13.md#entry-tf2-13-docs-guide-page-md " in out
    failed = _matrix(docs, "failed", "", "Traceback ...\nTypeError: shapes: 4 refused")
    assert page_claims(page, "guide/page.md", docs, failed)


def test_matrix_evidence_needs_a_run_of_the_block_as_it_is_now(docs):
    page = 'On 2.13 it prints 4 instead.[[proof: on tf2.13 "shapes: 4"]]\n'
    doc = _matrix(docs, "differs", "shapes: 4\n")
    doc["pages"]["docs/guide/page.md"][0]["sha256"] = "0" * 16  # the block changed since
    with pytest.raises(ClaimError, match="as it is now, printed there; it is in no line"):
        page_claims(page, "guide/page.md", docs, doc)
    with pytest.raises(ClaimError, match=r"no entry tf9\.99 that ran"):
        page_claims(page.replace("tf2.13", "tf9.99"), "guide/page.md", docs, doc)


def _review(tmp_path: Path, record: object, name: str = "guide__page.md.json") -> Path:
    folder = tmp_path / "reviews"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(json.dumps(record), encoding="utf-8")
    return folder


GOOD_REVIEW = {
    "page": "guide/page.md",
    "reviewer": "r",
    "tensorflow": "2.21.0",
    "probes": [
        {"sentence": "A new shape", "tried": "float64", "outcome": "held", "change": ""},
        {"sentence": "It stays", "tried": "a method", "outcome": "false", "change": "fixed"},
    ],
}


def test_review_records_are_counted_and_listed(docs, tmp_path):
    records = read_reviews(docs, _review(tmp_path, GOOD_REVIEW))
    out = render_reviews(records, lambda page: page)
    assert "| guide/page.md | r | 2 | 1 | 0 | 1 |" in out
    assert "*It stays*: tried a method. **false**. Changed: fixed" in out


def test_a_quoted_link_in_a_review_is_rendered_as_its_text(docs, tmp_path):
    """A sentence quoted with its Markdown link: the link was relative to the reviewed page,
    and on the evidence page it would point nowhere (mkdocs --strict refuses it)."""
    probe = {"sentence": "[docs/a.md](docs/a.md): 8 pass", "tried": "t", "outcome": "held"}
    record = {**GOOD_REVIEW, "probes": [{**probe, "change": "see [b](b.md)"}]}
    out = render_reviews(read_reviews(docs, _review(tmp_path, record)), lambda page: page)
    assert "*docs/a.md: 8 pass*: tried t. **held**. Changed: see b" in out
    assert "](" not in out.split("??? note", 1)[1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"page": "guide/nope.md"}, "page: guide/nope.md is not a page of docs/"),
        (
            {"probes": [{"sentence": "s", "tried": "t", "outcome": "maybe", "change": ""}]},
            r"probes\[0\]: outcome: 'maybe' is not one of",
        ),
        (
            {"probes": [{"sentence": "s", "outcome": "held", "change": ""}]},
            r"probes\[0\]: tried: expected a str",
        ),
        ({"reviewer": None}, "reviewer: expected a str"),
    ],
)
def test_a_malformed_review_record_names_its_file_and_field(docs, tmp_path, change, message):
    folder = _review(tmp_path, {**GOOD_REVIEW, **change})
    with pytest.raises(ClaimError, match=message) as error:
        read_reviews(docs, folder)
    assert "guide__page.md.json" in str(error.value)


def test_the_review_records_of_the_repository_are_well_formed():
    for record in read_reviews(DOCS):
        assert record["probes"], record["page"]


def test_matrix_evidence_can_be_read_from_another_page_and_repeat_in_one_block(docs):
    other = 'On 2.13 that page prints 4.[[proof: page.md on tf2.13 "shapes: 4"]]\n'
    (docs / "guide" / "other.md").write_text(other, encoding="utf-8")
    doc = _matrix(docs, "differs", "shapes: 4\nshapes: 4\n")
    ((_, claim),) = page_claims(other, "guide/other.md", docs, doc)
    assert claim.evidence == (MatrixLine("tf2.13", "guide/page.md", 1, "shapes: 4"),)


def test_a_line_that_is_exactly_the_text_wins_over_lines_that_contain_it(docs):
    page = PAGE.replace('print("dtypes: 3")', 'print("all shapes: 2")').replace(
        "dtypes: 3\n", "all shapes: 2\n"
    )
    (docs / "guide" / "page.md").write_text(page, encoding="utf-8")
    ((_, claim), *_) = page_claims(page, "guide/page.md", docs)
    assert claim.evidence == (OutputLine("guide/page.md", 1, 1, "shapes: 2"),)


@pytest.mark.parametrize("lookalike", ["[[source https://example.org]]", "[[proof https://x]]"])
def test_a_marker_of_an_unknown_form_is_refused_not_left_on_the_page(lookalike):
    from verification.claims.markers import ClaimError, find_markers

    with pytest.raises(ClaimError, match=r"page\.md: line 2: \[\[\w+ \.\.\. is not a claim"):
        find_markers(f"Intro.\nA sentence.{lookalike}\n", "page.md")


MALFORMED = [
    '[[ proof: "shapes: 2"]]',
    '[[Proof: "shapes: 2"]]',
    '[[proof; "shapes: 2"]]',
    '[[PROOF: "shapes: 2"]]',
    '[proof: "shapes: 2"]]',
    "[[ no-claim: site]]",
    "[[no claim: site]]",
    "[[No-claim: site]]",
]


def _claims_hook():
    import importlib.util

    spec = importlib.util.spec_from_file_location("claims_hook", DOCS / "hooks" / "claims.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("malformed", MALFORMED)
def test_a_misspelt_marker_fails_the_build_naming_page_and_line(docs, malformed):
    """A near miss used to render as raw text, and the page lost its claims list without a
    word; the hook the build runs now stops with the page and the line."""
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    page = PAGE.replace("It stays cached.", f"It stays cached.{malformed}")
    assert page != PAGE
    line = 3  # where PAGE's first sentence is
    with pytest.raises(ClaimError, match=rf"^guide/page\.md: line {line}: .* is not a claim"):
        find_markers(page, "guide/page.md")
    hook = _claims_hook()
    config = {"docs_dir": str(docs), "repo_url": REPO}
    fake = SimpleNamespace(file=SimpleNamespace(src_uri="guide/page.md"))
    with pytest.raises(PluginError, match=rf"^guide/page\.md: line {line}: "):
        hook.on_page_markdown(page, page=fake, config=config)
    # The well-formed page passes the same hook and keeps its claims list.
    rendered = hook.on_page_markdown(PAGE, page=fake, config=config)
    assert "Claims on this page and their evidence" in rendered and "[[" not in rendered


def test_a_marker_written_lower_case_with_a_colon_is_still_a_marker_and_lists_stay_text():
    text = 'A.[[proof: "a"]] B.[[no-claim: site]] Lists [[1, 2], [3, 4]] and [Proof](x).'
    assert [m.kind for m in find_markers(text, "p.md")] == ["proof", "no-claim"]


def test_the_readme_is_counted_and_holds_its_markers_in_html_comments(tmp_path):
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    readme = tmp_path / "README.md"
    readme.write_text("# Tool\n\nIt traces once.\n")
    assert check.problems(docs, {"pages": {}}, None) == [
        "README.md: a sentence the count flags has no marker: It traces once."
    ]
    recorded = {"pages": {}, "unmarked": {"../README.md": ["It traces once."]}}
    assert check.problems(docs, recorded, None) == []
    # GitHub would show a bare marker as text: refused, with its line.
    readme.write_text("# Tool\n\nIt traces once.[[no-claim: site]]\n")
    (problem,) = check.problems(docs, recorded, None)
    assert problem.startswith("README.md: line 3: a claim marker would show as text on GitHub")
    # Inside an HTML comment (on its sentence's line or the next) it is read as a marker.
    readme.write_text("# Tool\n\nIt traces once. <!-- [[no-claim: site]] -->\nMore.\n")
    assert check.problems(docs, {"pages": {}}, None) == []
    readme.write_text("# Tool\n\nIt traces once.\n<!-- [[no-claim: site]] -->\n")
    assert check.problems(docs, {"pages": {}}, None) == []


def test_the_readmes_evidence_is_checked_and_its_claims_recorded(tmp_path):
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "page.md").write_text(
        "# P\n\n```python\nprint('traces: 1')\n```\n\n"
        "<!--pytest-codeblocks:expected-output-->\n\n```text\ntraces: 1\n```\n"
    )
    readme = tmp_path / "README.md"
    marker = '<!-- [[proof: docs/guide/page.md "traces: 1"]] -->'
    readme.write_text(f"# Tool\n\nIt traces once. {marker}\n")
    assert check.problems(docs, {"pages": {}}, None) == []
    assert check.claimed(docs, "../README.md") == ["It traces once."]
    # Evidence that is gone fails, as on a page.
    readme.write_text(f"# Tool\n\nIt traces once. {marker.replace('traces: 1', 'traces: 2')}\n")
    (problem,) = check.problems(docs, {"pages": {}}, None)
    assert problem.startswith("README.md: claim 1") and '"traces: 2"' in problem
    # A claim recorded for the README and removed fails until the record is written again.
    readme.write_text("# Tool\n\nIt traces once.\n")
    recorded = {"pages": {"../README.md": ["It traces once."]}, "unmarked": {}}
    assert any("had a [[proof: ...]] marker" in p for p in check.problems(docs, recorded, None))


def test_a_new_unmarked_sentence_fails_even_when_another_was_marked(docs):
    record = {"pages": {}, "unmarked": {"guide/page.md": ["Three dtypes give 3 traces."]}}
    assert check.problems(docs, record, None) == []
    page = docs / "guide" / "page.md"
    page.write_text(page.read_text() + "\nEach call costs a trace.\n")
    assert check.problems(docs, record, None) == [
        "guide/page.md: a sentence the count flags has no marker: Each call costs a trace."
    ]
