"""The matrix results as Markdown: the Versions page, the notes under blocks, the range.

Plain functions of a checked results document (``verification.matrix.schema``); the MkDocs hook
``docs/hooks/version_matrix.py`` only calls them. Text from the results file reaches a page
only inside fenced code blocks (with a fence longer than any run of backticks in it) or
escaped; entry names come from ``verification.matrix.entries`` by identifier.
"""

from __future__ import annotations

import html
import io
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from markdown.extensions.toc import slugify
from pytest_codeblocks import extract_from_buffer

from verification.harness.codeblocks import DocBlock, parse_fence
from verification.matrix.entries import ENTRIES
from verification.matrix.schema import STOPPED, block_digest
from verification.search_index import out_of_search

VERSIONS_PAGE = "versions.md"
# Each entry's details fill a page of their own, ``versions/<entry id>.md``, which holds
# only the marker ``<!-- version-matrix:entry <entry id> -->``; the Versions page links to it.
ENTRY_PAGES = "versions/"
MARKER = re.compile(r"<!-- version-matrix:(?P<name>[a-z-]+)(?: (?P<argument>[a-z0-9.-]+))? -->")
EXPECTED_OUTPUT = "<!--pytest-codeblocks:expected-output-->"
# The markers whose tables are data (every release's outputs), not answers to a search.
UNSEARCHED_MARKERS = ("table", "details", "provenance", "entry")
# A block "not-applicable" did not run: an earlier block of its page raised, or its page
# needs what the entry lacks.
STATUS_WORDS = {
    "passed": "pass",
    "differs": "differ",
    "failed": "fail",
    "not-applicable": "not run",
}
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_LABELS = {entry.id: entry.label for entry in ENTRIES}
_ORDER = {entry.id: index for index, entry in enumerate(ENTRIES)}
_EARLY_WARNING = frozenset(entry.id for entry in ENTRIES if entry.early_warning)


class MarkerError(Exception):
    """A page asks for something the results cannot give; the message names the page."""


def label(entry_id: str) -> str:
    return _LABELS.get(entry_id, entry_id)


def plain(text: str) -> str:
    """Text from a results file, safe in Markdown: no markup survives."""
    escaped = html.escape(text, quote=True)
    return re.sub(r"[\\`*_{}\[\]()#+!|~<>]", lambda m: f"&#{ord(m.group())};", escaped)


def code(text: str) -> str:
    """An inline code span holding ``text`` verbatim (Markdown escapes it for HTML)."""
    text = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(text: str, indent: str = "", lang: str = "text") -> str:
    """A fenced code block holding ``text`` verbatim, whatever backticks it contains."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text.rstrip("\n").split("\n") if text.strip() else ["(nothing printed)"]
    lines = [f"{fence}{lang}", *body, fence]
    return "\n".join(f"{indent}{line}" if line else "" for line in lines) + "\n"


def entry_page(entry_id: str) -> str:
    """The page of an entry's details, as a page name (``docs/versions/tf2.13.md``)."""
    return f"docs/{ENTRY_PAGES}{entry_id}.md"


def anchor(*parts: str) -> str:
    return "-".join(re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts)


def span(entry_ids: Sequence[str]) -> str:
    """``TF 2.13–2.15, TF 2.21 + tf-keras``: consecutive plain entries joined as a range."""
    ordered = sorted(entry_ids, key=lambda i: _ORDER.get(i, len(_ORDER)))
    runs: list[list[str]] = []
    for entry_id in ordered:
        simple = re.fullmatch(r"TF \d+\.\d+", label(entry_id)) is not None
        last = runs[-1] if runs else None
        if (
            simple
            and last
            and re.fullmatch(r"TF \d+\.\d+", label(last[-1]))
            and _ORDER.get(entry_id, -9) == _ORDER.get(last[-1], -9) + 1
        ):
            last.append(entry_id)
        else:
            runs.append([entry_id])
    parts = []
    for run in runs:
        if len(run) == 1:
            parts.append(label(run[0]))
        else:
            parts.append(f"{label(run[0])}–{label(run[-1]).removeprefix('TF ')}")
    return ", ".join(parts)


# --- reading the document ---------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one block did on one entry."""

    status: str
    output: str
    error: str

    @property
    def summary(self) -> str:
        """The exception line of a failure, or the output; memory addresses, which differ
        from run to run, are written ``0x...`` as the pages write them."""
        if self.status == "failed":
            lines = [line for line in self.error.strip().splitlines() if line.strip()]
            text = lines[-1].strip() if lines else "(no error text)"
        else:
            text = self.output
        return ADDRESS.sub("0x...", text)


def early_warning(entry: dict) -> bool:
    """A nightly's entry: shown on the Versions page as an early warning only; it never
    adds a note under a guide block, a verdict on a page, or a release to the support."""
    return entry["id"] in _EARLY_WARNING


def settled_entries(doc: dict) -> list[dict]:
    """The entries of released TensorFlow (every entry but the early warnings)."""
    return [e for e in doc["entries"] if not early_warning(e)]


def ran_entries(doc: dict) -> list[dict]:
    return [e for e in settled_entries(doc) if e["environment"]["status"] == "ok"]


def current(doc: dict, page: str, blocks: Sequence[DocBlock]) -> list[bool]:
    """Per block of the page as it is now, whether the results are for this very block."""
    recorded = doc["pages"].get(page)
    if recorded is None:
        return [False] * len(blocks)
    return [
        i < len(recorded) and recorded[i]["sha256"] == block_digest(b.code, b.expected_output)
        for i, b in enumerate(blocks)
    ]


def block_outcomes(doc: dict, page: str, index: int) -> dict[str, Outcome]:
    """Entry id -> outcome of block ``index`` (1-based) of ``page``."""
    outcomes = {}
    for entry in ran_entries(doc):
        result = entry["pages"][page]["blocks"][index - 1]
        outcomes[entry["id"]] = Outcome(result["status"], result["output"], result["error"])
    return outcomes


def page_counts(entry: dict, page: str) -> dict[str, int]:
    counts = dict.fromkeys(STATUS_WORDS, 0)
    for block in entry["pages"][page]["blocks"]:
        counts[block["status"]] += 1
    return counts


_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'\s*$")


def missing_modules(entry: dict, page: str) -> list[str]:
    """The modules whose absence made blocks of ``page`` raise on ``entry``: a block that
    needs what the entry does not install, not a change in TensorFlow."""
    found = []
    for block in entry["pages"][page]["blocks"]:
        match = _MISSING_MODULE.search(block["error"]) if block["status"] == "failed" else None
        if match and match[1] not in found:
            found.append(match[1])
    return found


def stale_note(page: str, fresh: Mapping[str, Sequence[bool]] | None) -> str:
    """ "k of n blocks current" when the page changed since the matrix ran (else "")."""
    flags = (fresh or {}).get(page)
    if flags is None or all(flags):
        return ""
    return f"{sum(flags)} of {len(flags)} blocks current"


def needs(entry: dict, page: str) -> str:
    """The distribution ``page`` needs and ``entry`` lacks ("" if the page ran there)."""
    return entry["pages"].get(page, {}).get("needs", "")


def clean_on(doc: dict, page: str) -> tuple[list[str], list[str]]:
    """Entries where every block of ``page`` passed, and entries where some did not; an
    entry that did not run the page for lack of what it needs is in neither."""
    clean, other = [], []
    for entry in settled_entries(doc):
        if needs(entry, page):
            continue
        ok = entry["environment"]["status"] == "ok" and all(
            b["status"] in ("passed", "not-applicable") and b["error"] != STOPPED
            for b in entry["pages"].get(page, {"blocks": [{"status": "failed", "error": ""}]})[
                "blocks"
            ]
        )
        (clean if ok else other).append(entry["id"])
    return clean, other


def package_passes(entry: dict) -> bool:
    package = entry.get("package")
    return bool(package) and package["tests"]["status"] == "passed"


def measured_support(doc: dict) -> list[str]:
    """Entries of Keras 3 (no legacy Keras) on which the package's tests all passed."""
    return [
        e["id"]
        for e in ran_entries(doc)
        if e["env"].get("TF_USE_LEGACY_KERAS") != "1" and package_passes(e)
    ]


# --- the note under each block ----------------------------------------------------------


def python_block_spans(markdown: str) -> list[tuple[int, int]]:
    """(first line, line after the block and its shown output), 0-based, per Python block.

    Blocks are found exactly as the harness finds them: pytest-codeblocks over the page,
    keeping fences whose language is ``python``.
    """
    lines = markdown.split("\n")
    spans = []
    for raw in extract_from_buffer(io.StringIO(markdown)):
        if parse_fence(raw.syntax or "")[0] != "python":
            continue
        start = raw.lineno - 1
        end = _fence_end(lines, start)
        probe = end
        while probe < len(lines) and not lines[probe].strip():
            probe += 1
        if probe < len(lines) and lines[probe].strip() == EXPECTED_OUTPUT:
            probe += 1
            while probe < len(lines) and not lines[probe].strip():
                probe += 1
            if probe < len(lines) and lines[probe].lstrip().startswith(("```", "~~~")):
                end = _fence_end(lines, probe)
        spans.append((start, end))
    return spans


def _fence_end(lines: list[str], start: int) -> int:
    opening = lines[start].lstrip()
    char = opening[0]
    length = len(opening) - len(opening.lstrip(char))
    for index in range(start + 1, len(lines)):
        stripped = lines[index].strip()
        if stripped and set(stripped) == {char} and len(stripped) >= length:
            return index + 1
    return len(lines)


def block_note(outcomes: dict[str, Outcome], reference: str, versions_link: str) -> str:
    """A collapsed note with what the block did where it did not do what the page shows."""
    groups: dict[tuple[str, str], list[str]] = {}
    for entry_id, outcome in outcomes.items():
        if outcome.status in ("differs", "failed"):
            groups.setdefault((outcome.status, outcome.summary), []).append(entry_id)
    if not groups:
        return ""
    differs = [i for (status, _), ids in groups.items() if status == "differs" for i in ids]
    fails = [i for (status, _), ids in groups.items() if status == "failed" for i in ids]
    title = "; ".join(
        part
        for part in (
            f"prints something else on {span(differs)}" if differs else "",
            f"raises on {span(fails)}" if fails else "",
        )
        if part
    )
    lines = [f'??? note "Other versions: this block {title}"', ""]
    lines.append(
        f"    The page shows what this block does on {plain(reference)}. The "
        f"[version matrix]({versions_link}) ran the page, in order, on other releases:"
    )
    lines.append("")
    ordered = sorted(groups.items(), key=lambda item: min(_ORDER.get(i, 99) for i in item[1]))
    for (status, summary), ids in ordered:
        verb = "prints" if status == "differs" else "raises"
        lines.append(f'    === "{span(ids)}: {verb}"')
        lines.append("")
        lines.append(fenced(summary, indent="        ").rstrip("\n"))
        lines.append("")
    return "\n".join(lines) + "\n"


def add_block_notes(
    markdown: str,
    page: str,
    blocks: Sequence[DocBlock],
    doc: dict,
    reference: str,
    versions_link: str,
) -> str:
    """``markdown`` with a note under every block whose outcome differs on another entry."""
    if page not in doc["pages"]:
        return markdown
    spans = python_block_spans(markdown)
    if len(spans) != len(blocks):
        raise MarkerError(
            f"{page}: the hook found {len(spans)} Python blocks where the harness finds "
            f"{len(blocks)}; notes would land under the wrong blocks"
        )
    fresh = current(doc, page, blocks)
    lines = markdown.split("\n")
    for index in range(len(blocks), 0, -1):  # from the end, so earlier positions hold
        if not fresh[index - 1]:
            continue
        note = block_note(block_outcomes(doc, page, index), reference, versions_link)
        if note:
            at = spans[index - 1][1]
            # Older releases' outputs are evidence, not answers: kept out of the search index.
            lines[at:at] = ["", *out_of_search(note).split("\n")]
    return "\n".join(lines)


def page_differences(
    markdown: str, page: str, blocks: Sequence[DocBlock], doc: dict, versions_link: str
) -> str:
    """A list of the page's blocks that behave differently on another entry, each under the
    section it is in, with where it differs; for a page to show where a verdict depends on
    the version (``<!-- version-matrix:page-differences -->``)."""
    if page not in doc["pages"]:
        raise MarkerError(f"{page}: the version matrix has no results for this page")
    spans = python_block_spans(markdown)
    if len(spans) != len(blocks):
        raise MarkerError(
            f"{page}: the hook found {len(spans)} Python blocks where the harness finds "
            f"{len(blocks)}"
        )
    lines = markdown.split("\n")
    fresh = current(doc, page, blocks)
    items = []
    for index, (start, _) in enumerate(spans, 1):
        if not fresh[index - 1]:
            continue
        outcomes = block_outcomes(doc, page, index)
        differs = [i for i, o in outcomes.items() if o.status == "differs"]
        fails = [i for i, o in outcomes.items() if o.status == "failed"]
        if not differs and not fails:
            continue
        heading = next(
            (
                line.lstrip("#").strip()
                for line in reversed(lines[:start])
                if line.startswith("## ")
            ),
            "",
        )
        where = f"[{heading}](#{slugify(heading, '-')})" if heading else "the top of the page"
        what = "; ".join(
            part
            for part in (
                f"prints something else on {span(differs)}" if differs else "",
                f"raises on {span(fails)}" if fails else "",
            )
            if part
        )
        items.append(f"- Block {index}, in {where}: {what}.")
    if not items:
        return (
            "Every block of this page printed the same on every setup the "
            f"[version matrix]({versions_link}) ran.\n"
        )
    return "\n".join(items) + "\n"


# --- the verified-versions note -----------------------------------------------------------


def measured_range_sentence(
    doc: dict, page: str, versions_link: str, blocks: Sequence[DocBlock] | None = None
) -> str:
    """One sentence for the verified-versions note of ``page``: where its blocks held.

    With the page's ``blocks`` as they are now, a page changed since the matrix ran is
    said to be so, rather than credited with results of blocks it no longer has.
    """
    if page not in doc["pages"] or not doc["pages"][page]:
        return ""
    if blocks is not None and (
        len(blocks) != len(doc["pages"][page]) or not all(current(doc, page, blocks))
    ):
        return (
            f"The [version matrix]({versions_link}#{anchor('page', page)}) last ran an earlier "
            "version of this page's examples; its next run will cover these."
        )
    clean, other = clean_on(doc, page)
    ran = {e["id"] for e in ran_entries(doc)}
    other, no_environment = [i for i in other if i in ran], [i for i in other if i not in ran]
    link = f"[version matrix]({versions_link}#{anchor('page', page)})"
    missing = (
        f" No environment could be created for {span(no_environment)}." if no_environment else ""
    )
    lacking = [e for e in ran_entries(doc) if needs(e, page)]
    if lacking:
        missing += (
            f" It needs {plain(needs(lacking[0], page))}, which {span([e['id'] for e in lacking])}"
            " do not install: the page was not run there."
        )
    if not other:
        return f"The {link} ran them on {span(clean)}: every block printed the same.{missing}"
    where = f"the same output on {span(clean)}" if clean else "no setup without a difference"
    return (
        f"The {link} also ran them on {span(clean + other)}: {where}; on {span(other)} some "
        f"blocks print something else or raise, as the notes under them show.{missing}"
    )


# --- the Versions page ------------------------------------------------------------------


def cell(
    entry: dict,
    page: str,
    page_link: Callable[[str], str | None],
    fresh: Mapping[str, Sequence[bool]] | None = None,
) -> str:
    details = page_link(entry_page(entry["id"]))
    if entry["environment"]["status"] != "ok":
        return f"[no environment]({details})"
    details += f"#{anchor('entry', entry['id'], page)}"
    if needs(entry, page):
        return f"[needs {plain(needs(entry, page))}]({details})"
    counts = page_counts(entry, page)
    parts = [f"{counts['passed']} pass"]
    for status in ("differs", "failed"):
        if counts[status]:
            # Emphasis, not bold: bold marks a table's headline figures, which a phone
            # keeps in view; a matrix of versions cannot keep every column in view.
            parts.append(f"*{counts[status]} {STATUS_WORDS[status]}*")
    blocked = counts["not-applicable"]
    if blocked:
        parts.append(f"{blocked} {STATUS_WORDS['not-applicable']}")
    stale = stale_note(page, fresh)
    if stale:
        parts.append(stale)
    return f"[{' · '.join(parts)}]({details})"


def matrix_table(
    doc: dict,
    page_link: Callable[[str], str | None],
    fresh: Mapping[str, Sequence[bool]] | None = None,
) -> str:
    pages = [name for name, blocks in doc["pages"].items() if blocks]
    entries = doc["entries"]
    header = "| Page | " + " | ".join(label(e["id"]) for e in entries) + " |"
    rule = "|---|" + "---|" * len(entries)
    rows = [header, rule]
    for page in pages:
        target = page_link(page)
        shown = plain(page.removeprefix("docs/"))
        name = f"[{shown}]({target}){{#{anchor('page', page)}}}" if target else shown
        cells = " | ".join(cell(e, page, page_link, fresh) for e in entries)
        rows.append(f"| {name} | {cells} |")
    packages = " | ".join(package_cell(e, page_link) for e in entries)
    rows.append(f"| **package tests** | {packages} |")
    return "\n".join(rows) + "\n"


def package_cell(entry: dict, page_link: Callable[[str], str | None]) -> str:
    package = entry.get("package")
    target = page_link(entry_page(entry["id"]))
    if not package:  # no environment: the page says why, and has no package section
        return f"[not run]({target})"
    target = f"{target}#{anchor('entry', entry['id'], 'package')}"
    tests = package["tests"]
    if tests["status"] == "not-run":
        return f"[not run]({target})"
    failed, uncollected = failed_and_uncollected(tests)
    text = f"{tests['passed']} pass"
    if failed:
        text += f" · *{failed} fail*"
    if uncollected:
        text += f" · *{_not_imported(uncollected)}*"
    return f"[{text}]({target})"


def _not_imported(uncollected: list[dict], kind: str = "") -> str:
    modules = "module" if len(uncollected) == 1 else "modules"
    return f"{len(uncollected)} {kind}{modules} not imported"


def failed_and_uncollected(tests: dict) -> tuple[int, list[dict]]:
    """The failed tests, and the test modules that could not even be imported (JUnit
    records one error under the module's name, with no class: none of its tests ran)."""
    uncollected = [f for f in tests["failures"] if f["test"].startswith("::")]
    return tests["failed"] - len(uncollected), uncollected


def entry_details(
    entry: dict,
    page_link: Callable[[str], str | None],
    fresh: Mapping[str, Sequence[bool]] | None = None,
) -> str:
    """The page of one entry: where and how it ran, its package tests, and what every
    block that did not print what the guide shows did there, page by page."""
    entry_id = entry["id"]
    versions = page_link(f"docs/{VERSIONS_PAGE}")
    out = [f"# Version matrix: {label(entry_id)} {{#{anchor('entry', entry_id)}}}", ""]
    out.append(
        f"What the guide's pages did on {plain(label(entry_id))} when the "
        f"[version matrix]({versions}) ran them, in page order, as a reader would: for each "
        "page, the blocks that printed something else or raised, with what they printed."
    )
    out.append("")
    if early_warning(entry):
        out.append(
            "An early warning, not a supported release: what the next TensorFlow may change. "
            "Its results add no note to a guide page and never fail a build."
        )
        out.append("")
    pins = ", ".join(code(r) for r in entry["requirements"])
    env = ", ".join(code(f"{k}={v}") for k, v in entry["env"].items())
    out.append(f"Pinned: {pins}" + (f"; environment {env}" if env else "") + ".")
    prov = entry["provenance"]
    out.append(
        f"Run {plain(prov['date'])} from commit {code(prov['commit'])} on "
        f"{plain(prov['machine'])}, with {plain(prov['uv'])}."
    )
    out.append("")
    if entry["environment"]["status"] != "ok":
        out.append("The environment could not be created. The installer said:")
        out.append("")
        out.append(fenced(entry["environment"]["message"]))
        return "\n".join(out) + "\n"
    v = entry["versions"]
    installed = (
        f"Installed: TensorFlow {plain(v['tensorflow'])}, Keras {plain(v['keras'] or 'none')}"
        f", NumPy {plain(v['numpy'] or 'none')}, Python {plain(v['python'])}"
    )
    if v.get("tf_keras"):
        installed += f", tf-keras {plain(v['tf_keras'])}"
    out.append(installed + ".")
    environment = entry["environment"]
    out.append(
        f"The environment was {'reused from the cache' if environment['cached'] else 'created'}"
        f" in {environment['seconds']:.0f} s; the whole entry took {entry['seconds']:.0f} s."
    )
    out.append("")
    out.append(f"## The package {{#{anchor('entry', entry_id, 'package')}}}")
    out.append("")
    out.extend(package_details(entry))
    passed = [page for page in entry["pages"] if _all_passed(entry, page, fresh)]
    out.extend(_passed_pages(entry, passed, page_link))
    for page, result in entry["pages"].items():
        blocks = result["blocks"]
        if not blocks or page in passed:
            continue
        counts = page_counts(entry, page)
        target = page_link(page)
        name = f"[{plain(page)}]({target})" if target else plain(page)
        out.append(f"## {plain(page)} {{#{anchor('entry', entry_id, page)}}}")
        out.append("")
        summary = ", ".join(f"{n} {STATUS_WORDS[s]}" for s, n in counts.items() if n)
        if result.get("needs"):
            summary = f"not run: it needs {plain(result['needs'])}, which this entry lacks"
        lacking = missing_modules(entry, page)
        if lacking:
            modules = ", ".join(code(module) for module in lacking)
            summary += f" (a block needs {modules}, which this entry does not install)"
        stale = "" if result.get("needs") else stale_note(page, fresh)  # no results to age
        if stale:
            summary += f"; these are the results of an earlier version of the page ({stale})"
        out.append(f"{name}: {summary}.")
        out.append("")
        if result["error"]:
            out.append(fenced(result["error"]))
        out.extend(_folded_blocks(blocks))
        stopped = [b for b in blocks if b["error"] == STOPPED]
        if stopped:
            what = "block" if len(stopped) == 1 else f"{len(stopped)} blocks"
            out.append(f"The last {what} did not run: a reader's session stops at the first error.")
            out.append("")
    return "\n".join(out) + "\n"


def _all_passed(entry: dict, page: str, fresh: Mapping[str, Sequence[bool]] | None) -> bool:
    """Every block of the page ran and printed what the guide shows, as the page is now."""
    result = entry["pages"][page]
    return (
        bool(result["blocks"])
        and not result["error"]
        and not result.get("needs")
        and all(block["status"] == "passed" for block in result["blocks"])
        and not stale_note(page, fresh)
    )


def _passed_pages(
    entry: dict, passed: Sequence[str], page_link: Callable[[str], str | None]
) -> list[str]:
    """The pages whose blocks all passed, one line each under one heading (a heading per
    page made the entry page grow past twelve screens with the guide), each line keeping
    the page's anchor that the matrix's cells link to."""
    if not passed:
        return []
    out = [f"## Every block passed {{#{anchor('entry', entry['id'], 'passed')}}}", ""]
    for page in passed:
        target = page_link(page)
        name = f"[{plain(page)}]({target})" if target else plain(page)
        count = len(entry["pages"][page]["blocks"])
        ident = anchor("entry", entry["id"], page)
        out.append(f'- <span id="{ident}"></span>{name}: {count} {STATUS_WORDS["passed"]}')
    return [*out, ""]


def _folded_blocks(blocks: Sequence[dict]) -> list[str]:
    """One folded box per page for its blocks that printed something else or raised, each
    with what it printed: one line of the page per page, however many blocks differ."""
    shown = [
        (index, block)
        for index, block in enumerate(blocks, 1)
        if block["status"] not in ("passed", "not-applicable")
    ]
    if not shown:
        return []
    raised = any(block["status"] == "failed" for _, block in shown)
    numbers = ", ".join(str(index) for index, _ in shown)
    kinds = {block["status"] for _, block in shown}  # "differs", "failed" or both
    did = "printed or raised" if len(kinds) == 2 else "raised" if raised else "printed"
    what = f"Block {{}}: what it {did}" if len(shown) == 1 else f"Blocks {{}}: what they {did}"
    out = [f'??? {"warning" if raised else "note"} "{what.format(numbers)}"', ""]
    for index, block in shown:
        verb = "printed something else" if block["status"] == "differs" else "raised"
        out.append(f"    Block {index} {verb}:")
        out.append("")
        text = block["error"] if block["status"] == "failed" else block["output"]
        out.append(fenced(text, indent="    "))
    return out


def package_details(entry: dict) -> list[str]:
    package = entry["package"]
    out = []
    verdict = "admits" if entry["declared_support"] else "does not admit"
    out.append(
        f"`tf_retracing` was installed with `--no-deps`; its declared requirement {verdict} "
        "this TensorFlow."
    )
    imported = package["import"]
    if imported["status"] != "ok":
        out.append(" Importing it failed:")
        out.append("")
        out.append(fenced(imported["error"]))
    elif imported["explainer_unavailable"]:
        out.append(
            f" It imports, without the full explainer: {plain(imported['explainer_unavailable'])}."
        )
    else:
        out.append(" It imports with the full explainer.")
    tests = package["tests"]
    out.append("")
    if tests["status"] == "not-run":
        out.append("Its tests were not run.")
    else:
        commit = entry.get("provenance", {}).get("commit")
        which = f"Its tests, as they stood at commit {code(commit)}" if commit else "Its tests"
        if commit and commit.endswith("+uncommitted-changes"):
            which += " (with changes not committed then)"
        failed, uncollected = failed_and_uncollected(tests)
        out.append(
            f"{which}: {tests['passed']} passed, {failed} failed, {tests['skipped']} skipped."
        )
        for module in uncollected:
            out.append(
                f" The module {code(module['test'].removeprefix('::'))} could not be imported"
                f" ({plain(module['message'])}): none of its tests ran."
            )
        if tests["failures"]:
            out.append("")
            shown = tests["failures"][:12]
            listing = "\n".join(f"{f['test'].split('::', 1)[-1]}: {f['message']}" for f in shown)
            if len(tests["failures"]) > len(shown):
                listing += f"\n... and {len(tests['failures']) - len(shown)} more"
            out.append('??? warning "Failing package tests"')
            out.append("")
            out.append(fenced(listing, indent="    "))
    out.append("")
    return out


def support_sentence(doc: dict, declared: str) -> str:
    supported = measured_support(doc)
    if not supported:
        return f"The package's tests passed on no entry with Keras 3; it declares {code(declared)}."
    return (
        f"The package's tests all passed on {span(supported)} (Keras 3); it declares "
        f"{code(declared)}, and a test keeps the declared range and this file in agreement."
    )


def provenance_sentence(doc: dict) -> str:
    dates = sorted({e["provenance"]["date"] for e in doc["entries"]})
    commits = sorted({e["provenance"]["commit"] for e in doc["entries"]})
    commands = sorted({e["provenance"]["command"] for e in doc["entries"]})
    return (
        f"{len(doc['entries'])} entries, run {plain(' and '.join(dates))} from commit "
        f"{', '.join(code(c) for c in commits)} with {', '.join(code(c) for c in commands)}."
    )


def entry_page_markdown(
    page: str,
    entry_id: str | None,
    doc: dict,
    page_link: Callable[[str], str | None],
    fresh: Mapping[str, Sequence[bool]] | None = None,
) -> str:
    """The details of entry ``entry_id``, on its own page (``versions/ID.md``) only."""
    if entry_id is None:
        raise MarkerError(f"{page}: version-matrix:entry needs an entry id")
    if f"docs/{page}" != entry_page(entry_id):
        raise MarkerError(
            f"{page}: version-matrix:entry {entry_id} belongs on "
            f"{entry_page(entry_id).removeprefix('docs/')}"
        )
    entry = next((e for e in doc["entries"] if e["id"] == entry_id), None)
    if entry is None:
        raise MarkerError(f"{page}: the version matrix has no entry {entry_id!r}")
    return entry_details(entry, page_link, fresh)


def entries_index(
    doc: dict,
    page_link: Callable[[str], str | None],
    fresh: Mapping[str, Sequence[bool]] | None = None,
) -> str:
    """One line per entry, linking to its page of details: what its blocks did, counting
    only blocks that are still as the matrix ran them, and its package tests."""
    lines = []
    for entry in doc["entries"]:
        link = f"[{label(entry['id'])}]({page_link(entry_page(entry['id']))})"
        if entry["environment"]["status"] != "ok":
            lines.append(f"- {link}: no environment could be created.")
            continue
        v = entry["versions"]
        totals, changed = _current_totals(entry, fresh)
        blocks = f"{totals['passed']} blocks printed what the guide shows"
        if totals["differs"]:
            blocks += f", {totals['differs']} something else"
        if totals["failed"]:
            blocks += f", {totals['failed']} raised"
        if totals["not-applicable"]:
            blocks += f", {totals['not-applicable']} did not run"
        if changed:
            blocks += f" ({changed} results of blocks changed since are left out)"
        tests = entry["package"]["tests"] if entry.get("package") else None
        if tests and tests["status"] != "not-run":
            failed, uncollected = failed_and_uncollected(tests)
            package = f"package tests {tests['passed']} passed, {failed} failed"
            if uncollected:
                package += f", {_not_imported(uncollected, 'test ')}"
        else:
            package = "package tests not run"
        lines.append(
            f"- {link}: TensorFlow {plain(v['tensorflow'])}, Python {plain(v['python'])}; "
            f"{blocks}; {package}."
        )
    return "\n".join(lines) + "\n"


def _current_totals(entry: dict, fresh: Mapping[str, Sequence[bool]] | None):
    """Per status, the entry's results of blocks still as the matrix ran them; and how
    many results were left out because their block has changed since."""
    totals = dict.fromkeys(STATUS_WORDS, 0)
    changed = 0
    for page, result in entry["pages"].items():
        flags = (fresh or {}).get(page)
        for index, block in enumerate(result["blocks"]):
            if flags is not None and not (index < len(flags) and flags[index]):
                changed += 1
            else:
                totals[block["status"]] += 1
    return totals, changed


def replace_markers(
    markdown: str,
    page: str,
    doc: dict,
    declared: str,
    page_link: Callable[[str], str | None],
    blocks: Sequence[DocBlock] | None = None,
    fresh: Mapping[str, Sequence[bool]] | None = None,
) -> str:
    """Expand ``<!-- version-matrix:NAME -->`` markers. ``page-differences`` may be on any
    page whose ``blocks`` are given; ``entry ID`` belongs on the page of that entry,
    ``versions/ID.md``; the others belong on the Versions page. ``fresh`` gives, per page
    the matrix ran, whether each of its blocks as they are now is the block it ran
    (``current``): a page changed since is said to be so."""

    def expand(match: re.Match) -> str:
        name, argument = match.group("name"), match.group("argument")
        if name == "entry":
            return entry_page_markdown(page, argument, doc, page_link, fresh)
        if argument is not None:
            raise MarkerError(f"{page}: version-matrix:{name} takes no argument")
        if name == "page-differences":
            if blocks is None:
                raise MarkerError(f"{page}: version-matrix:page-differences needs the blocks")
            versions = posixpath.relpath(VERSIONS_PAGE, posixpath.dirname(page) or ".")
            return page_differences(markdown, f"docs/{page}", blocks, doc, versions)
        if page != VERSIONS_PAGE:
            raise MarkerError(f"{page}: version-matrix markers belong on {VERSIONS_PAGE}")
        if name == "table":
            return matrix_table(doc, page_link, fresh)
        if name == "details":
            return entries_index(doc, page_link, fresh)
        if name == "support":
            return support_sentence(doc, declared)
        if name == "provenance":
            return provenance_sentence(doc)
        raise MarkerError(f"{page}: unknown marker version-matrix:{name}")

    return MARKER.sub(expand, markdown)
