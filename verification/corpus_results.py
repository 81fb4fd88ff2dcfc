"""What the two corpora's results files share: written whole (never half), read back and
checked before a page renders them, a bad file named with the field that is wrong."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmarks.files import UnreadableFile, read_results_text, write_json_whole
from verification.search_index import out_of_search

MAX_BYTES = 20_000_000  # the explainer corpus's file is about 0.4 MB


class ResultsError(Exception):
    """A results file that cannot be rendered, named with the field."""


def check_records(data, path: Path, schema_version: int, records: dict[str, tuple]) -> None:
    """The header (schema version, provenance) and, for each list in ``records``, that it
    is a non-empty list of objects each with the fields given for it."""
    if not isinstance(data, dict) or data.get("schema_version") != schema_version:
        raise ResultsError(f"{path}: schema_version must be {schema_version}")
    if not isinstance(data.get("provenance"), dict):
        raise ResultsError(f"{path}: provenance must be an object")
    for key, fields in records.items():
        items = data.get(key)
        if not isinstance(items, list) or not items:
            raise ResultsError(f"{path}: {key} must be a non-empty list")
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise ResultsError(f"{path}: {key}[{index}] must be an object")
            missing = [field for field in fields if field not in item]
            if missing:
                named = f" ({item['id']})" if "id" in item else ""
                raise ResultsError(f"{path}: {key}[{index}]{named} lacks {missing[0]!r}")


def chosen(items: list, only: list[str] | None, prog: str, noun: str) -> list | None:
    """The items whose ``id`` is in ``only`` (all of them without ``only``), or None after
    naming on standard error the ids that match none (``prog: no such NOUN: ...``)."""
    if not only:
        return list(items)
    unknown = set(only) - {item.id for item in items}
    if unknown:
        print(f"{prog}: no such {noun}: {', '.join(sorted(unknown))}", file=sys.stderr)
        return None
    return [item for item in items if item.id in only]


def write_checked(path: Path, data: dict, check) -> None:
    check(data, path)
    write_json_whole(path, data)


def read_checked(path: Path, check) -> dict:
    try:
        data = json.loads(read_results_text(path, MAX_BYTES))
    except UnreadableFile as error:
        raise ResultsError(str(error)) from error
    except ValueError as error:
        raise ResultsError(f"{path}: {error}") from error
    check(data, path)
    return data


def render_on_page(markdown: str, marker: str, read, replace_marker, label: str, repo_url: str):
    """``markdown`` with a corpus's ``marker`` replaced by its rendered results (``read()``
    then ``replace_marker(markdown, data, source_link)``); a bad results file raises
    ``ResultsError`` prefixed with ``label``. Pages without the marker are returned as is."""
    if marker not in markdown:
        return markdown
    try:
        data = read()
    except ResultsError as error:
        raise ResultsError(f"{label} results: {error}") from error
    repository = repo_url.rstrip("/")
    # Each case's messages and summaries name every symptom: data, kept out of search.
    markdown = markdown.replace(marker, out_of_search(marker))

    def source_link(path: str) -> str:
        return f"{repository}/blob/main/{path}"

    return replace_marker(markdown, data, source_link)
