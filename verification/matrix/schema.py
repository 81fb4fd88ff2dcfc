"""The matrix results file: its schema, and loading and writing it.

Every problem is reported as ``<file>: <field path>: <what is wrong>``. A file that is
written is checked first and replaced atomically, so a failed write leaves the old file.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.files import UnreadableFile, read_results_text, write_json_whole
from benchmarks.json_schema import (
    ANYTHING,
    FLAG,
    fields,
    list_of,
    mapping_of,
    one_of,
    optional,
    problems,
)
from verification.matrix.entries import ID_PATTERN

SCHEMA_VERSION = 1
RESULTS_FILE = Path(__file__).parent / "results.json"
# A block that did not run because a block above it on the page raised.
STOPPED = "an earlier block on the page failed"
# How runs before 2026-11-29 stored such a block: as failed, with the page runner's words.
_STOPPED_AS_FAILED = "an earlier block failed"
BLOCK_STATUSES = ("passed", "differs", "failed", "not-applicable")


class ResultsError(Exception):
    """A results file that cannot be used; the message names the file and the field."""


# The wrong type is named apart from the wrong value: "expected a whole number, found true".
NUMBER = {
    "type": "number",
    "expected": "a finite number",
    "allOf": [{"minimum": 0, "expected": "a finite number >= 0"}],
}
COUNT = {
    "type": "integer",
    "expected": "a whole number",
    "allOf": [{"minimum": 0, "expected": "a whole number >= 0"}],
}
TEXT = {"type": "string", "expected": "a string"}
IDENTIFIER = {
    "type": "string",
    "pattern": ID_PATTERN.pattern,
    "expected": "an identifier ([a-z0-9.+-])",
}
TEXTS = list_of(TEXT)

BLOCK = fields({"status": one_of(*BLOCK_STATUSES), "output": TEXT, "error": TEXT})
# "needs": the distribution the page requires and the entry does not install; the page
# was not run there (verification/matrix/entries.py: PAGE_NEEDS).
PAGE_RESULT = fields({"error": TEXT, "blocks": list_of(BLOCK)}, optional={"needs": TEXT})
PROVENANCE = fields(dict.fromkeys(("date", "commit", "command", "machine", "uv"), TEXT))
VERSIONS = fields(
    {
        "python": TEXT,
        "tensorflow": TEXT,
        **dict.fromkeys(("keras", "numpy", "tf_keras", "tf_retracing"), optional(TEXT)),
    }
)
PACKAGE = fields(
    {
        "import": fields(
            {
                "status": one_of("ok", "failed"),
                "error": TEXT,
                "explainer_unavailable": optional(TEXT),
                "warnings": TEXTS,
            }
        ),
        "tests": fields(
            {
                "status": one_of("passed", "failed", "not-run"),
                "passed": COUNT,
                "failed": COUNT,
                "skipped": COUNT,
                "failures": list_of(fields({"test": TEXT, "message": TEXT})),
                "seconds": NUMBER,
            }
        ),
    }
)
ENVIRONMENT = fields(
    {"status": one_of("ok", "failed"), "message": TEXT, "cached": FLAG, "seconds": NUMBER}
)
ENTRY_COMMON = {
    "id": IDENTIFIER,
    "label": TEXT,
    "requirements": TEXTS,
    "env": mapping_of(TEXT),
    "provenance": PROVENANCE,
    "declared_support": FLAG,
    "environment": ENVIRONMENT,
    "pages": mapping_of(PAGE_RESULT),
    "seconds": NUMBER,
}
ENTRY_OK = fields({**ENTRY_COMMON, "versions": VERSIONS, "installed": TEXTS, "package": PACKAGE})
ENTRY_FAILED = fields(
    {**ENTRY_COMMON, "versions": optional(VERSIONS), "package": optional(PACKAGE)}
)
DOCUMENT = fields(
    {
        "schema_version": COUNT,
        "complete": FLAG,
        "declared_entries": list_of(IDENTIFIER),
        "pages": mapping_of(list_of(fields({"sha256": TEXT}))),
        "entries": list_of(ANYTHING),
    }
)


def validate(data: Any, require_complete: bool = False) -> list[str]:
    """Every problem of a results document, each as ``<field path>: <problem>``."""
    if not isinstance(data, dict):
        return ["(top level): expected an object"]
    if data.get("schema_version") != SCHEMA_VERSION:
        return [f"schema_version: expected {SCHEMA_VERSION}, found {data.get('schema_version')!r}"]
    errors = problems(DOCUMENT, data)
    if errors:
        return errors
    seen: set[str] = set()
    for index, entry in enumerate(data["entries"]):
        where = f"entries[{index}]"
        ok = isinstance(entry, dict) and entry.get("environment", {}).get("status") == "ok"
        entry_errors = problems(ENTRY_OK if ok else ENTRY_FAILED, entry, where)
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            seen.add(entry["id"])
        if entry_errors:
            errors += entry_errors
            continue
        if (
            list(data["entries"]).count(entry) > 1
            or [e.get("id") for e in data["entries"] if isinstance(e, dict)].count(entry["id"]) > 1
        ):
            errors.append(f"{where}.id: {entry['id']!r} appears twice")
        if entry["id"] not in data["declared_entries"]:
            errors.append(f"{where}.id: {entry['id']!r} is not in declared_entries")
        if ok:
            errors.extend(_pages_agree(entry["pages"], data["pages"], f"{where}.pages"))
        elif entry["pages"]:
            errors.append(f"{where}.pages: an entry without an environment ran no page")
    missing = [i for i in data["declared_entries"] if i not in seen]
    if data["complete"] and missing:
        errors.append(f"complete: true, but entries {', '.join(missing)} are missing")
    if require_complete and not data["complete"]:
        errors.append(
            "complete: false: a partial run"
            + (f" (missing {', '.join(missing)})" if missing else "")
            + "; run every entry before publishing"
        )
    return errors


def _pages_agree(ran: dict, pages: dict, where: str) -> list[str]:
    errors = []
    for name in pages.keys() - ran.keys():
        errors.append(f"{where}.{name}: missing page")
    for name in ran.keys() - pages.keys():
        errors.append(f"{where}.{name}: page not in the document's pages")
    for name in ran.keys() & pages.keys():
        if len(ran[name]["blocks"]) != len(pages[name]):
            errors.append(
                f"{where}.{name}.blocks: {len(ran[name]['blocks'])} results for "
                f"{len(pages[name])} blocks"
            )
    return errors


MAX_FILE_BYTES = 64 * 1024 * 1024  # the real file is well under 1 MB
MAX_INTEGER_DIGITS = 30  # counts and seconds; Python refuses to parse past 4300 digits


def read_document(path: Path, require_complete: bool = False) -> dict:
    """Load and check a results file, or raise ``ResultsError`` naming file and field."""
    try:
        raw = read_results_text(path, MAX_FILE_BYTES)
    except UnreadableFile as error:
        raise ResultsError(str(error)) from error
    try:
        data = json.loads(raw, object_pairs_hook=_unique_keys, parse_int=_short_integer)
    except json.JSONDecodeError as error:
        raise ResultsError(
            f"{path}: invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from error
    except ValueError as error:  # a repeated key or an over-long integer, named below
        raise ResultsError(f"{path}: {error}") from error
    except RecursionError as error:
        raise ResultsError(f"{path}: arrays or objects nested too deep to read") from error
    errors = validate(data, require_complete)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ResultsError(f"{path}: {errors[0]}{more}")
    return _stopped_blocks_not_run(data)


def _stopped_blocks_not_run(data: dict) -> dict:
    """Read a block that never ran (a block above it raised) as not run, as runs now store
    it; older runs stored it as failed, which counted it among the failures."""
    for entry in data.get("entries", []):
        for page in entry.get("pages", {}).values():
            for block in page.get("blocks", []):
                if block.get("status") == "failed" and block.get("error") == _STOPPED_AS_FAILED:
                    block.update(status="not-applicable", output="", error=STOPPED)
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    repeated = sorted(key for key, times in Counter(key for key, _ in pairs).items() if times > 1)
    if repeated:  # json would silently keep the last
        raise ValueError(f"the key {json.dumps(repeated[0])} is given twice in one object")
    return dict(pairs)


def _short_integer(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise ValueError(f"an integer of {digits} digits (at most {MAX_INTEGER_DIGITS})")
    return int(literal)


def block_digest(code: str, expected_output: str | None) -> str:
    """Identifies a block's code and shown output, to tell whether results are for it."""
    return hashlib.sha256(f"{code}\0{expected_output or ''}".encode()).hexdigest()[:16]


def document(entries: Sequence[dict], pages: Mapping[str, Sequence], declared: Iterable) -> dict:
    """A results document for ``entries`` run on ``pages`` (name -> DocBlocks)."""
    declared_ids = [e.id for e in declared]
    return {
        "schema_version": SCHEMA_VERSION,
        "complete": all(i in {e["id"] for e in entries} for i in declared_ids),
        "declared_entries": declared_ids,
        "pages": {
            name: [{"sha256": block_digest(b.code, b.expected_output)} for b in blocks]
            for name, blocks in pages.items()
        },
        "entries": list(entries),
    }


def write_document(path: Path, data: dict) -> None:
    errors = validate(data)
    if errors:
        raise ResultsError(f"{path}: refusing to write: {errors[0]}")
    write_json_whole(path, data)


def merge_documents(parts: Sequence[tuple[Path, dict]], declared: Iterable) -> dict:
    """One document from the files of several runs of the same pages (one job per entry)."""
    declared_ids = [e.id for e in declared]
    if not parts:
        raise ResultsError("no results files to merge")
    pages = parts[0][1]["pages"]
    entries: dict[str, dict] = {}
    for path, part in parts:
        if part["pages"] != pages:
            raise ResultsError(f"{path}: pages: not the pages of {parts[0][0]}")
        for entry in part["entries"]:
            if entry["id"] in entries:
                raise ResultsError(f"{path}: entries: {entry['id']!r} is in two files")
            entries[entry["id"]] = entry
    ordered = [entries[i] for i in declared_ids if i in entries]
    unknown = sorted(entries.keys() - set(declared_ids))
    if unknown:
        raise ResultsError(f"entries: {', '.join(unknown)} are not declared")
    return {
        "schema_version": SCHEMA_VERSION,
        "complete": len(ordered) == len(declared_ids),
        "declared_entries": declared_ids,
        "pages": pages,
        "entries": ordered,
    }
