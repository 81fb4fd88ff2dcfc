"""Which sentences of a page must carry evidence, and which do.

A sentence must, when it has a universal word (never, always, only, every, cannot, any,
no), a quantity written in words (once, twice, each, all, whenever, none, one, ten,
thousand...), a number or a version outside inline code: the kinds of statement most
often found wrong. Every kind of text a reader reads as a statement is counted, each
sentence with its kind (``KINDS``): paragraphs and admonition text ("prose"), list items,
headings, table cells and admonition titles; HTML and code are not. A row of a table of
checked statements (its first cell an identifier or a number, ``F8`` or ``32``: the pages
that check another text statement by statement) is one statement, whole: the statement
and its verdict, which the page's blocks print a line for. A sentence carries
evidence when it ends with a ``[[proof: ...]]`` marker, and is set aside when it ends with
``[[no-claim: ...]]``.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass

from markdown.extensions.toc import slugify, unique

from verification.claims.markers import (
    INLINE_CODE,
    Marker,
    find_markers,
    prose_ranges,
    strip_markers,
)

UNIVERSAL = re.compile(r"\b(never|always|only|every|cannot|any|no)\b", re.IGNORECASE)
# Quantities in words: how often, how many, for which ones (the words a count in digits
# would not catch; "once" and "each" were where unmarked false statements were found).
QUANTITY = re.compile(
    r"\b(once|twice|thrice|each|every|all|whenever|none|never|zero|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?|"
    r"thousands?|millions?|dozens?|half|double)\b",
    re.IGNORECASE,
)
NUMBER = re.compile(r"\d")
KINDS = ("prose", "list item", "heading", "table", "admonition title")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REFERENCE_LINK = re.compile(r"\[([^\]]*)\]\[[^\]]*\]")
_HTML = re.compile(r"<[^>]+>")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
# A sentence ends at . ! or ? (and any marker right after it) followed by white space.
_SENTENCE_END = re.compile(r"(?<=[.!?])((?:\x00\d+\x00)*)\s+")
# Lines that are not prose: headings, tables, HTML, footnote and abbreviation definitions,
# rules, includes, admonition and tab titles.
_NOT_PROSE = re.compile(r"^\s*(#|\||<|\[\^|\*\[|-{3,}\s*$|={3,}|--8<--|!!!|\?\?\?|===|\S+:\s*$)")
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<text>.*?)\s*(\{[^}]*\})?\s*#*\s*$")
_TABLE_ROW = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")
_ADMONITION = re.compile(r'^\s*(?:!!!|\?\?\?\+?)\s*[\w-]+(?:\s+[\w-]+)*\s+"(?P<title>.*)"\s*$')
_BLOCK_START = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
# The first cell of a row of checked statements: F8, D23, G15, F8a, 32.
_STATEMENT_ID = re.compile(r"(?:[A-Z]{1,3})?\d{1,3}[a-z]?")
_WHOLE = "table row"  # a kind _paragraphs gives a row counted as one statement


@dataclass(frozen=True)
class Sentence:
    text: str  # as a reader reads it: no markers or emphasis, link texts only
    markers: tuple[Marker, ...]
    kind: str = "prose"  # one of KINDS

    @property
    def must_have_evidence(self) -> bool:
        """A universal word, a quantity in words, a number or a version outside inline
        code."""
        words = INLINE_CODE.sub("", self.text)
        return bool(UNIVERSAL.search(words) or QUANTITY.search(words) or NUMBER.search(words))

    @property
    def status(self) -> str:
        """proof, no-claim, missing, or free (a sentence the count does not flag)."""
        kinds = {m.kind for m in self.markers}
        if "proof" in kinds:
            return "proof"
        if "no-claim" in kinds:
            return "no-claim"
        return "missing" if self.must_have_evidence else "free"


def sentences(markdown: str, page: str) -> list[Sentence]:
    """The sentences of a page a reader reads, each with its kind and the markers that
    end it."""
    markers = find_markers(markdown, page)
    found = []
    for paragraph, owned, kind in _paragraphs(markdown, markers):
        if kind == _WHOLE:
            found.extend(_split(paragraph, owned, "table", whole=True))
        else:
            found.extend(_split(paragraph, owned, kind))
    return found


def heading_ids(markdown: str) -> list[tuple[int, int, str]]:
    """(start, end, id) of each heading line of the page: the id Python-Markdown's toc
    extension gives it (the one written in ``{ #id }``, else the slug of the heading's
    text, made unique with _1, _2 ...). The site's link check fails the build if one is
    wrong."""
    # blanked, not removed: the offsets are the markdown's own
    text = _FRONT_MATTER.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), markdown)
    used: set[str] = set()
    found = []
    for start, end in prose_ranges(text):
        offset = start
        for line in text[start:end].splitlines(keepends=True):
            heading = _HEADING.match(line)
            if heading:
                explicit = re.search(r"#([\w-]+)", heading.group(2) or "")
                words = _readable(strip_markers(heading["text"], "")).replace("`", "")
                slug = slugify(html.unescape(words), "-")
                ident = explicit[1] if explicit else unique(slug, used)
                used.add(ident)
                found.append((offset, offset + len(line), ident))
            offset += len(line)
    return found


def counts(found: list[Sentence]) -> Counter:
    return Counter(s.status for s in found)


def _paragraphs(markdown: str, markers: list[Marker]):
    """(text, markers, kind) of each paragraph, list item, heading, table cell and
    admonition title, with each marker replaced by a placeholder holding its position."""
    text = _with_placeholders(markdown, markers)
    text = _FRONT_MATTER.sub(lambda m: "\n" * m.group().count("\n"), text)
    for start, end in prose_ranges(text):
        block: list[str] = []
        kind = "prose"
        for line in text[start:end].splitlines():
            if _ends_paragraph(line):
                yield from _flush(block, markers, kind)
                block, kind = [], "prose"
                yield from _not_prose(line, markers)
                if _NOT_PROSE.match(line) or not line.strip():
                    continue
            if _BLOCK_START.match(line):
                yield from _flush(block, markers, kind)
                block, kind = [_BLOCK_START.sub("", line, count=1)], "list item"
                continue
            block.append(line.strip())
        yield from _flush(block, markers, kind)


def _not_prose(line: str, markers: list[Marker]):
    """A heading's text, a table row's cells or an admonition's title, with its kind."""
    if heading := _HEADING.match(line):
        yield heading["text"], markers, "heading"
    elif _TABLE_ROW.match(line) and not _TABLE_RULE.match(line):
        cells = _cells(line)
        if cells and _STATEMENT_ID.fullmatch(cells[0]):
            yield " | ".join(cells), markers, _WHOLE
            return
        for cell in cells:
            yield cell, markers, "table"
    elif title := _ADMONITION.match(line):
        yield title["title"], markers, "admonition title"


def _cells(row: str) -> list[str]:
    """The cells of a table row, split on ``|`` outside inline code."""
    # Inline code is kept whole: a | inside it separates nothing.
    masked = INLINE_CODE.sub(lambda m: m.group().replace("|", "\x01"), row.strip())
    cells = _CELL_SEPARATOR.split(masked.strip().strip("|"))
    return [cell.replace("\x01", "|").strip() for cell in cells if cell.strip()]


def _ends_paragraph(line: str) -> bool:
    return not line.strip() or bool(_NOT_PROSE.match(line))


def _flush(block: list[str], markers: list[Marker], kind: str):
    if block:
        yield " ".join(block), markers, kind


def _with_placeholders(markdown: str, markers: list[Marker]) -> str:
    pieces, position = [], 0
    for number, marker in enumerate(markers):
        pieces.append(markdown[position : marker.start])
        pieces.append(f"\x00{number}\x00")
        position = marker.end
    pieces.append(markdown[position:])
    return "".join(pieces)


def _split(paragraph: str, markers: list[Marker], kind: str, whole=False) -> list[Sentence]:
    """The paragraph's sentences, or the paragraph as one when ``whole``."""
    if whole:
        pieces = [paragraph]
    else:
        pieces = _SENTENCE_END.sub(lambda m: m.group(1) + "\n", paragraph).split("\n")
    found = []
    for piece in pieces:
        owned = tuple(markers[int(n)] for n in _PLACEHOLDER.findall(piece))
        text = _readable(_PLACEHOLDER.sub("", piece))
        if text:
            found.append(Sentence(text, owned, kind))
    return found


def _readable(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _REFERENCE_LINK.sub(r"\1", text)
    text = _HTML.sub("", text)
    return " ".join(text.replace("**", "").split())
