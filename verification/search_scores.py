"""The held-out search scores (verification/search_heldout*_results.json, written by
``python -m verification.search_heldout score``), rendered where a page has
``<!-- search-held-out -->``: for each sealed set, half and machinery, the first run (for a
sealed half, its one blind score) beside the latest, with the code each measured; and the
queries the newest sealed half still misses. docs/hooks/corpora.py calls it at build time."""

from __future__ import annotations

from verification.corpus_results import ResultsError, read_checked
from verification.search_heldout import ROOT, SETS

MARKER = "<!-- search-held-out -->"
SCHEMA_VERSION = 1
RUN_FIELDS = ("date", "machinery", "code_hash", "queries", "answerable", "first", "top3")


def read_results() -> dict:
    """Every set's results file that exists, by set name; a malformed one is an error
    naming the file and the field; none at all is an error."""
    found = {}
    for name, (_, path) in SETS.items():
        if path.is_file():
            found[name] = read_checked(path, _check)
    if not found:
        raise ResultsError("no held-out search results file: run verification.search_heldout")
    return found


def _check(data, path) -> None:
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        raise ResultsError(f"{path}: schema_version must be {SCHEMA_VERSION}")
    for half, machineries in data.get("runs", {}).items():
        for machinery, slot in machineries.items():
            for which in ("first_run", "latest"):
                run = slot.get(which)
                where = f"runs/{half}/{machinery}/{which}"
                if not isinstance(run, dict):
                    raise ResultsError(f"{path}: {where} must be an object")
                missing = [field for field in RUN_FIELDS if field not in run]
                if missing:
                    raise ResultsError(f"{path}: {where} lacks {missing[0]!r}")


def replace_marker(markdown: str, data: dict, source_link) -> str:
    return markdown.replace(MARKER, render(data, source_link))


def render(data: dict, source_link) -> str:
    rows = [
        "| Set | Half | Search | First run | First place | Top 3 | Latest | First place | Top 3 |",
        "|---|---|---|---|---:|---:|---|---:|---:|",
    ]
    for name, results in data.items():
        queries, path = SETS[name]
        cell = (
            f"[{name}]({source_link(queries.relative_to(ROOT).as_posix())}) "
            f"([results]({source_link(path.relative_to(ROOT).as_posix())}))"
        )
        for half in ("tune", "sealed"):
            for machinery, slot in results.get("runs", {}).get(half, {}).items():
                first, latest = slot["first_run"], slot["latest"]
                rows.append(
                    f"| {cell} | {half} | {machinery} | {_when(first)} | "
                    f"{_share(first, 'first')} | {_share(first, 'top3')} | {_when(latest)} | "
                    f"{_share(latest, 'first')} | {_share(latest, 'top3')} |"
                )
    return "\n".join([*rows, "", *_sealed_misses(data)])


def _when(run: dict) -> str:
    return f"{run['date']}, code `{run['code_hash']}`"


def _share(run: dict, key: str) -> str:
    return f"{run[key]} of {run['answerable']}"


def _sealed_misses(data: dict) -> list[str]:
    """The newest set's sealed half, as first scored: each query whose answering page did
    not come first, with where it came and what came first."""
    name = max(data, key=int)
    slot = data[name].get("runs", {}).get("sealed", {}).get("material")
    if slot is None:
        return [f"Set {name}'s sealed half has not been scored yet."]
    lines = [
        f"Set {name}'s sealed half, as first scored: the queries whose answer was not first.",
        "",
    ]
    for entry in slot["first_run"].get("per_query", []):
        if entry["rank"] == 1:
            continue
        place = f"rank {entry['rank']}" if entry["rank"] else "not in the first 10"
        came = entry["top"][0] if entry["top"] else "nothing"
        text = entry["text"].replace("|", "\\|").replace("`", "'")
        lines.append(f"- `{text[:120]}`: wants `{entry['page']}`, {place}; first `{came}`")
    return lines
