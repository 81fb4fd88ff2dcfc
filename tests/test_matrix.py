"""The version matrix: its results schema, its rendering, the runner's bookkeeping, and the
agreement of the package's declared TensorFlow range with what the matrix measured.

Pull-request checks never run the matrix itself (``make matrix``); these tests use the
fixture in tests/fixtures/matrix and the committed results file.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError
from packaging.requirements import Requirement

from verification.harness.codeblocks import ROOT, DocBlock, page_blocks
from verification.harness.processes import build_site, copy_site_sources
from verification.matrix import render, runner
from verification.matrix.entries import (
    ENTRIES,
    NIGHTLY,
    Entry,
    InterpreterNotFound,
    declared_tensorflow,
    interpreter,
)
from verification.matrix.schema import (
    RESULTS_FILE,
    STOPPED,
    ResultsError,
    block_digest,
    document,
    merge_documents,
    read_document,
    validate,
    write_document,
)

FIXTURE = Path(__file__).parent / "fixtures" / "matrix" / "results.json"


@pytest.fixture
def doc() -> dict:
    return json.loads(FIXTURE.read_text("utf-8"))


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "results.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return path


def load_error(path: Path, require_complete: bool = True) -> str:
    with pytest.raises(ResultsError) as caught:
        read_document(path, require_complete)
    return str(caught.value)


# --- the schema -----------------------------------------------------------------------


def test_the_fixture_is_valid_and_complete():
    loaded = read_document(FIXTURE, require_complete=True)
    assert [e["id"] for e in loaded["entries"]] == ["tf2.13", "tf2.16", "tf2.21"]


def test_the_committed_results_are_valid_and_cover_every_declared_entry():
    loaded = read_document(RESULTS_FILE, require_complete=True)
    assert loaded["declared_entries"] == [e.id for e in ENTRIES]


def test_missing_file_empty_file_and_invalid_json(tmp_path):
    assert "cannot be read" in load_error(tmp_path / "absent.json")
    path = write(tmp_path, "")
    assert load_error(path) == f"{path}: the file is empty"
    path = write(tmp_path, '{"schema_version": 1,')
    assert load_error(path).startswith(f"{path}: invalid JSON at line 1")


def test_files_that_json_or_python_would_choke_on_are_refused_by_name(tmp_path, doc):
    raw = json.dumps(doc)
    cases = {
        "not UTF-8 text (byte 1: invalid start byte)": b"{\xff}",
        'the key "complete" is given twice in one object': (
            raw[:-1] + ', "complete": false}'
        ).encode(),
        "an integer of 5000 digits (at most 30)": raw.replace(
            '"schema_version": 1', '"schema_version": ' + "9" * 5000
        ).encode(),
        "nested too deep to read": ("[" * 100_000 + "]" * 100_000).encode(),
    }
    for message, content in cases.items():
        path = tmp_path / "results.json"
        path.write_bytes(content)
        error = load_error(path)
        assert error.startswith(f"{path}: ") and message in error, error


def test_a_fifo_or_a_folder_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    assert (
        load_error(fifo) == f"{fifo}: not a regular file; a results file must be one"
    )  # returns: nothing blocks
    assert load_error(tmp_path) == f"{tmp_path}: not a regular file; a results file must be one"


def test_wrong_schema_version(tmp_path, doc):
    doc["schema_version"] = 7
    path = write(tmp_path, doc)
    assert load_error(path) == f"{path}: schema_version: expected 1, found 7"


def test_a_missing_field_is_named_with_its_path(tmp_path, doc):
    del doc["entries"][0]["pages"]["docs/install.md"]["blocks"][0]["output"]
    path = write(tmp_path, doc)
    assert load_error(path) == (
        f"{path}: entries[0].pages.docs/install.md.blocks[0].output: missing field"
    )


def test_an_unknown_status_is_named(tmp_path, doc):
    doc["entries"][2]["pages"]["docs/install.md"]["blocks"][0]["status"] = "ok"
    path = write(tmp_path, doc)
    assert load_error(path) == (
        f"{path}: entries[2].pages.docs/install.md.blocks[0].status: expected one of "
        "passed, differs, failed, not-applicable, found 'ok'"
    )


def test_a_wrong_type_is_named(tmp_path, doc):
    doc["entries"][0]["package"]["tests"]["passed"] = True
    path = write(tmp_path, doc)
    assert load_error(path) == (
        f"{path}: entries[0].package.tests.passed: expected a whole number, found true"
    )


def test_a_partial_run_is_refused_for_publishing(tmp_path, doc):
    doc["entries"].pop(2)
    doc["complete"] = False
    path = write(tmp_path, doc)
    assert read_document(path)["complete"] is False  # the runner may read it back
    assert load_error(path) == (
        f"{path}: complete: false: a partial run (missing tf2.21); run every entry before "
        "publishing"
    )


def test_complete_must_be_true_to_the_entries(tmp_path, doc):
    doc["entries"].pop(0)
    path = write(tmp_path, doc)
    assert load_error(path) == f"{path}: complete: true, but entries tf2.13 are missing"


def test_an_entry_must_have_a_result_for_every_block(tmp_path, doc):
    doc["entries"][2]["pages"]["docs/guide/causes.md"]["blocks"].pop()
    path = write(tmp_path, doc)
    assert load_error(path) == (
        f"{path}: entries[2].pages.docs/guide/causes.md.blocks: 2 results for 3 blocks"
    )


def test_identifiers_cannot_carry_markup(tmp_path, doc):
    doc["entries"][0]["id"] = "<b>x</b>"
    path = write(tmp_path, doc)
    assert "entries[0].id: expected an identifier" in load_error(path)


def test_a_failed_environment_carries_the_installers_message_and_no_pages(tmp_path, doc):
    doc["entries"][1]["pages"] = {"docs/install.md": {"error": "", "blocks": []}}
    path = write(tmp_path, doc)
    assert load_error(path) == (
        f"{path}: entries[1].pages: an entry without an environment ran no page"
    )


def test_writing_refuses_an_invalid_document_and_keeps_the_old_file(tmp_path, doc):
    path = write(tmp_path, doc)
    before = path.read_text()
    broken = copy.deepcopy(doc)
    broken["entries"][0]["seconds"] = float("nan")
    with pytest.raises(ResultsError, match=r"entries\[0\]\.seconds: expected a finite number"):
        write_document(path, broken)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


# --- rendering ------------------------------------------------------------------------


PAGE = """# A page

```python
print("one")
```

<!--pytest-codeblocks:expected-output-->

```text
one
```

Between.

```python title="second"
print("two")
```

```python
x = 3
```
"""


def blocks_of(markdown: str, page: str = "docs/page.md") -> list[DocBlock]:
    from verification.harness.codeblocks import extract_python_blocks

    return extract_python_blocks(markdown, page)


def doc_for(page: str, blocks: list[DocBlock], outcomes: dict[str, list[tuple]]) -> dict:
    entries = []
    for entry_id, results in outcomes.items():
        entries.append(
            {
                "id": entry_id,
                "environment": {"status": "ok"},
                "env": {},
                "pages": {
                    page: {
                        "error": "",
                        "blocks": [{"status": s, "output": o, "error": e} for s, o, e in results],
                    }
                },
            }
        )
    return {
        "pages": {page: [{"sha256": block_digest(b.code, b.expected_output)} for b in blocks]},
        "entries": entries,
    }


def test_a_note_goes_under_the_shown_output_of_the_block_it_is_about():
    blocks = blocks_of(PAGE)
    doc = doc_for(
        "docs/page.md",
        blocks,
        {
            "tf2.13": [("differs", "uno\n", ""), ("passed", "two\n", ""), ("passed", "", "")],
            "tf2.14": [("differs", "uno\n", ""), ("failed", "", "Trace\nValueError: no\n"),
                       ("not-applicable", "", "an earlier block on the page failed")],
            "tf2.21": [("passed", "one\n", ""), ("passed", "two\n", ""), ("passed", "", "")],
        },
    )  # fmt: skip
    out = render.add_block_notes(PAGE, "docs/page.md", blocks, doc, "TF 2.21", "../v.md")
    first, second = out.index("prints something else on TF 2.13–2.14"), out.index("raises on")
    assert out.index("```text\none\n```") < first < out.index("Between.") < second
    assert '=== "TF 2.13–2.14: prints"\n\n        ```text\n        uno\n        ```' in out
    assert '=== "TF 2.14: raises"\n\n        ```text\n        ValueError: no\n' in out
    assert out.count("??? note") == 2  # nothing under the third block


def test_an_early_warning_entry_adds_no_note_verdict_or_support():
    blocks = blocks_of(PAGE)
    passing = [("passed", "one\n", ""), ("passed", "two\n", ""), ("passed", "", "")]
    doc = doc_for(
        "docs/page.md",
        blocks,
        {"tf2.21": passing, NIGHTLY.id: [("failed", "", "ImportError: gone\n"), *passing[1:]]},
    )
    assert NIGHTLY.early_warning
    out = render.add_block_notes(PAGE, "docs/page.md", blocks, doc, "TF 2.21", "../v.md")
    assert out == PAGE  # the nightly's failure adds nothing to the guide page
    assert render.clean_on(doc, "docs/page.md") == (["tf2.21"], [])
    for entry in doc["entries"]:
        entry["package"] = {"tests": {"status": "passed"}}
    assert render.measured_support(doc) == ["tf2.21"]


def test_notes_are_left_out_for_blocks_changed_since_the_run():
    blocks = blocks_of(PAGE)
    doc = doc_for("docs/page.md", blocks, {"tf2.13": [("differs", "uno\n", "")] * 3})
    edited = PAGE.replace('print("one")', 'print("one", end="\\n")')
    out = render.add_block_notes(edited, "docs/page.md", blocks_of(edited), doc, "x", "v.md")
    assert "uno" not in out.split("Between.")[0]
    assert out.count("??? note") == 2


def test_the_hook_refuses_to_guess_when_it_finds_other_blocks_than_the_harness():
    blocks = blocks_of(PAGE)
    doc = doc_for("docs/page.md", blocks, {"tf2.13": [("passed", "", "")] * 3})
    with pytest.raises(render.MarkerError, match="found 3 Python blocks where the harness finds 5"):
        render.add_block_notes(PAGE, "docs/page.md", blocks[:2] + blocks, doc, "x", "v.md")


def test_output_from_the_results_file_stays_text():
    hostile = "```\n<script>alert(1)</script>\n**bold** [link](http://x)\n````"
    note = render.block_note(
        {"tf2.13": render.Outcome("differs", hostile, "")}, "TF <2>", "../versions.md"
    )
    assert "`````text\n        ```\n        <script>" in note
    assert note.rstrip().endswith("        `````")
    assert "TF &lt;2&gt;" in note
    assert render.plain("<b>**x**</b> [a](b)") == (
        "&lt;b&gt;&#42;&#42;x&#42;&#42;&lt;/b&gt; &#91;a&#93;&#40;b&#41;"
    )


def test_span_joins_consecutive_releases():
    assert render.span(["tf2.15", "tf2.13", "tf2.14", "tf2.21-tf-keras"]) == (
        "TF 2.13–2.15, TF 2.21 + tf-keras"
    )
    assert render.span(["tf2.13", "tf2.16", "tf2.17"]) == "TF 2.13, TF 2.16–2.17"


def entry_pages(doc: dict) -> dict[str, str]:
    """Entry page name -> its rendered Markdown, for every entry of ``doc``."""
    pages = {}
    for entry in doc["entries"]:
        name = render.entry_page(entry["id"])
        md = (ROOT / name).read_text("utf-8") if (ROOT / name).is_file() else ""
        md = md or f"<!-- version-matrix:entry {entry['id']} -->"
        pages[name] = render.replace_markers(
            md, name.removeprefix("docs/"), doc, "tensorflow>=2.16", lambda n: n
        )
    return pages


def test_the_versions_page_has_a_cell_per_page_and_entry_linking_to_its_details(doc):
    md = (ROOT / "docs" / "versions.md").read_text("utf-8")
    out = render.replace_markers(md, "versions.md", doc, "tensorflow>=2.16", lambda n: n)
    assert "version-matrix:" not in out
    assert "| Page | TF 2.13 | TF 2.16 | TF 2.21 |" in out
    row = next(line for line in out.splitlines() if line.startswith("| [guide/causes.md]"))
    cells = row.split(" | ")[1:]
    assert cells[0] == (
        "[1 pass · *1 fail* · 1 not run](docs/versions/tf2.13.md#entry-tf2-13-docs-guide-causes-md)"
    )
    assert cells[1] == "[no environment](docs/versions/tf2.16.md)"
    # The details are on one page per entry, each linked from the Versions page.
    assert "- [TF 2.16](docs/versions/tf2.16.md): no environment could be created." in out
    assert "No solution found" not in out
    details = entry_pages(doc)
    for target, fragment in re.findall(r"\]\((docs/versions/[^)#]+)(?:#([a-z0-9-]+))?\)", out):
        assert target in details, f"link to a missing entry page {target}"
        if fragment:  # a heading's id, or a passed page's line's
            held = f"{{#{fragment}}}" in details[target] or f'id="{fragment}"' in details[target]
            assert held, f"link to a missing anchor {fragment}"
    for target in re.findall(r"\]\(#((?:entry|page)-[a-z0-9-]+)\)", out):
        assert f"{{#{target}}}" in out, f"link to a missing anchor #{target}"
    assert "No solution found when resolving dependencies" in details["docs/versions/tf2.16.md"]
    tf213 = details["docs/versions/tf2.13.md"]
    assert tf213.startswith("# Version matrix: TF 2.13 {#entry-tf2-13}")
    assert "[version matrix](docs/versions.md)" in tf213  # back to the Versions page
    assert "The environment was created in 2 s; the whole entry took 115 s." in tf213
    assert "\n    TypeError: <b>bold</b> **not markup** `tick`\n" in tf213  # inside its fence
    assert "`tensorflow>=2.16`" in out  # a code span: Markdown escapes it once
    assert render.code("a ``b`` c") == "```a ``b`` c```"
    assert render.code("`x") == "`` `x ``"


def test_every_declared_entry_has_its_page_in_the_nav():
    from mkdocs.utils.yaml import yaml_load

    with (ROOT / "mkdocs.yml").open(encoding="utf-8") as stream:
        nav = str(yaml_load(stream)["nav"])
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "versions").glob("*.md")}
    assert pages == {render.entry_page(entry.id) for entry in ENTRIES}
    for entry in ENTRIES:
        name = render.entry_page(entry.id)
        marker = f"<!-- version-matrix:entry {entry.id} -->"
        assert (ROOT / name).read_text("utf-8").strip() == marker, name
        assert f"'{name.removeprefix('docs/')}'" in nav, name


def test_an_entry_marker_belongs_on_its_own_page(doc):
    for page, marker, message in (
        ("versions/tf2.14.md", "entry tf2.13", "version-matrix:entry tf2.13 belongs on"),
        ("versions/tf9.md", "entry tf9", "the version matrix has no entry 'tf9'"),
        ("versions/x.md", "entry", "version-matrix:entry needs an entry id"),
        ("versions.md", "table tf2.13", "version-matrix:table takes no argument"),
    ):
        with pytest.raises(render.MarkerError, match=re.escape(message)):
            render.replace_markers(f"<!-- version-matrix:{marker} -->", page, doc, "", str)


def test_markers_belong_on_the_versions_page_only(doc):
    with pytest.raises(render.MarkerError, match=r"guide/x\.md: version-matrix markers belong"):
        render.replace_markers("<!-- version-matrix:table -->", "guide/x.md", doc, "", str)
    with pytest.raises(render.MarkerError, match="unknown marker version-matrix:tabel"):
        render.replace_markers("<!-- version-matrix:tabel -->", "versions.md", doc, "", str)


def test_the_measured_range_sentence_names_where_every_block_held(doc):
    sentence = render.measured_range_sentence(doc, "docs/guide/causes.md", "../versions.md")
    assert sentence == (
        "The [version matrix](../versions.md#page-docs-guide-causes-md) also ran them on "
        "TF 2.13, TF 2.21: the same output on TF 2.21; on TF 2.13 some blocks print "
        "something else or raise, as the notes under them show. No environment could be "
        "created for TF 2.16."
    )
    assert render.measured_range_sentence(doc, "docs/other.md", "v.md") == ""


def test_a_page_an_entry_cannot_run_is_recorded_as_needing_and_never_counted(doc):
    from verification.matrix.runner import page_not_run

    page = "docs/install.md"
    blocks = doc["pages"][page]
    doc["entries"][0]["pages"][page] = page_not_run(blocks, "tf-keras")  # TF 2.13 lacks it
    assert validate(doc) == []
    record = doc["entries"][0]["pages"][page]
    assert {b["status"] for b in record["blocks"]} == {"not-applicable"}
    assert record["blocks"][0]["error"] == "needs tf-keras, which this entry does not install"
    # Neither clean nor failing there: the page did not run.
    clean, other = render.clean_on(doc, page)
    assert "tf2.13" not in clean + other
    assert render.cell(doc["entries"][0], page, lambda n: n) == (
        "[needs tf-keras](docs/versions/tf2.13.md#entry-tf2-13-docs-install-md)"
    )
    sentence = render.measured_range_sentence(doc, page, "../versions.md")
    assert sentence.endswith(
        "It needs tf-keras, which TF 2.13 do not install: the page was not run there."
    )
    assert "TF 2.13:" not in sentence.split("It needs")[0]


def test_a_page_not_run_for_what_it_needs_has_no_results_to_call_earlier(doc):
    from verification.matrix.runner import page_not_run

    page = "docs/install.md"
    doc["entries"][0]["pages"][page] = page_not_run(doc["pages"][page], "tf-keras")
    fresh = {page: [False] * len(doc["pages"][page])}  # the page changed since the run
    details = render.entry_details(doc["entries"][0], str, fresh)
    line = next(line for line in details.splitlines() if "not run: it needs tf-keras" in line)
    assert "earlier version" not in line


def test_the_entries_index_counts_only_blocks_still_as_they_ran(doc):
    page = "docs/guide/causes.md"  # 1 pass, 1 fail, 1 not run at TF 2.13 in the fixture
    before = render.entries_index(doc, str)
    assert "1 did not run" in before.splitlines()[0]
    changed = render.entries_index(doc, str, {page: [False, True]})
    # the first and the third result are of blocks the page no longer has as they ran
    assert "(2 results of blocks changed since are left out)" in changed.splitlines()[0]


def test_a_test_module_that_could_not_be_imported_is_not_a_failed_test(doc):
    tests = doc["entries"][0]["package"]["tests"]
    tests.update(status="failed", passed=3, failed=2, skipped=0)
    tests["failures"] = [
        {"test": "::test_retrace_explainer", "message": "ImportError: cannot import name 'X'"},
        {"test": "test_lint::test_one", "message": "AssertionError"},
    ]
    cell = render.package_cell(doc["entries"][0], str)
    assert cell.startswith("[3 pass · *1 fail* · *1 module not imported*](")
    details = "\n".join(render.package_details(doc["entries"][0]))
    assert "3 passed, 1 failed, 0 skipped." in details
    assert "The module `test_retrace_explainer` could not be imported" in details


def test_what_a_page_needs_must_be_text_and_no_other_field_is_accepted(doc):
    record = doc["entries"][0]["pages"]["docs/install.md"]
    record["needs"] = 3
    assert validate(doc) == ["entries[0].pages.docs/install.md.needs: expected a string, found 3"]
    record["needs"], record["skipped"] = "tf-keras", True
    assert validate(doc) == ["entries[0].pages.docs/install.md.skipped: unknown field"]


def test_pages_needing_another_distribution_are_declared_and_tf_keras_has_one_entry():
    from verification.matrix.entries import PAGE_NEEDS

    assert PAGE_NEEDS == {
        "docs/guide/keras-2.md": "tf-keras",
        "docs/guide/serving-on-ray.md": "ray",
    }
    assert (ROOT / "docs" / "guide" / "keras-2.md").is_file()
    installing = [e.id for e in ENTRIES if any(r.startswith("tf-keras==") for r in e.extra)]
    assert installing == ["tf2.21-tf-keras"]


# --- the hooks ------------------------------------------------------------------------


def load_hook(name: str):
    spec = importlib.util.spec_from_file_location(
        f"{name}_hook", ROOT / "docs" / "hooks" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hook_fails_naming_file_and_field(tmp_path, doc, monkeypatch):
    del doc["entries"][2]["provenance"]["commit"]
    path = write(tmp_path, doc)
    monkeypatch.setenv("MATRIX_RESULTS", str(path))
    for name in ("version_matrix", "verified_versions"):
        with pytest.raises(PluginError) as caught:
            load_hook(name).on_config(config=None)
        assert str(caught.value) == (
            f"version matrix results: {path}: entries[2].provenance.commit: missing field"
        )


def test_the_hook_renders_the_versions_page_from_the_fixture(doc, monkeypatch):
    monkeypatch.setenv("MATRIX_RESULTS", str(FIXTURE))
    hook = load_hook("version_matrix")
    hook.on_config(config=None)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="versions.md"))
    config = {"docs_dir": str(ROOT / "docs"), "config_file_path": str(ROOT / "mkdocs.yml")}
    out = hook.on_page_markdown(
        (ROOT / "docs" / "versions.md").read_text(), page=page, config=config
    )
    assert "[guide/causes.md](guide/causes.md){#page-docs-guide-causes-md}" in out
    # The fixture's blocks are not the page's blocks of today: the cell says so.
    assert re.search(r"\[1 pass · \*1 fail\* · 1 not run · \d+ of \d+ blocks current\]", out)


def test_pages_whose_blocks_all_passed_share_one_heading_and_keep_their_anchors(doc):
    """A heading per page made an entry page grow with the guide (TF 2.13's passed twelve
    screens); a page with nothing to show is one line under one heading."""
    entry = doc["entries"][-1]  # TF 2.21 in the fixture: every page passed
    page = render.entry_details(entry, str)
    assert page.count("\n## ") == 2  # the package, and every block passed
    for name in entry["pages"]:
        ident = render.anchor("entry", entry["id"], name)
        assert f'<span id="{ident}"></span>[{name}]({name}):' in page
    # a page with a block that differs keeps its own heading and folded box
    first = render.entry_details(doc["entries"][0], str)
    assert "## docs/guide/causes.md {#entry-tf2-13-docs-guide-causes-md}" in first


def test_a_page_changed_since_the_run_and_a_missing_module_are_named(doc):
    """A cell and an entry page count results of blocks the page no longer has as such; a
    block that raised because the entry lacks a module says which module."""
    blocks = doc["entries"][0]["pages"]["docs/guide/causes.md"]["blocks"]
    blocks[1]["error"] = "Traceback ...\nModuleNotFoundError: No module named 'IPython'\n"
    fresh = {"docs/guide/causes.md": [True, False, True, True]}
    cell = render.cell(doc["entries"][0], "docs/guide/causes.md", str, fresh)
    assert cell.startswith("[1 pass · *1 fail* · 1 not run · 3 of 4 blocks current](")
    page = render.entry_details(doc["entries"][0], str, fresh)
    assert (
        ": 1 pass, 1 fail, 1 not run (a block needs `IPython`, which this entry does not install); "
        "these are the results of an earlier version of the page (3 of 4 blocks current)."
    ) in page
    assert "blocks current" not in render.cell(doc["entries"][0], "docs/install.md", str, fresh)


@pytest.mark.slow
def test_the_build_fails_on_a_partial_results_file_before_writing_a_page(
    tmp_path, doc, monkeypatch
):
    project = copy_site_sources(tmp_path / "project")
    doc["complete"] = False
    monkeypatch.setenv("MATRIX_RESULTS", str(write(tmp_path, doc)))
    proc = build_site(project / "mkdocs.yml", project / "site")
    assert proc.returncode != 0
    assert f"{tmp_path / 'results.json'}: complete: false: a partial run" in proc.stderr
    site = project / "site"
    assert not site.exists() or not list(site.rglob("*.html"))


@pytest.mark.slow
def test_the_built_site_has_the_versions_page_and_notes_under_blocks(built_site):
    results = read_document(RESULTS_FILE, require_complete=True)
    versions = (built_site / "versions" / "index.html").read_text("utf-8")
    assert "version-matrix:" not in versions
    for entry in results["entries"]:
        details = built_site / "versions" / entry["id"] / "index.html"
        assert f'href="{entry["id"]}/"' in versions
        assert f'id="{render.anchor("entry", entry["id"])}"' in details.read_text("utf-8")
    noted = [
        (name, index)
        for name, recorded in results["pages"].items()
        for index in range(1, len(recorded) + 1)
        if name.startswith("docs/guide/")
        and any(
            e["environment"]["status"] == "ok"
            and e["pages"][name]["blocks"][index - 1]["status"] in ("differs", "failed")
            for e in render.settled_entries(results)  # a nightly adds no note
        )
    ]
    for name in {name for name, _ in noted}:
        html_page = built_site / name.removeprefix("docs/").removesuffix(".md") / "index.html"
        text = html_page.read_text("utf-8")
        fresh = render.current(results, name, page_blocks(ROOT / name))
        # A page that now has fewer blocks (split, say) has notes only for its blocks.
        expected = sum(1 for n, i in noted if n == name and i <= len(fresh) and fresh[i - 1])
        assert text.count("Other versions: this block") == expected, name
        assert "version matrix" in text


# --- the runner -----------------------------------------------------------------------


def test_interpreters_are_found_on_the_machine_never_downloaded(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTHON311", raising=False)
    for version in ("3.11.2", "3.11.10"):
        binary = tmp_path / "versions" / version / "bin" / "python3.11"
        binary.parent.mkdir(parents=True)
        binary.touch()
    assert interpreter("3.11", tmp_path).parts[-3] == "3.11.10"
    with pytest.raises(InterpreterNotFound, match=r"no Python 3\.9 under"):
        interpreter("3.9", tmp_path)
    monkeypatch.setenv("PYTHON311", "/opt/py/bin/python3.11")
    assert interpreter("3.11", tmp_path) == Path("/opt/py/bin/python3.11")


def test_the_declared_entries():
    ids = [e.id for e in ENTRIES]
    assert len(ids) == len(set(ids)) == 11
    assert {e.python for e in ENTRIES if e.minor < (2, 16)} == {"3.11"}
    assert {e.python for e in ENTRIES if e.minor >= (2, 16)} == {"3.12"}
    # The nightly: an early warning, pinned, run with the opt-in to the full explainer.
    assert [e.id for e in ENTRIES if e.early_warning] == [NIGHTLY.id]
    assert NIGHTLY.requirements[:2] == [
        f"tf-nightly=={NIGHTLY.tensorflow}",
        f"keras-nightly=={NIGHTLY.keras}",
    ]
    assert NIGHTLY.env == {"TF_RETRACING_ALLOW_UNTESTED": "1"}
    for entry in ENTRIES:
        assert all("==" in pin for pin in entry.requirements), entry.id
        lock = runner.lock_path(entry).read_text()
        for pin in entry.requirements:
            assert pin in lock.splitlines(), f"{entry.id}: {pin} not in its lock"
        installs = [line for line in lock.splitlines() if line and not line.startswith("#")]
        assert all(re.fullmatch(r"[A-Za-z0-9._-]+==[^ ;]+", line) for line in installs)
        # tensorflow and tensorflow-cpu both write the `tensorflow` package: never both.
        names = {line.split("==")[0] for line in installs}
        assert not {"tensorflow", "tensorflow-cpu"} <= names, entry.id


def block(code: str, expected: str | None, title: str = "") -> DocBlock:
    return DocBlock("docs/p.md", 1, code, title, expected, False)


def test_classify_block_outcomes():
    shown = block("print(1)", "1\n")
    assert runner.classify(shown, {"status": "passed", "output": "1\n"})["status"] == "passed"
    assert runner.classify(shown, {"status": "passed", "output": "2\n"})["status"] == "differs"
    failed = runner.classify(shown, {"status": "failed", "output": "", "error": "E\n"})
    assert failed == {"status": "failed", "output": "", "error": "E\n"}
    marked = runner.classify(block("x", None, "Not run: needs a GPU"), {"status": "passed"})
    assert marked == {"status": "not-applicable", "output": "", "error": "needs a GPU"}
    # A block after one that raised never ran: not run, not failed (2.13-2.15 showed 50, 48
    # and 38 such blocks as raised before).
    stopped = runner.classify(shown, {"status": "blocked", "output": "", "error": "x"})
    assert stopped == {"status": "not-applicable", "output": "", "error": STOPPED}


def test_a_stopped_block_stored_as_failed_by_an_older_run_reads_as_not_run(tmp_path):
    data = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    name, page = next((n, p) for n, p in data["entries"][0]["pages"].items() if p["blocks"])
    page["blocks"][0].update(status="failed", output="", error="an earlier block failed")
    copied = tmp_path / "results.json"
    copied.write_text(json.dumps(data), encoding="utf-8")
    read = read_document(copied)
    first = read["entries"][0]["pages"][name]["blocks"][0]
    assert first == {"status": "not-applicable", "output": "", "error": STOPPED}


def test_junit_summary_names_failures_and_collection_errors(tmp_path):
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="test_a" name="test_ok"/>'
        '<testcase classname="test_a" name="test_skip"><skipped message="s"/></testcase>'
        '<testcase classname="test_a" name="test_bad"><failure message="assert 1 == 2"/>'
        "</testcase>"
        '<testcase classname="" name="test_b"><error message="collection failure">'
        "Traceback\nE   ImportError: cannot import name 'x'\n</error></testcase>"
        "</testsuite></testsuites>"
    )
    assert runner.junit_summary(report) == {
        "passed": 1,
        "failed": 2,
        "skipped": 1,
        "failures": [
            {"test": "test_a::test_bad", "message": "assert 1 == 2"},
            {"test": "::test_b", "message": "ImportError: cannot import name 'x'"},
        ],
    }


@pytest.mark.slow
def test_an_entry_without_an_environment_is_recorded_and_the_run_goes_on(tmp_path, monkeypatch):
    def no_solution(entry):
        raise runner.EnvironmentFailed(f"No solution found for {entry.requirements[0]}")

    monkeypatch.setattr(runner, "lock_path", lambda entry: tmp_path / "absent.txt")
    monkeypatch.setattr(runner, "compile_lock", no_solution)
    entries = [
        Entry(id="tf2.13", label="TF 2.13", python="3.11", tensorflow="2.13.99", keras="2"),
        Entry(id="tf2.14", label="TF 2.14", python="3.11", tensorflow="2.14.99", keras="2"),
    ]
    messages: list[str] = []
    out = tmp_path / "results.json"
    result = runner.run(
        entries, out=out, cache=tmp_path / "cache", progress=messages.append,
        page_names=["docs/install.md"],
    )  # fmt: skip
    assert [e["environment"]["message"] for e in result["entries"]] == [
        "No solution found for tensorflow-cpu==2.13.99",
        "No solution found for tensorflow-cpu==2.14.99",
    ]
    assert result["complete"] is False
    assert read_document(out)["entries"][1]["environment"]["status"] == "failed"
    assert any(m.startswith("[2/2] tf2.14") for m in messages)  # progress is shown


def test_a_results_document_for_pages_and_entries(doc):
    blocks = [block("print(1)", "1\n")]
    made = document([], {"docs/p.md": blocks}, ENTRIES[:2])
    assert made["complete"] is False and made["declared_entries"] == ["tf2.13", "tf2.14"]
    assert validate(made) == []


# --- the package's declared range agrees with the matrix --------------------------------


def test_the_declared_tensorflow_range_is_the_range_the_matrix_measured():
    import tf_retracing

    results = read_document(RESULTS_FILE, require_complete=True)
    passing = set(render.measured_support(results))
    keras3 = [e for e in ENTRIES if not e.legacy_keras and not e.early_warning]
    specifier = Requirement(declared_tensorflow()).specifier
    admitted = {e.id for e in keras3 if specifier.contains(e.tensorflow)}
    assert admitted == passing, (
        f"pyproject.toml declares {specifier}, which admits {sorted(admitted)}; the "
        f"package's tests passed on {sorted(passing)}"
    )
    low, high = tf_retracing.SUPPORTED_TENSORFLOW
    in_supported = {e.id for e in keras3 if low <= e.minor <= high}
    assert in_supported == passing, (
        f"SUPPORTED_TENSORFLOW is {low} to {high}; the tests passed on {sorted(passing)}"
    )
    # The declared upper bound is the next minor release after the newest one measured.
    newest = max(e.minor for e in keras3 if e.id in passing)
    assert not specifier.contains(f"{newest[0]}.{newest[1] + 1}.0")


def test_the_jobs_files_merge_into_one_complete_document(tmp_path, doc):
    declared = [e for e in ENTRIES if e.id in ("tf2.13", "tf2.16", "tf2.21")]
    parts = []
    for index, entry in enumerate(doc["entries"]):
        part = {**copy.deepcopy(doc), "entries": [entry], "complete": False}
        parts.append((tmp_path / f"part{index}.json", part))
    merged = merge_documents(list(reversed(parts)), declared)
    assert merged == doc  # the declared order, whatever order the files come in
    assert validate(merged, require_complete=True) == []
    assert merge_documents(parts[:2], declared)["complete"] is False
    parts[1][1]["pages"] = {}
    with pytest.raises(ResultsError, match=r"part1\.json: pages: not the pages of"):
        merge_documents(parts, declared)
    with pytest.raises(ResultsError, match=r"'tf2\.13' is in two files"):
        merge_documents([parts[0], parts[0]], declared)


def test_a_page_can_list_its_blocks_that_depend_on_the_version():
    page = "# T\n\n## First part\n\n" + PAGE.split("\n", 1)[1] + "\n## Second\n\n<!-- m -->\n"
    blocks = blocks_of(page, "docs/guide/p.md")
    doc = doc_for(
        "docs/guide/p.md",
        blocks,
        {
            "tf2.13": [("passed", "", ""), ("differs", "2", ""), ("failed", "", "E: x")],
            "tf2.14": [("passed", "", ""), ("failed", "", "E: y"), ("passed", "", "")],
        },
    )
    out = render.replace_markers(
        page.replace("<!-- m -->", "<!-- version-matrix:page-differences -->"),
        "guide/p.md", doc, "", str, blocks,
    )  # fmt: skip
    assert (
        "- Block 2, in [First part](#first-part): prints something else on TF 2.13; "
        "raises on TF 2.14.\n- Block 3, in [First part](#first-part): raises on TF 2.13.\n"
    ) in out
    with pytest.raises(render.MarkerError, match="needs the blocks"):
        render.replace_markers("<!-- version-matrix:page-differences -->", "x.md", doc, "", str)


def test_a_rerun_keeps_earlier_entries_only_for_the_same_pages(tmp_path, doc):
    pages = {
        "docs/guide/causes.md": [block(f"print({i})", f"{i}\n") for i in range(3)],
        "docs/install.md": [block("print(9)", "9\n")],
    }
    doc["pages"] = document([], pages, ENTRIES)["pages"]
    path = write(tmp_path, doc)
    messages: list[str] = []
    assert list(runner.kept_entries(path, pages, messages.append)) == ["tf2.13", "tf2.16", "tf2.21"]
    pages["docs/install.md"] = [block("print(9)", "nine\n")]  # the shown output changed
    assert runner.kept_entries(path, pages, messages.append) == {}
    assert messages == ["   not keeping the earlier results: changed since: docs/install.md"]


def test_outputs_that_differ_only_by_memory_address_are_one_group():
    outcomes = {
        "tf2.13": render.Outcome("differs", "<A object at 0x7f58826e2090>\n", ""),
        "tf2.14": render.Outcome("differs", "<A object at 0x7f4a061c3e90>\n", ""),
        "tf2.15": render.Outcome("failed", "", "Traceback\n  x\n    KeyError: 0x7f4a061c3e90\n"),
    }
    note = render.block_note(outcomes, "TF 2.21", "v.md")
    assert '=== "TF 2.13–2.14: prints"' in note and "<A object at 0x...>" in note
    assert '=== "TF 2.15: raises"\n\n        ```text\n        KeyError: 0x...\n' in note


def test_the_measured_range_of_a_page_changed_since_the_run_is_not_claimed():
    blocks = blocks_of(PAGE)
    doc = doc_for("docs/page.md", blocks, {"tf2.13": [("passed", "", "")] * 3})
    doc["entries"][0]["environment"] = {"status": "ok"}
    assert "ran them on TF 2.13: every block" in render.measured_range_sentence(
        doc, "docs/page.md", "v.md", blocks
    )
    edited = blocks_of(PAGE.replace('print("two")', 'print("deux")'))
    assert render.measured_range_sentence(doc, "docs/page.md", "v.md", edited) == (
        "The [version matrix](v.md#page-docs-page-md) last ran an earlier version of this "
        "page's examples; its next run will cover these."
    )


def _repository_imports(path: Path) -> set[str]:
    """The modules of this repository (tests, snippets, benchmarks) that ``path`` imports."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {name for name in names if name.split(".")[0] in {"tests", "snippets", "benchmarks"}}


def test_the_package_tests_take_along_every_repository_module_they_import():
    """The matrix runs PACKAGE_TESTS from a copy outside the repository, where only the
    files of PACKAGE_TEST_SUPPORT are importable beside them."""
    copied = {
        Path(relative).with_suffix("").as_posix().replace("/", ".")
        for relative in runner.PACKAGE_TEST_SUPPORT
    }
    for relative in (*runner.PACKAGE_TESTS, *runner.PACKAGE_TEST_SUPPORT):
        missing = _repository_imports(ROOT / relative) - copied
        assert not missing, f"{relative} imports {sorted(missing)}, which the matrix does not copy"


def test_the_copied_package_tests_collect_on_their_own(tmp_path):
    """What an entry runs: the package's tests, copied beside what they import, collected by
    pytest in that folder with the repository's markers and fixtures (a marker or fixture
    they lacked made every entry's collection fail)."""
    tests = runner.copy_package_tests(tmp_path / "package-tests")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT / "snippets")  # an entry installs the package instead
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q"],
        cwd=tests,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"\d+/\d+ tests collected \(\d+ deselected\)", done.stdout), done.stdout[-500:]


def test_a_page_runs_with_what_it_tells_its_reader_to_set_and_the_setups_own_win(
    tmp_path, monkeypatch
):
    # A page's reader-environment (TF_ENABLE_ONEDNN_OPTS=1 on Serving a thousand tenants)
    # reaches the page's process on every setup; a setup's own variable of the same name wins.
    import subprocess
    from types import SimpleNamespace

    from verification.matrix import runner
    from verification.matrix.entries import Entry

    seen = []

    def fake_run(command, **kwargs):
        seen.append(kwargs["env"])
        return SimpleNamespace(stdout="[]", returncode=0, stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    name = "docs/guide/serving-at-scale.md"
    work = SimpleNamespace(
        folder=tmp_path,
        runner=tmp_path / "r.py",
        blocks_file=tmp_path / "b.json",
        pages={name: runner.page_blocks(runner.ROOT / name)},
    )
    plain = Entry("plain", "plain", "3.12", "2.21.0", "3.15.1")
    off = Entry("off", "off", "3.12", "2.21.0", "3.15.1", env={"TF_ENABLE_ONEDNN_OPTS": "0"})
    runner.run_page(Path("python"), plain, work, name)
    runner.run_page(Path("python"), off, work, name)
    assert [env.get("TF_ENABLE_ONEDNN_OPTS") for env in seen] == ["1", "0"]
