"""Which sentences of a page must carry evidence, and which do.

A sentence must, when it has a universal word (never, always, only, every, cannot, any,
no), a number or a version outside inline code: the kinds of statement most often found
wrong. Prose only is counted: paragraphs, list items and admonition text; headings,
tables, HTML and code are not. A sentence carries evidence when it ends with a
``[[proof: ...]]`` marker, and is set aside when it ends with ``[[no-claim: ...]]``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from verification.claims.markers import INLINE_CODE, Marker, find_markers, prose_ranges

UNIVERSAL = re.compile(r"\b(never|always|only|every|cannot|any|no)\b", re.IGNORECASE)
NUMBER = re.compile(r"\d")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REFERENCE_LINK = re.compile(r"\[([^\]]*)\]\[[^\]]*\]")
_HTML = re.compile(r"<[^>]+>")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
# A sentence ends at . ! or ? (and any marker right after it) followed by white space.
_SENTENCE_END = re.compile(r"(?<=[.!?])((?:\x00\d+\x00)*)\s+")
# Lines that are not prose: headings, tables, HTML, footnote and abbreviation definitions,
# rules, includes, admonition and tab titles.
_NOT_PROSE = re.compile(r"^\s*(#|\||<|\[\^|\*\[|-{3,}\s*$|={3,}|--8<--|!!!|\?\?\?|===|\S+:\s*$)")
_BLOCK_START = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


@dataclass(frozen=True)
class Sentence:
    text: str  # as a reader reads it: no markers or emphasis, link texts only
    markers: tuple[Marker, ...]

    @property
    def must_have_evidence(self) -> bool:
        """A universal word, a number or a version outside inline code."""
        words = INLINE_CODE.sub("", self.text)
        return bool(UNIVERSAL.search(words) or NUMBER.search(words))

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
    """The prose sentences of a page, each with the markers that end it."""
    markers = find_markers(markdown, page)
    found = []
    for paragraph, owned in _paragraphs(markdown, markers):
        found.extend(_split(paragraph, owned))
    return found


def counts(found: list[Sentence]) -> Counter:
    return Counter(s.status for s in found)


def _paragraphs(markdown: str, markers: list[Marker]):
    """Paragraph texts, with each marker replaced by a placeholder holding its position."""
    text = _with_placeholders(markdown, markers)
    text = _FRONT_MATTER.sub(lambda m: "\n" * m.group().count("\n"), text)
    for start, end in prose_ranges(text):
        block: list[str] = []
        for line in text[start:end].splitlines():
            if _ends_paragraph(line):
                yield from _flush(block, markers)
                block = []
                if _NOT_PROSE.match(line) or not line.strip():
                    continue
            if _BLOCK_START.match(line):
                yield from _flush(block, markers)
                block = [_BLOCK_START.sub("", line, count=1)]
                continue
            block.append(line.strip())
        yield from _flush(block, markers)


def _ends_paragraph(line: str) -> bool:
    return not line.strip() or bool(_NOT_PROSE.match(line))


def _flush(block: list[str], markers: list[Marker]):
    if block:
        yield " ".join(block), markers


def _with_placeholders(markdown: str, markers: list[Marker]) -> str:
    pieces, position = [], 0
    for number, marker in enumerate(markers):
        pieces.append(markdown[position : marker.start])
        pieces.append(f"\x00{number}\x00")
        position = marker.end
    pieces.append(markdown[position:])
    return "".join(pieces)


def _split(paragraph: str, markers: list[Marker]) -> list[Sentence]:
    found = []
    for piece in _SENTENCE_END.sub(lambda m: m.group(1) + "\n", paragraph).split("\n"):
        owned = tuple(markers[int(n)] for n in _PLACEHOLDER.findall(piece))
        text = _readable(_PLACEHOLDER.sub("", piece))
        if text:
            found.append(Sentence(text, owned))
    return found


def _readable(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _REFERENCE_LINK.sub(r"\1", text)
    text = _HTML.sub("", text)
    return " ".join(text.replace("**", "").split())
