"""Claim markers in a page's Markdown, parsed.

A sentence that states how TensorFlow, Keras or the project's tools behave ends with a
marker naming its evidence, written right after the sentence's last character:

- ``[[proof: "after a new dtype: 3"]]``: the output line of an executed block on this page
  that contains the quoted text (exactly one line of the page's shown output must, or
  exactly one must be that text);
- ``[[proof: ../causes.md "no hint: 5"]]``: the same, on another page (a path relative to
  this one);
- ``[[proof: results benchmarks/results/cpu.json scenarios.x.ratio]]``: a figure of a
  results file the project's scripts wrote (a dotted path of keys and list positions);
- ``[[proof: on tf2.13 "printed on 2.13"]]``: a line that a block of this page printed
  (or raised) on another setup of the version matrix (an entry id of
  ``verification/matrix/entries.py``), for what holds on which release;
  ``[[proof: ../dynamic-shapes.md on tf2.20 "..."]]`` reads another page's blocks there;
- ``[[proof: holds benchmarks/results/cpu.json scenarios/x "{a/p50} < {b/p50}"]]``: a
  condition on figures of a results file (``verification.claims.conditions``), for a
  sentence that compares them: the build fails when a new run no longer bears it out;
- ``[[proof: source https://github.com/...]]``: for history and attribution, a cited
  source (a commit or an address).

Several pieces of evidence are separated by ``;``. A sentence that the coverage count
flags but that states no behaviour says so with ``[[no-claim: <kind>]]``, one of
``NO_CLAIM_KINDS``; the index page lists every such sentence for review.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

# Sentences the coverage count flags that are not statements about behaviour: an
# instruction to the reader, a pointer to another page, or a statement about this site.
NO_CLAIM_KINDS = ("instruction", "navigation", "site")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_OPENING = re.compile(r"\[\[(?P<kind>proof|no-claim):")
# What a marker of another kind or a misspelt one looks like (``[[source URL]]``,
# ``[[proof URL]]``, ``[[ proof: ...]]``, ``[[Proof: ...]]``, ``[[proof; ...]]``, a single
# bracket ``[proof: ...]``): the build would leave it on the page as text and the page
# would lose the claim without a word, so it is refused instead.
_LOOKALIKE = re.compile(
    r"\[\[\s*(?P<word>[A-Za-z][A-Za-z_-]*)"
    r"|\[\s*\[?\s*(?P<near>(?i:proof|no[-_ ]?claim))\s*[:;]"
)


class ClaimError(ValueError):
    """A marker that cannot be read or resolved; the message names the page and marker."""


@dataclass(frozen=True)
class EvidenceRef:
    """One piece of evidence as written: ``kind`` is output, results or source."""

    kind: str  # output, matrix, results, holds or source
    page: str = ""  # output: the page that shows the line ("" = this page)
    # output, matrix: text of the line; results: key path; holds: the condition;
    # source: address
    text: str = ""
    file: str = ""  # results, holds: the results file, from the repository root
    entry: str = ""  # matrix: the version matrix entry
    prefix: str = ""  # holds: the key path its figures' keys continue


@dataclass(frozen=True)
class Marker:
    start: int
    end: int
    kind: str  # "proof" or "no-claim"
    refs: tuple[EvidenceRef, ...] = ()
    no_claim_kind: str = ""


def find_markers(markdown: str, page: str) -> list[Marker]:
    """Every marker of ``markdown`` outside fenced code, in page order."""
    markers = []
    for start, end in prose_ranges(markdown):
        # Inline code (a marker shown as an example) is blanked out, keeping every offset.
        prose = INLINE_CODE.sub(lambda m: " " * len(m.group()), markdown[start:end])
        markdown = markdown[:start] + prose + markdown[end:]
        position = start
        while (match := _OPENING.search(markdown, position, end)) is not None:
            close = _closing(markdown, match.end(), end, page)
            body = markdown[match.end() : close]
            where = f"{page}: line {markdown.count(chr(10), 0, match.start()) + 1}"
            markers.append(_marker(match.start(), close + 2, match["kind"], body, where))
            position = close + 2
        _refuse_lookalikes(markdown, start, end, markers, page)
    return markers


def _refuse_lookalikes(markdown: str, start: int, end: int, markers: list, page: str) -> None:
    spans = [(marker.start, marker.end) for marker in markers]
    for match in _LOOKALIKE.finditer(markdown, start, end):
        if any(low <= match.start() < high for low, high in spans):
            continue
        line = markdown.count("\n", 0, match.start()) + 1
        written = " ".join(markdown[match.start() : match.end() + 1].split())
        raise ClaimError(
            f"{page}: line {line}: {written} ... is not a claim marker; write "
            '[[proof: ...]] (evidence: "output", results FILE PATH, holds FILE "CONDITION", '
            "source URL) or "
            "[[no-claim: KIND]], lower case, with no space after [[ and a colon"
        )


def _closing(markdown: str, start: int, end: int, page: str) -> int:
    """Position of the ``]]`` that closes a marker, skipping quoted text."""
    quoted = False
    index = start
    while index < end:
        char = markdown[index]
        if char == "\\" and quoted:
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        elif not quoted and markdown.startswith("]]", index):
            return index
        index += 1
    line = markdown.count("\n", 0, start) + 1
    raise ClaimError(f"{page}: line {line}: a claim marker is not closed with ]]")


def _marker(start: int, end: int, kind: str, body: str, line: str) -> Marker:
    if kind == "no-claim":
        reason = body.strip()
        if reason not in NO_CLAIM_KINDS:
            raise ClaimError(
                f"{line}: [[no-claim: {reason}]]: the kind must be one of {NO_CLAIM_KINDS}"
            )
        return Marker(start, end, kind, no_claim_kind=reason)
    parts = [part.strip() for part in _split_outside_quotes(body, ";")]
    if not all(parts):
        raise ClaimError(f"{line}: [[proof: {body.strip()}]] has an empty piece of evidence")
    return Marker(start, end, kind, refs=tuple(_reference(part, line) for part in parts))


def _split_outside_quotes(text: str, separator: str) -> list[str]:
    pieces, current, quoted = [], [], False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char == separator and not quoted:
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    pieces.append("".join(current))
    return pieces


def _reference(text: str, where: str) -> EvidenceRef:
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ClaimError(f"{where}: [[proof: {text}]]: {error}") from error
    if len(words) == 3 and words[0] == "results":
        return EvidenceRef("results", file=words[1], text=words[2])
    if len(words) in (3, 4) and words[0] == "holds" and text.rstrip().endswith('"'):
        prefix = words[2] if len(words) == 4 else ""
        return EvidenceRef("holds", file=words[1], text=words[-1], prefix=prefix)
    if len(words) == 3 and words[0] == "on" and text.rstrip().endswith('"'):
        return EvidenceRef("matrix", entry=words[1], text=words[2])
    if len(words) == 4 and words[0].endswith(".md") and words[1] == "on":
        return EvidenceRef("matrix", page=words[0], entry=words[2], text=words[3])
    if len(words) == 2 and words[0] == "source":
        if not words[1].startswith(("https://", "http://")):
            raise ClaimError(f"{where}: [[proof: {text}]]: a source is an http(s) address")
        return EvidenceRef("source", text=words[1])
    if len(words) == 1 and text.startswith('"'):
        return EvidenceRef("output", text=words[0])
    if len(words) == 2 and words[0].endswith(".md") and text.rstrip().endswith('"'):
        return EvidenceRef("output", page=words[0], text=words[1])
    raise ClaimError(
        f'{where}: [[proof: {text}]] is not "output text", page.md "output text", '
        'on <matrix entry> "output text", results <file> <key path>, '
        'holds <file> [<key path>] "<condition>", or source <address>'
    )


_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def prose_ranges(markdown: str) -> list[tuple[int, int]]:
    """Character ranges of ``markdown`` outside fenced code blocks."""
    ranges: list[tuple[int, int]] = []
    start, offset, fence = 0, 0, None
    for line in markdown.splitlines(keepends=True):
        match = _FENCE.match(line.rstrip("\n"))
        if match and fence is None:
            ranges.append((start, offset))
            fence = match["fence"]
        elif match and fence is not None and _closes(match, fence):
            fence = None
            start = offset + len(line)
        offset += len(line)
    if fence is None:
        ranges.append((start, len(markdown)))
    return ranges


def _closes(match: re.Match, fence: str) -> bool:
    closing = match["fence"]
    return closing[0] == fence[0] and len(closing) >= len(fence) and not match["info"].strip()


def strip_markers(markdown: str, page: str) -> str:
    """``markdown`` without its markers (for copies of a page made outside the build)."""
    for marker in reversed(find_markers(markdown, page)):
        markdown = markdown[: marker.start] + markdown[marker.end :]
    return markdown
