"""The explainer on its corpus of real reports (verification/explainer_corpus): every case
passes wrapped and whole-program, every fix runs, and the results file the page renders is
this corpus's."""

from __future__ import annotations

import pytest
import tensorflow as tf

from benchmarks.code_hash import ROOT, freshness
from verification.explainer_corpus.cases import all_cases
from verification.explainer_corpus.results import read_results
from verification.explainer_corpus.runner import run_case
from verification.harness.preloaded_python import PreloadedPython

CASES = all_cases()
# At least 40 (the issue); the corpus is not allowed to shrink below what it has.
MINIMUM_CASES = 65


@pytest.fixture
def python(preloaded_python) -> PreloadedPython:
    return preloaded_python  # tests/conftest.py: one per worker, in run_environment()


def test_the_corpus_cites_one_report_per_case():
    assert len(CASES) >= MINIMUM_CASES
    sources = [case.source for case in CASES]
    assert len(set(sources)) == len(sources), "two cases cite the same report"


# Every case runs weekly (the Scheduled checks workflow) and before its results file is
# written. make test runs none (six of them took about 20 CPU-seconds, issue 54): it requires
# below that the results file is a run of this corpus, at the code as it is now, on the
# TensorFlow installed, where every case passed; so neither a change to the explainer nor a
# new TensorFlow can land without the whole corpus run again.
def _case_param(case):
    return pytest.param(case, id=case.id, marks=[pytest.mark.scheduled])


@pytest.mark.slow
@pytest.mark.parametrize("case", [_case_param(case) for case in CASES])
def test_case(case, python):
    result = run_case(python, case)
    failures = {
        part: {key: result[part][key] for key in result[part] if key != "messages"}
        for part in ("whole_program", "wrapped", "fix")
        if result[part] is not None and not result[part]["passed"]
    }
    assert result["passed"], failures


def test_the_page_renders_a_run_of_this_corpus():
    results = read_results()
    # The run measured the code as it is now, by the command the Diagnosing page names.
    assert freshness(results["provenance"]) is None, freshness(results["provenance"])
    command = results["provenance"]["command"]
    assert command == "python -m verification.explainer_corpus run"
    page = (ROOT / "docs" / "guide" / "diagnosing" / "measured.md").read_text()
    assert f"`{command}` runs them all and writes the results this" in " ".join(page.split())
    recorded = {case["id"]: case for case in results["cases"]}
    assert sorted(recorded) == sorted(case.id for case in CASES), (
        "run python -m verification.explainer_corpus run"
    )
    assert results["provenance"]["tensorflow"] == tf.__version__, (
        "a run on another TensorFlow: run python -m verification.explainer_corpus run"
    )
    failed = [case["id"] for case in results["cases"] if not case["passed"]]
    assert not failed, failed
    for case in CASES:
        expected = sorted([list(entry) for entry in case.expect], key=str)
        assert recorded[case.id]["expect"] == expected, case.id
        assert recorded[case.id]["source"] == case.source, case.id
