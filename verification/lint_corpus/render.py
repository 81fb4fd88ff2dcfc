"""The linter's scores as Markdown, for the Lint page (``<!-- lint-corpus -->``)."""

from __future__ import annotations

from benchmarks.code_hash import stale_admonition
from verification.lint_corpus.results import totals

MARKER = "<!-- lint-corpus -->"


def replace_marker(markdown: str, data: dict, source_link) -> str:
    """``markdown`` with the marker replaced by the scores; ``source_link(path)`` gives the
    link to a file of this repository."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(data, source_link))


def _percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def render(data: dict, source_link) -> str:
    provenance, summary, speed = data["provenance"], totals(data), data["speed"]
    small, large = speed["modules"]
    lines = [
        stale_admonition(provenance)
        + f"Run of {provenance['date']} at commit `{provenance['commit']}`, tf_retracing "
        f"{provenance['tf_retracing']}, Python {provenance['python']} "
        f"({provenance['machine']}), by `{provenance['command']}`.",
        "",
        "| measure | result |",
        "|---|---|",
        f"| recall: marked hazards found, in {summary['cases']} files reduced from "
        f"{summary['sources']} public reports | {summary['found']} of {summary['hazards']} "
        f"({_percent(summary['recall'])}) |",
        f"| findings on the corpus where no hazard is marked | "
        f"{summary['corpus_false_findings']} |",
        f"| precision on {len(data['repositories'])} public repositories "
        f"({summary['repository_files']} files), every finding reviewed | "
        f"{summary['true_findings']} true of {summary['repository_findings']} "
        f"({_percent(summary['precision'])}) |",
        f"| files per second on those repositories | "
        f"{summary['repository_files'] / max(summary['repository_seconds'], 1e-9):.0f} |",
        f"| one generated module of {small['functions']} functions ({small['lines']} lines) "
        f"| {small['seconds']:.3f} s, {small['lines_per_second']} lines per second |",
        f"| one of {large['functions']} functions ({large['lines']} lines) | "
        f"{large['seconds']:.3f} s, {large['lines_per_second']} lines per second, "
        f"{speed['ratio']}× the time |",
        "",
        "The repositories, at the commits read:",
        "",
    ]
    for repository in data["repositories"]:
        lines.append(
            f"- [{repository['name']}](https://github.com/{repository['name']}/tree/"
            f"{repository['commit']}) at `{repository['commit'][:12]}`: "
            f"{repository['files']} files ({repository['unparsable']} files or cells that "
            f"do not parse, such as Python 2 or exercise placeholders), "
            f"{len(repository['findings'])} findings"
        )
    lines += ["", *_reviews(data), "", *_missed(data, source_link)]
    return "\n".join(lines)


def _reviews(data: dict) -> list[str]:
    lines = ["Each finding on the repositories, as reviewed:", ""]
    for repository in data["repositories"]:
        for finding in repository["findings"]:
            where = f"{finding['path']}" + (
                f", cell {finding['cell']}" if finding["cell"] is not None else ""
            )
            verdict = {True: "true", False: "false", None: "not reviewed"}[finding["true"]]
            lines.append(
                f"- `{finding['rule']}` {repository['name']} `{where}` line "
                f"{finding['line']}: **{verdict}**, {finding['why']}"
            )
    return lines


def _missed(data: dict, source_link) -> list[str]:
    missed = [(case, line, code) for case in data["cases"] for line, code in case["missed"]]
    false = [(case, f) for case in data["cases"] for f in case["false_findings"]]
    if not missed and not false:
        return ["Every marked hazard of the corpus is found, and nothing else."]
    lines = [
        "What the linter misses or gets wrong on the corpus (the limits below explain why):",
        "",
    ]
    for case, line, code in missed:
        lines.append(
            f"- missed `{code}` in [{case['id']}]({source_link(case['path'])}) line {line} "
            f"([report]({case['source']}))"
        )
    for case, (line, code, message) in false:
        lines.append(
            f"- unexpected `{code}` in [{case['id']}]({source_link(case['path'])}) line {line}: "
            f"{message}"
        )
    return lines
