"""The explainer on its corpus of real reports (verification/explainer_corpus): every case
passes wrapped and whole-program, every fix runs, and the results file the page renders is
this corpus's."""

from __future__ import annotations

import pytest

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
# written; make test runs every SAMPLE_STRIDE-th, and checks below that the results file is a
# run of this corpus at the code as it is now, so a change to the explainer cannot land
# without the whole corpus run again.
SAMPLE_STRIDE = 12  # 6 cases; every 6th (12 cases) took about 20 CPU-s more (issue 54)


def _case_param(index: int, case):
    marks = [] if index % SAMPLE_STRIDE == 0 else [pytest.mark.scheduled]
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("case", [_case_param(k, case) for k, case in enumerate(CASES)])
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
    for case in CASES:
        expected = sorted([list(entry) for entry in case.expect], key=str)
        assert recorded[case.id]["expect"] == expected, case.id
        assert recorded[case.id]["source"] == case.source, case.id
