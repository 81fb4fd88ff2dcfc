"""Claim markers as the reader sees them: superscript links to the evidence, a list of the
page's claims under it, and ids on the output lines they point at.

Plain functions; the MkDocs hook ``docs/hooks/claims.py`` only calls them. Every marker is
resolved while the page is rendered, so a marker whose evidence is gone fails the build.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from benchmarks.code_hash import NO_HASH
from benchmarks.results_pages import figure_anchor, is_results_file, locate, page_of
from verification.claims.conditions import FIGURE, full_key, reads_every
from verification.claims.coverage import heading_ids, sentences
from verification.claims.evidence import (
    Condition,
    Evidence,
    MatrixLine,
    OutputLine,
    ResultFigure,
    all_blocks,
    cited_result_figures,
    executed_blocks,
    output_anchor,
    resolve,
)
from verification.claims.markers import ClaimError, Marker, find_markers
from verification.matrix import render as matrix
from verification.matrix.render import EXPECTED_OUTPUT

LIST_TITLE = "Claims on this page and their evidence"


@dataclass(frozen=True)
class Claim:
    number: int
    sentence: str
    evidence: tuple[Evidence, ...]
    # Where the list's back-link leads: the claim's superscript, or, for a heading (which
    # shows no number: the table of contents would repeat it), the heading itself.
    anchor: str = ""

    @property
    def back(self) -> str:
        return self.anchor or f"claim-{self.number}"


def page_claims(
    markdown: str, page: str, docs_dir: Path, matrix_doc: dict | None = None
) -> list[tuple[Marker, Claim]]:
    """Each proof marker of the page with its claim, evidence resolved (or ClaimError)."""
    found = []
    headings = heading_ids(markdown)
    for sentence in sentences(markdown, page):
        for marker in sentence.markers:
            if marker.kind != "proof":
                continue
            where = f"{page}: claim {len(found) + 1} ({_excerpt(sentence.text)})"
            evidence = tuple(resolve(ref, page, docs_dir, where, matrix_doc) for ref in marker.refs)
            anchor = ""
            if sentence.kind == "heading":
                anchor = next(i for start, end, i in headings if start <= marker.start < end)
                if any(cited_result_figures(e) for e in evidence):
                    # the evidence page's list of stale figures links to a claim's number
                    raise ClaimError(f"{where}: a heading cites output or a source, not a figure")
            found.append((marker, Claim(len(found) + 1, sentence.text, evidence, anchor)))
    return found


def render_markers(
    markdown: str, page: str, docs_dir: Path, repo_url: str, matrix_doc: dict | None
) -> str:
    """The page with its markers replaced by links, and the list of its claims below."""
    claims = page_claims(markdown, page, docs_dir, matrix_doc)
    found = sentences(markdown, page)
    _refuse_proof_in_titles(markdown, page, found)
    no_claims = [m for s in found for m in s.markers if m.kind == "no-claim"]
    _check_all_owned(markdown, page, {m.start for s in found for m in s.markers})
    replacements = {
        m.start: (m.end, "" if c.anchor else _superscript(c, page, repo_url)) for m, c in claims
    }
    replacements.update({m.start: (m.end, "") for m in no_claims})
    text = _replace(markdown, replacements)
    if not claims:
        return text
    listing = claims_list([c for _, c in claims], page, repo_url, matrix_doc, docs_dir)
    return f"{text.rstrip()}\n\n{listing}\n"


def _refuse_proof_in_titles(markdown: str, page: str, found: list) -> None:
    """A box's title cannot hold a claim's number (a quoted title would break): such a
    title is set aside with ``[[no-claim: ...]]`` or reworded, and its claim made in the
    text under it. (A heading's proof shows in the list only.)"""
    for sentence in found:
        if sentence.kind != "admonition title":
            continue
        for marker in sentence.markers:
            if marker.kind == "proof":
                line = markdown.count("\n", 0, marker.start) + 1
                raise ClaimError(
                    f"{page}: line {line}: {_article(sentence.kind)} {sentence.kind} cannot "
                    "carry [[proof: ...]]; "
                    "state the claim in the text under it, or set the title aside with "
                    "[[no-claim: KIND]]"
                )


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _check_all_owned(markdown: str, page: str, owned: set[int]) -> None:
    """A marker outside prose (a table, a heading) would reach the reader as text."""
    for marker in find_markers(markdown, page):
        if marker.start not in owned:
            line = markdown.count("\n", 0, marker.start) + 1
            raise ClaimError(
                f"{page}: line {line}: a claim marker must end a sentence (of prose, a "
                "list item, a table cell, a heading or a box's title), not HTML"
            )


def _replace(markdown: str, replacements: dict[int, tuple[int, str]]) -> str:
    pieces, position = [], 0
    for start in sorted(replacements):
        end, new = replacements[start]
        pieces.append(markdown[position:start])
        pieces.append(new)
        position = end
    pieces.append(markdown[position:])
    return "".join(pieces)


def _superscript(claim: Claim, page: str, repo_url: str) -> str:
    labels = (
        [str(claim.number)]
        if len(claim.evidence) == 1
        else [f"{claim.number}{chr(ord('a') + i)}" for i in range(len(claim.evidence))]
    )
    # Markdown links, not HTML ones: MkDocs turns a page's .md path into its address.
    links = ",".join(
        f'[{label}]({_href(e, page, repo_url)} "{link_title(_title(e))}")'
        for label, e in zip(labels, claim.evidence, strict=True)
    )
    sup = f'<sup class="claim-ref" id="claim-{claim.number}">{links}</sup>'
    stale = [f for e in claim.evidence for f in cited_result_figures(e) if f.stale]
    if stale:  # said beside the claim, not only in the list under the page
        words = STALE_WORDS if any(e.state != NO_HASH for e in stale) else NO_HASH_WORDS
        sup += f' <span class="claim-stale">({words})</span>'
    return sup


STALE_WORDS = "figure older than its code"
NO_HASH_WORDS = "figure from a run with no code hash"


def link_title(text: str) -> str:
    """``text`` as the title of a Markdown link, shown by the browser as written.

    Markdown would read quotes, brackets, backticks and parentheses in a title as the end
    of the link or as a code span, so every sign that is not a letter, digit or space is
    written as a numeric character reference, which Markdown leaves alone and the browser
    reads back once. (Escaping it as HTML first and then again for Markdown showed
    references such as ``&#x27;`` in the tooltip.)"""
    return "".join(
        char if char.isalnum() or char == " " else f"&#{ord(char)};"
        for char in " ".join(text.split())
    )


def _href(evidence: Evidence, page: str, repo_url: str) -> str:
    if isinstance(evidence, OutputLine):
        if evidence.page == page:
            return f"#{evidence.anchor}"
        return f"{_page_url(evidence.page, page)}#{evidence.anchor}"
    if isinstance(evidence, MatrixLine):
        section = matrix.anchor("entry", evidence.entry, f"docs/{evidence.page}")
        return f"{_page_url(f'versions/{evidence.entry}.md', page)}#{section}"
    if isinstance(evidence, Condition):  # its first figure, on the results page
        return _href(evidence.figures[0], page, repo_url)
    if isinstance(evidence, ResultFigure):
        if not is_results_file(evidence.file):
            return f"{repo_url.rstrip('/')}/blob/main/{evidence.file}"
        scenario, inner = locate(evidence.key)
        target = page_of(evidence.file, scenario)
        return f"{_page_url(target, page)}#{figure_anchor(inner)}"
    return evidence.address


def _page_url(target: str, page: str) -> str:
    """The link from ``page`` to ``target`` (both paths from docs/), as a Markdown source
    path: MkDocs turns it into the page's address and checks the anchor."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def _title(evidence: Evidence) -> str:
    if isinstance(evidence, OutputLine):
        return f"Output of block {evidence.block}, line {evidence.line}: {evidence.text.strip()}"
    if isinstance(evidence, MatrixLine):
        return f"On {matrix.label(evidence.entry)}, block {evidence.block}: {evidence.text.strip()}"
    if isinstance(evidence, ResultFigure):
        stale = "" if not evidence.stale else " (older than its code, or no code hash)"
        return f"{evidence.file}: {evidence.key} = {evidence.value}{stale}"
    if isinstance(evidence, Condition):
        stale = "" if not evidence.stale else " (a figure older than its code, or no code hash)"
        return f"Holds in {_where(evidence)}: {_filled(evidence)}{stale}"
    return f"Source: {evidence.address}"


def _where(condition: Condition) -> str:
    return condition.file + (f", under {condition.prefix}" if condition.prefix else "")


def _filled(condition: Condition) -> str:
    """The condition with each figure's value after its key: ``{a/p50} (0.17) < ...``; one
    with ``*`` is shown as written, with how many figures it read and their range."""
    values = {figure.key: figure.value for figure in condition.figures}
    if reads_every(condition.condition):
        numbers = [v for v in values.values() if isinstance(v, (int, float))]
        span = f", from {min(numbers)} to {max(numbers)}" if numbers else ""
        return f"{condition.condition} ({len(values)} figures{span})"

    def filled(match) -> str:
        return f"{match['key'].strip()} ({values[full_key(match['key'], condition.prefix)]})"

    return FIGURE.sub(filled, condition.condition)


def claims_list(
    claims: list[Claim], page: str, repo_url: str, matrix_doc: dict | None, docs_dir: Path
) -> str:
    """A folded box listing each claim, its evidence and, for output, the other releases."""
    lines = [f'??? abstract "{LIST_TITLE} ({len(claims)})"', ""]
    lines.append(
        "    Each claim's number leads to its evidence; the output lines are the ones the "
        "block printed when the test suite ran it."
    )
    lines.append("")
    for claim in claims:
        # The sentence as the page writes it (a link around it would break on its own
        # brackets), then a link back to it.
        lines.append(f'    {claim.number}. {claim.sentence} [↩](#{claim.back} "Back to the text")')
        for evidence in claim.evidence:
            lines.append(f"        - {_describe(evidence, page, repo_url, matrix_doc, docs_dir)}")
    return "\n".join(lines)


def _describe(
    evidence: Evidence, page: str, repo_url: str, matrix_doc: dict | None, docs_dir: Path
) -> str:
    href = _href(evidence, page, repo_url)
    if isinstance(evidence, OutputLine):
        where = "" if evidence.page == page else f" of {evidence.page}"
        versions = _matrix_note(evidence, matrix_doc, docs_dir)
        return (
            f"[output of block {evidence.block}{where}, line {evidence.line}]({href}): "
            f"{matrix.code(evidence.text.strip())}{versions}"
        )
    if isinstance(evidence, MatrixLine):
        return (
            f"[what block {evidence.block} printed on {matrix.label(evidence.entry)}]({href}) "
            f"in the version matrix: {matrix.code(evidence.text.strip())}"
        )
    if isinstance(evidence, ResultFigure):
        described = (
            f"[{evidence.file}]({href}), {matrix.code(evidence.key)} = "
            f"{matrix.code(str(evidence.value))}"
        )
        return described + _stale_note(evidence)
    if isinstance(evidence, Condition):
        stale = next((f for f in evidence.figures if f.stale), None)
        return (
            f"[{_where(evidence)}]({href}): {matrix.code(_filled(evidence))} holds "
            f"(each figure's value in brackets){_stale_note(stale) if stale else ''}"
        )
    return f"source: <{evidence.address}>"


def _stale_note(figure: ResultFigure) -> str:
    if figure.state == NO_HASH:
        return f"; **no code hash**: {figure.state}"
    if figure.stale:
        return f"; **older than its code**: {figure.state}"
    return ""


def _matrix_note(evidence: OutputLine, doc: dict | None, docs_dir: Path) -> str:
    """Where the version matrix printed the same line, and where it did not."""
    page = f"docs/{evidence.page}"
    if doc is None or page not in doc["pages"]:
        return ""
    if not matrix.current(doc, page, all_blocks(docs_dir / evidence.page))[evidence.block - 1]:
        return "; the version matrix has not run this block as it is now"
    same, other = [], []
    for entry_id, outcome in matrix.block_outcomes(doc, page, evidence.block).items():
        if outcome.status == "not-applicable":
            continue
        printed = outcome.status == "passed" or (
            outcome.status == "differs" and evidence.text.strip() in outcome.output
        )
        (same if printed else other).append(entry_id)
    note = f"; printed on {matrix.span(same)}" if same else ""
    if other:
        note += f"; not printed on {matrix.span(other)} (the Versions page shows what was)"
    return note


def _excerpt(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- the output lines' ids, added to the rendered page --------------------------------

_CODE = re.compile(r"<code>(?P<body>.*?)</code>", re.DOTALL)
_LINE_SPAN = re.compile(r'(<span id="__span-\d+-(?P<line>\d+)">)')


def anchor_output_lines(content: str, page_path: Path, page: str) -> tuple[str, set[str]]:
    """Give every line of every shown output an id (``output-<block>-<line>``); the page
    and the ids given."""
    blocks = [b.index for b in executed_blocks(page_path) if b.expected_output]
    pieces = content.split(EXPECTED_OUTPUT)
    if len(pieces) - 1 != len(blocks):
        raise ClaimError(
            f"{page}: {len(blocks)} executed blocks show an output but the rendered page "
            f"has {len(pieces) - 1}; the output lines cannot be given their ids"
        )
    ids: set[str] = set()
    anchored = [
        _anchor_first_code(piece, block, ids)
        for piece, block in zip(pieces[1:], blocks, strict=True)
    ]
    return pieces[0] + "".join(EXPECTED_OUTPUT + piece for piece in anchored), ids


def _anchor_first_code(piece: str, block: int, ids: set[str]) -> str:
    match = _CODE.search(piece)
    if match is None:
        return piece

    def anchored(line: re.Match) -> str:
        ident = output_anchor(block, int(line["line"]))
        ids.add(ident)
        return f'{line.group(1)}<a class="output-line" id="{ident}"></a>'

    body = _LINE_SPAN.sub(anchored, match["body"])
    return f"{piece[: match.start('body')]}{body}{piece[match.end('body') :]}"
