"""Review records: for a guide page, the probes a reviewer ran to falsify its claims (a new
shape, dtype, release or call path) and what each showed. One JSON file per page and
reviewer in ``verification/claims/reviews/`` (``guide__causes.md.json``, and a further
reviewer's ``guide__causes.md--<reviewer>.json``); a malformed file fails the build,
naming file and field.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from verification.claims.markers import ClaimError

FOLDER = Path(__file__).with_name("reviews")
OUTCOMES = ("held", "overstated", "false")
MARKER = "<!-- claims:reviews -->"
_PROBE_FIELDS = ("sentence", "tried", "outcome", "change")
_FIELDS = ("page", "reviewer", "tensorflow", "probes")


def read_reviews(docs_dir: Path, folder: Path = FOLDER) -> list[dict]:
    """Every review record, checked, in page order."""
    records = [_read(path, docs_dir) for path in sorted(folder.glob("*.json"))]
    return sorted(records, key=lambda record: (record["page"], record["reviewer"]))


def _read(path: Path, docs_dir: Path) -> dict:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ClaimError(f"{path}: cannot be read as JSON: {error}") from error
    if not isinstance(record, dict):
        raise ClaimError(f"{path}: expected an object")
    for field in _FIELDS:
        _require(record, field, path, list if field == "probes" else str)
    if not (docs_dir / record["page"]).is_file():
        raise ClaimError(f"{path}: page: {record['page']} is not a page of docs/")
    stem = record["page"].replace("/", "__")
    if path.name != f"{stem}.json" and not path.name.startswith(f"{stem}--"):
        raise ClaimError(f"{path}: page: {record['page']} is not the page this file is named for")
    for index, probe in enumerate(record["probes"]):
        where = f"{path}: probes[{index}]"
        if not isinstance(probe, dict):
            raise ClaimError(f"{where}: expected an object")
        for field in _PROBE_FIELDS:
            _require(probe, field, where, str)
        if probe["outcome"] not in OUTCOMES:
            raise ClaimError(f"{where}: outcome: {probe['outcome']!r} is not one of {OUTCOMES}")
    return record


def _require(record: dict, field: str, where: object, kind: type) -> None:
    if not isinstance(record.get(field), kind):
        raise ClaimError(f"{where}: {field}: expected a {kind.__name__}")


def render(records: list[dict], link) -> str:
    """A table of probes and outcomes per page, and each page's probes, folded."""
    if not records:
        return "No page has a review record yet."
    rows = ["| Page | Reviewer | Probes | " + " | ".join(OUTCOMES) + " |"]
    rows.append("|---|---|" + "---:|" * (len(OUTCOMES) + 1))
    details = []
    for record in records:
        outcomes = Counter(p["outcome"] for p in record["probes"])
        cells = " | ".join(str(outcomes[o]) for o in OUTCOMES)
        rows.append(
            f"| {link(record['page'])} | {record['reviewer']} | {len(record['probes'])} | {cells} |"
        )
        details.append(_indent(_details(record)))
    # The probes of every page in one folded box, so the page stays short as records grow.
    probes = sum(len(record["probes"]) for record in records)
    folded = f'??? note "Every probe, page by page ({probes} probes in {len(records)} records)"'
    return "\n".join(rows) + "\n\n" + folded + "\n\n" + "\n\n".join(details)


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.split("\n"))


def _details(record: dict) -> str:
    lines = [
        f'??? note "{record["page"]}: {len(record["probes"])} probes '
        f'(TensorFlow {record["tensorflow"]})"',
        "",
    ]
    for probe in record["probes"]:
        change = f" Changed: {_plain(probe['change'])}" if probe["change"].strip() else ""
        lines.append(
            f"    - *{_plain(probe['sentence'])}*: tried {_plain(probe['tried'])}. "
            f"**{probe['outcome']}**.{change}"
        )
    return "\n".join(lines)


_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def _plain(text: str) -> str:
    """Reviewers' notes as text: no line breaks, no stray emphasis or table bars, and a
    sentence quoted with its Markdown link keeps the link's text only (the link was
    relative to the reviewed page, not to this one)."""
    text = _MARKDOWN_LINK.sub(r"\1", " ".join(text.split()))
    return text.replace("|", "/").replace("*", "\\*")
