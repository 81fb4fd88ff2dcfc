"""The three output formats: text for people, JSON for scripts, SARIF 2.1.0 for code scanning."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from tf_retracing._site import SITE_URL
from tf_retracing.lint.engine import LintResult
from tf_retracing.lint.rules import RULES, rule_url

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = f"{SITE_URL}guide/lint/"


def shown_path(path: str) -> str:
    """A path as one line of text: one with a newline, a tab or another control character
    is quoted with backslash escapes (as git quotes such names), so that it can neither
    break a report's lines nor pass for another name; any other path is shown as it is."""
    if not any(_is_control(c) for c in path):
        return path
    escaped = []
    for character in path:
        if character in '\\"':
            escaped.append("\\" + character)
        elif _is_control(character):
            named = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(character)
            code = ord(character)
            escaped.append(named or (f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}"))
        else:
            escaped.append(character)
    return '"' + "".join(escaped) + '"'


def _is_control(character: str) -> bool:
    """C0 and C1 controls, DEL, and the Unicode line and paragraph separators."""
    code = ord(character)
    return code < 0x20 or 0x7F <= code < 0xA0 or code in (0x2028, 0x2029)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def as_text(result: LintResult) -> str:
    lines = [f"{_where(f)}: {f.rule} {f.message} ({f.url})" for f in result.findings]
    checked = f"{_plural(result.files_checked, 'file')} checked"
    if result.skipped:
        checked += f", {len(result.skipped)} skipped"
    if result.findings:
        files = len({f.path for f in result.findings})
        lines.append(
            f"Found {_plural(len(result.findings), 'finding')} in {_plural(files, 'file')} "
            f"({checked})."
        )
    else:
        lines.append(f"No findings ({checked}).")
    return "\n".join(lines)


def _where(finding) -> str:
    """``path:line:column``, or ``notebook.ipynb:cell 3:line:column`` as ruff writes it."""
    cell = "" if finding.cell is None else f"cell {finding.cell}:"
    return f"{shown_path(finding.path)}:{cell}{finding.line}:{finding.column}"


def as_json(result: LintResult, version: str) -> str:
    document = {
        "tool": "tf-retracing lint",
        "version": version,
        "files_checked": result.files_checked,
        "findings": [f.as_dict() for f in result.findings],
        "errors": [{"path": e.path, "message": e.message} for e in result.errors],
        "skipped": [{"path": e.path, "message": e.message} for e in result.skipped],
    }
    return json.dumps(document, indent=2)


def _location(path: str, finding=None) -> dict:
    # A relative path stays a relative reference (to the folder the linter ran in); an
    # absolute one becomes a file: URI, as SARIF requires.
    uri = Path(path).as_uri() if Path(path).is_absolute() else quote(Path(path).as_posix())
    physical: dict[str, object] = {"artifactLocation": {"uri": uri}}
    if finding is not None and finding.cell is None:
        physical["region"] = {
            "startLine": finding.line,
            "startColumn": finding.column,
            "endLine": finding.end_line,
            "endColumn": finding.end_column,
        }
    elif finding is not None and finding.file_region is not None:
        # a notebook: the region is in the .ipynb file's own text, where scanners show it
        start_line, start_column, end_line, end_column = finding.file_region
        physical["region"] = {
            "startLine": start_line,
            "startColumn": start_column,
            "endLine": end_line,
            "endColumn": max(end_column, start_column + 1)
            if end_line == start_line
            else end_column,
        }
    location: dict[str, object] = {"physicalLocation": physical}
    if finding is not None and finding.cell is not None:
        location["properties"] = {"cell": finding.cell, "cellLine": finding.line}
    return location


def as_sarif(result: LintResult, version: str, site_url: str) -> str:
    index = {rule.code: position for position, rule in enumerate(RULES)}
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "help": {"text": rule.fix},
            "helpUri": rule_url(rule, site_url),
            "defaultConfiguration": {"level": "warning"},
        }
        for rule in RULES
    ]
    results = [
        {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": "warning",
            "message": {"text": f"{f.message}. See {f.url}"},
            "locations": [_location(f.path, finding=f)],
        }
        for f in result.findings
    ]
    notifications = [
        {"level": level, "message": {"text": e.message}, "locations": [_location(e.path)]}
        for level, listed in (("error", result.errors), ("note", result.skipped))
        for e in listed
    ]
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tf-retracing lint",
                        "version": version,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not result.errors,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2)
