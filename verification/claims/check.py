"""The coverage check: what fails when a claim loses its evidence.

``python -m verification.claims check`` (and ``tests/test_claims.py``) fails when

- a marker cannot be read (a misspelt ``[[ proof: ...]]``, an unknown kind), or is
  outside a sentence of prose;
- a piece of evidence is gone (the cited output line, results figure, page or run of the
  version matrix no longer exists);
- a sentence the count flags (a universal word, a quantity in words, a number, a
  version; in prose, a list item, a heading, a table cell or a box's title) on a counted
  page (``index.counted_pages``: the guide, the home, install and Versions pages, the
  Benchmarks pages and the README) carries no marker and is not among the ones the
  record lists as still without one (``unmarked``): that list can only get shorter;
- a sentence that carried a ``[[proof: ...]]`` marker when the claims were recorded is
  on its page without one, or its page has fewer claims than were recorded;
- a claim cites a results figure whose run is stale (older than the code it measured, or
  made before runs recorded a code hash) and the record does not list that figure among
  the stale ones it accepted (``stale_figures``): the number of stale figures can go down
  without a word and goes up only in a change of ``recorded.json``.

The record (``recorded.json``) lists, per page, the sentences that carried evidence; it is
written by ``python -m verification.claims record``. Rewording a claim and keeping its
marker passes (the page keeps its number of claims); removing a marker, or a claim with it,
fails until the record is written again, so the change shows in review as a change of
``recorded.json``. ``baseline.json`` is another file: the counts before markers existed,
kept for the index page's "Flagged before" column, never updated.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from verification.claims.coverage import sentences
from verification.claims.index import (
    README,
    cited_figures,
    counted_pages,
    page_markdown,
    page_sentences,
    visible_markers,
)
from verification.claims.markers import ClaimError
from verification.claims.render import render_markers

RECORD = Path(__file__).with_name("recorded.json")
RECORD_COMMAND = "python -m verification.claims record"


def marked_pages(docs_dir: Path) -> list[str]:
    """Every page of ``docs_dir`` (from it, with /), sorted."""
    return sorted(p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*.md"))


def recorded_pages(docs_dir: Path) -> list[str]:
    """The pages whose claims the record lists: every page, and the README."""
    readme = [README] if (docs_dir / README).is_file() else []
    return marked_pages(docs_dir) + readme


def claimed(docs_dir: Path, page: str) -> list[str]:
    """The sentences of ``page`` that end with a ``[[proof: ...]]`` marker."""
    found = sentences(page_markdown(docs_dir, page), page)
    return [s.text for s in found if any(m.kind == "proof" for m in s.markers)]


def read_record(path: Path = RECORD) -> dict:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        pages = document["pages"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ClaimError(
            f"{path}: the record of claims cannot be read ({error}); write it with {RECORD_COMMAND}"
        ) from error
    if not isinstance(pages, dict) or not all(
        isinstance(v, list) and all(isinstance(s, str) for s in v) for v in pages.values()
    ):
        raise ClaimError(f"{path}: 'pages' must map each page to a list of sentences")
    unmarked = document.get("unmarked", {})
    if not isinstance(unmarked, dict) or not all(
        isinstance(v, list) and all(isinstance(s, str) for s in v) for v in unmarked.values()
    ):
        raise ClaimError(f"{path}: 'unmarked' must map each page to a list of sentences")
    stale = document.get("stale_figures", [])
    if not isinstance(stale, list) or not all(isinstance(s, str) for s in stale):
        raise ClaimError(f"{path}: 'stale_figures' must be a list of 'page: file key' texts")
    return document


def problems(
    docs_dir: Path,
    record: dict,
    matrix_doc: dict | None,
    pages: list[str] | None = None,
    repo_url: str = "https://github.com/example/repo",
) -> list[str]:
    """Every reason the check fails, one line each (empty: the check passes)."""
    found: list[str] = []
    recorded = record["pages"]
    unmarked = record.get("unmarked", {})
    counted = set(counted_pages(docs_dir))
    existing = marked_pages(docs_dir)
    chosen = existing if pages is None else pages
    for page in chosen:
        markdown = (docs_dir / page).read_text(encoding="utf-8")
        try:
            render_markers(markdown, page, docs_dir, repo_url, matrix_doc)
            page_sentences = sentences(markdown, page)
        except ClaimError as error:  # malformed, outside prose, or evidence gone
            found.append(str(error))
            continue
        if page in counted:
            found.extend(_unrecorded_missing(page, page_sentences, unmarked.get(page, [])))
        found.extend(_lost_claims(page, page_sentences, recorded.get(page, [])))
        found.extend(_new_stale_figures(docs_dir, page, set(record.get("stale_figures", []))))
    if (pages is None or README in pages) and README in counted:
        found.extend(_readme_problems(docs_dir, unmarked.get(README, []), recorded.get(README, [])))
    if pages is None:
        found.extend(
            f"{page}: recorded with {len(recorded[page])} claims, and the page is gone "
            f"(moved? write the record again: {RECORD_COMMAND})"
            for page in sorted(set(recorded) - set(recorded_pages(docs_dir)))
            if recorded[page]
        )
    return found


def _unrecorded_missing(page: str, found: list, recorded: list[str]) -> list[str]:
    """Flagged sentences without a marker beyond those the record lists for the page."""
    allowed = Counter(recorded)
    problems = []
    for sentence in found:
        if sentence.status != "missing":
            continue
        if allowed[sentence.text] > 0:
            allowed[sentence.text] -= 1
            continue
        kind = "" if sentence.kind == "prose" else f" ({sentence.kind})"
        problems.append(f"{page}: a sentence the count flags has no marker{kind}: {sentence.text}")
    return problems


def _readme_problems(docs_dir: Path, unmarked: list[str], recorded: list[str]) -> list[str]:
    """The README is read on GitHub, where a marker would show as text: its markers are
    written inside HTML comments (``index.page_markdown``); otherwise it is checked as a
    page is: its evidence resolves, its flagged sentences are marked or recorded."""
    name = "README.md"
    try:
        shown = visible_markers(docs_dir, README)
        markdown = page_markdown(docs_dir, README)
        render_markers(markdown, README, docs_dir, "", None)
        found = sentences(markdown, README)
    except ClaimError as error:
        return [str(error).replace(README, name)]
    problems = [
        f"{name}: line {line}: a claim marker would show as text on GitHub; write it inside "
        "an HTML comment, <!-- [[proof: ...]] -->"
        for line in shown
    ]
    problems += _unrecorded_missing(README, found, unmarked)
    problems += _lost_claims(README, found, recorded)
    return [line.replace(f"{README}:", f"{name}:", 1) for line in problems]


def _new_stale_figures(docs_dir: Path, page: str, accepted: set[str]) -> list[str]:
    return [
        f"{page}: claim {figure.claim} cites {figure.file} {figure.key}, a figure of a stale "
        f"run: {figure.state} Run it again; to accept it as stale for now, write the record "
        f"again: {RECORD_COMMAND}"
        for figure in cited_figures(docs_dir, [page])
        if figure.stale and figure.label not in accepted
    ]


def _lost_claims(page: str, page_sentences: list, recorded: list[str]) -> list[str]:
    now = Counter(s.text for s in page_sentences if s.status == "proof")
    unmarked = {s.text for s in page_sentences if s.status != "proof"}
    lost = [
        f"{page}: this sentence had a [[proof: ...]] marker and has none now: {text}"
        for text in dict.fromkeys(recorded)
        if text in unmarked and text not in now
    ]
    if sum(now.values()) < len(recorded):
        gone = [text for text in dict.fromkeys(recorded) if text not in now]
        lost.append(
            f"{page}: {sum(now.values())} sentences carry evidence, {len(recorded)} were "
            f"recorded; not found with a marker now: {' | '.join(gone) or '(reworded)'}. "
            f"If the claims were removed on purpose, write the record again: {RECORD_COMMAND}"
        )
    return lost


def record(docs_dir: Path, path: Path = RECORD) -> dict:
    """Write the sentences that carry evidence now, per page."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    document = {
        "commit": commit,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": RECORD_COMMAND,
        "pages": {
            page: texts for page in recorded_pages(docs_dir) if (texts := claimed(docs_dir, page))
        },
        # Flagged sentences still without a marker, per page: the check fails on any
        # other, so this list only gets shorter (see the module's docstring).
        "unmarked": {
            page: texts
            for page in counted_pages(docs_dir)
            if (texts := [s.text for s in page_sentences(docs_dir, page) if s.status == "missing"])
        },
        # Cited figures whose run is stale, accepted as they are; the check fails on any
        # other (see the module's docstring).
        "stale_figures": sorted({f.label for f in cited_figures(docs_dir) if f.stale}),
    }
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return document
