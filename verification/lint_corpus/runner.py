"""Score the linter: recall on the corpus's marked hazards, false findings on the corpus,
precision on snapshots of public repositories (every finding reviewed), and speed."""

from __future__ import annotations

import time
from pathlib import Path

from tf_retracing.lint import Config, lint_paths, lint_source

from verification.lint_corpus.cases import LintCase
from verification.lint_corpus.repositories import REPOSITORIES, REVIEWS, Repository, review_key


def score_findings(findings, hazards: frozenset) -> tuple[set, list]:
    """The marked (line, rule) hazards the findings cover, and each finding no mark covers
    as [line, rule, message]. A finding at a loop's call covers the hazard it reached in
    the file's own code (its ``via`` lines)."""
    found, uncovered = set(), []
    for finding in findings:
        covered = {
            (line, code)
            for line, code in hazards
            if code == finding.rule
            and (finding.line <= line <= finding.end_line or line in finding.via)
        }
        found |= covered
        if not covered:
            uncovered.append([finding.line, finding.rule, finding.message])
    return found, uncovered


def score_case(case: LintCase) -> dict:
    found, false = score_findings(lint_source(case.text, case.path), case.hazards)
    return {
        "id": case.id,
        "path": case.path,
        "source": case.source,
        "summary": case.summary,
        "hazards": sorted([line, code] for line, code in case.hazards),
        "missed": sorted([line, code] for line, code in case.hazards - found),
        "false_findings": false,
    }


def score_repository(repository: Repository, root: Path) -> dict:
    folder = root / repository.folder
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{folder}: no snapshot of {repository.name} "
            "(python -m verification.lint_corpus export)"
        )
    started = time.perf_counter()
    result = lint_paths([str(folder)], Config())
    seconds = time.perf_counter() - started
    findings = []
    for finding in result.findings:
        path = Path(finding.path).relative_to(folder).as_posix()
        cell = getattr(finding, "cell", None)  # releases before 0.4 read no notebooks
        key = review_key(repository.name, path, cell, finding.line, finding.rule)
        verdict, why = REVIEWS.get(key, (None, "not reviewed"))
        findings.append(
            {
                "path": path,
                "cell": cell,
                "line": finding.line,
                "rule": finding.rule,
                "message": finding.message,
                "true": verdict,
                "why": why,
            }
        )
    return {
        "name": repository.name,
        "commit": repository.commit,
        "files": result.files_checked,
        "unparsable": len(result.errors),
        "seconds": round(seconds, 2),
        "findings": findings,
    }


def score_repositories(root: Path) -> list[dict]:
    return [score_repository(repository, root) for repository in REPOSITORIES]
