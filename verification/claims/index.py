"""The claims index: per guide page, the sentences that must carry evidence, how many do,
the claims and their evidence, and the count before markers existed (``baseline.json``).

``python -m verification.claims report`` prints the same counts and the sentences still
without evidence; ``python -m verification.claims baseline`` records the counts of the
pages as they are (run once, before markers were added; kept for the comparison).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmarks.code_hash import NO_HASH
from benchmarks.results_pages import FRESH
from verification.claims import reviews
from verification.claims.conditions import ConditionError
from verification.claims.coverage import KINDS, Sentence, sentences
from verification.claims.evidence import condition_keys, figure_state
from verification.claims.markers import ClaimError, find_markers
from verification.search_index import out_of_search

MARKER = "<!-- claims:coverage -->"
NO_CLAIMS_MARKER = "<!-- claims:set-aside -->"
GUIDE = "guide"
BASELINE = Path(__file__).with_name("baseline.json")


# Pages outside the guide whose sentences are counted too: what a reader meets first (the
# home page, the install page, the README on GitHub), the Versions page and the Benchmarks
# pages. The README is read from the repository's root ("../README.md" from docs/).
COUNTED_OUTSIDE_GUIDE = ("index.md", "install.md", "versions.md")
BENCHMARKS = "benchmarks"
README = "../README.md"


def guide_pages(docs_dir: Path) -> list[str]:
    return sorted(p.relative_to(docs_dir).as_posix() for p in (docs_dir / GUIDE).rglob("*.md"))


def counted_pages(docs_dir: Path) -> list[str]:
    """Every page whose flagged sentences must carry a marker or be recorded as without
    one: the guide, the pages above, the Benchmarks pages and the README."""
    pages = guide_pages(docs_dir)
    pages += [page for page in COUNTED_OUTSIDE_GUIDE if (docs_dir / page).is_file()]
    pages += sorted(
        p.relative_to(docs_dir).as_posix() for p in (docs_dir / BENCHMARKS).rglob("*.md")
    )
    if (docs_dir / README).is_file():
        pages.append(README)
    return pages


# The README is read on GitHub, where a marker would show as text: there a marker is
# written inside an HTML comment right after its sentence ("... once. <!-- [[proof: ...]]
# -->"), which GitHub does not show; the count reads it as if the comment were not there.
_HIDDEN_MARKER = re.compile(
    r"[ \t]*\n?[ \t]*<!--[ \t]*(\[\[(?:proof|no-claim):.*?\]\])[ \t]*-->", re.DOTALL
)


def page_markdown(docs_dir: Path, page: str) -> str:
    """The page's Markdown as the count reads it (the README's hidden markers unwrapped)."""
    text = (docs_dir / page).read_text(encoding="utf-8")
    return _HIDDEN_MARKER.sub(r"\1", text) if page == README else text


def visible_markers(docs_dir: Path, page: str) -> list[int]:
    """The lines of the README's markers that are not inside an HTML comment: GitHub would
    show them as text."""
    text = (docs_dir / page).read_text(encoding="utf-8")
    blanked = _HIDDEN_MARKER.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    return [text.count("\n", 0, m.start) + 1 for m in find_markers(blanked, page)]


def page_sentences(docs_dir: Path, page: str) -> list[Sentence]:
    return sentences(page_markdown(docs_dir, page), page)


def kind_counts(docs_dir: Path, pages: list[str]) -> dict[str, Counter]:
    """Per kind of text (``KINDS``): flagged sentences by status, over ``pages``."""
    found: dict[str, Counter] = {kind: Counter() for kind in KINDS}
    for page in pages:
        for sentence in page_sentences(docs_dir, page):
            if sentence.must_have_evidence:
                found[sentence.kind][sentence.status] += 1
    return found


def page_counts(docs_dir: Path, page: str) -> dict[str, int]:
    """Sentences, flagged ones by status, claims and pieces of evidence by kind."""
    found = page_sentences(docs_dir, page)
    status = Counter(s.status for s in found if s.must_have_evidence)
    markers = find_markers(page_markdown(docs_dir, page), page)
    kinds = Counter(ref.kind for m in markers for ref in m.refs)
    return {
        "sentences": len(found),
        "flagged": sum(status.values()),
        "flagged_proof": status["proof"],
        "flagged_no_claim": status["no-claim"],
        "flagged_missing": status["missing"],
        "claims": sum(1 for m in markers if m.kind == "proof"),
        "output": kinds["output"],
        "matrix": kinds["matrix"],
        "results": kinds["results"],
        "source": kinds["source"],
    }


def read_baseline(path: Path = BASELINE) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ClaimError(f"{path}: the coverage baseline cannot be read: {error}") from error


def coverage_table(docs_dir: Path, baseline: dict) -> str:
    before = baseline["pages"]
    header = (
        "| Page | Flagged before | Flagged now | With evidence | Set aside | Without | "
        "Claims | Output lines | Other releases | Results | Sources |"
    )
    rows = [header, "|---|" + "---:|" * 10]
    total: Counter = Counter()
    for page in counted_pages(docs_dir):
        counts = page_counts(docs_dir, page)
        old = before.get(page, {}).get("flagged", "new")
        total.update(counts)
        total["before"] += old if isinstance(old, int) else 0
        rows.append(_row(_link(page), old, counts))
    rows.append(_row("**All counted pages**", total["before"], total))
    return "\n".join(rows) + "\n\n" + kinds_table(docs_dir)


def kinds_table(docs_dir: Path) -> str:
    """The same counts by kind of text, over every counted page."""
    rows = [
        "| Kind of text | Flagged | With evidence | Set aside | Without |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind, status in kind_counts(docs_dir, counted_pages(docs_dir)).items():
        cells = [sum(status.values()), status["proof"], status["no-claim"], status["missing"]]
        rows.append(f"| {kind} | " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(rows)


def _row(name: str, before: object, c: dict) -> str:
    cells = [before, c["flagged"], c["flagged_proof"], c["flagged_no_claim"], c["flagged_missing"]]
    cells += [c["claims"], c["output"], c["matrix"], c["results"], c["source"]]
    return f"| {name} | " + " | ".join(str(x) for x in cells) + " |"


def _link(page: str, here: str = f"{GUIDE}/evidence.md") -> str:
    """A link from the page ``here`` (the evidence page, or its reviews page) to ``page``."""
    if page == README:
        return "README.md (the repository's)"
    return f"[{page.removeprefix(GUIDE + '/')}]({posixpath.relpath(page, posixpath.dirname(here))})"


def set_aside_list(docs_dir: Path) -> str:
    """Every flagged sentence set aside as no claim, for a reviewer to disagree with."""
    lines = []
    for page in counted_pages(docs_dir):
        for sentence in page_sentences(docs_dir, page):
            if sentence.status == "no-claim" and sentence.must_have_evidence:
                kind = next(m.no_claim_kind for m in sentence.markers if m.kind == "no-claim")
                lines.append(f"    - {_link(page)} ({kind}): {sentence.text}")
    if not lines:
        return "None."
    # Folded: a list that grows with the guide, kept one click away.
    title = f'??? note "{len(lines)} sentences set aside, page by page"'
    return title + "\n\n" + "\n".join(lines)


def replace_index_marker(markdown: str, docs_dir: Path, page: str = "guide/evidence.md") -> str:
    if STALE_MARKER in markdown:
        markdown = markdown.replace(STALE_MARKER, stale_list(docs_dir, page))
    if MARKER in markdown:
        baseline = read_baseline()
        provenance = (
            f"Flagged before: counted at commit `{baseline['commit']}` on {baseline['date']} "
            f"(`{baseline['command']}`).\n\n"
        )
        markdown = markdown.replace(MARKER, provenance + coverage_table(docs_dir, baseline))
    # Lists of other pages' sentences and reviewers' notes: data, kept out of search.
    if NO_CLAIMS_MARKER in markdown:
        listing = out_of_search(set_aside_list(docs_dir))
        markdown = markdown.replace(NO_CLAIMS_MARKER, listing)
    if reviews.MARKER in markdown:
        records = reviews.read_reviews(docs_dir)
        listing = out_of_search(reviews.render(records, lambda target: _link(target, page)))
        markdown = markdown.replace(reviews.MARKER, listing)
    return markdown


# --- cited results figures whose run is older than its code ---------------------------

STALE_MARKER = "<!-- claims:stale -->"


@dataclass(frozen=True)
class CitedFigure:
    page: str  # from docs/
    claim: int  # the claim's number on its page
    file: str
    key: str
    state: str  # FRESH, or why the run may be older than its code

    @property
    def stale(self) -> bool:
        return self.state != FRESH

    @property
    def label(self) -> str:
        """How the record names it: page, file and key (the claim's number moves)."""
        return f"{self.page}: {self.file} {self.key}"


def cited_figures(docs_dir: Path, pages: list[str] | None = None) -> list[CitedFigure]:
    """Every results figure a claim cites, on every page (or on ``pages``), with whether
    the run that wrote it measured the code as it is now. Only markers are read, not the
    rest of the evidence: a marker that cannot be read is the coverage check's to report."""
    found = []
    for page in pages if pages is not None else all_pages(docs_dir):
        number = 0
        for sentence in page_sentences(docs_dir, page):
            for marker in sentence.markers:
                if marker.kind != "proof":
                    continue
                number += 1
                found.extend(
                    CitedFigure(page, number, ref.file, key, figure_state(ref.file, key))
                    for ref in marker.refs
                    for key in _figure_keys(ref)
                )
    return found


def _figure_keys(ref) -> list[str]:
    """The results figures a piece of evidence reads: one, those of a condition, or none."""
    if ref.kind == "results":
        return [ref.text]
    if ref.kind == "holds":
        try:
            return condition_keys(ref, f"holds {ref.file}")[1]
        except (ConditionError, ClaimError):  # the coverage check reports the marker
            return []
    return []


def all_pages(docs_dir: Path) -> list[str]:
    return sorted(p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*.md"))


def stale_summary(figures: list[CitedFigure]) -> str:
    """One sentence: how many cited figures there are and how many are stale."""
    stale = [f for f in figures if f.stale]
    no_hash = sum(1 for f in stale if f.state == NO_HASH)
    return (
        f"{len(stale)} of {len(figures)} cited results figures are stale: "
        f"{len(stale) - no_hash} from a run older than its code, {no_hash} from a run that "
        "recorded no code hash."
    )


def stale_list(docs_dir: Path, here: str) -> str:
    """The evidence page's count of stale cited figures, and each one with its claim."""
    figures = cited_figures(docs_dir)
    lines = [stale_summary(figures)]
    stale = [f for f in figures if f.stale]
    if stale:
        lines += ["", f'??? warning "{len(stale)} stale figures, claim by claim"', ""]
        for figure in stale:
            link = posixpath.relpath(figure.page, posixpath.dirname(here) or ".")
            lines.append(
                f"    - [{figure.page}, claim {figure.claim}]({link}#claim-{figure.claim}): "
                f"`{figure.key}` of `{figure.file}`. {figure.state}"
            )
    return "\n".join(lines)
