"""The linter on real code: its corpus of reduced reports, the reviewed findings on public
repositories, and the speed benchmark, as the results file records them and as the
linter now scores the corpus."""

from __future__ import annotations

import ast
import gc
import time

import pytest
from tf_retracing.lint import RULES_BY_CODE, lint_source

from verification.lint_corpus.cases import LINT_CASES, all_cases
from verification.lint_corpus.results import read_results, totals
from verification.lint_corpus.runner import score_case
from verification.lint_corpus.speed import generated_module

MINIMUM_CASES = 40  # files reduced from distinct public reports
MINIMUM_RECALL = 0.80
MINIMUM_PRECISION = 0.90
MAXIMUM_SIZE_RATIO = 6.0  # 2,000 functions against 500, in the recorded benchmark
# The speed floor is measured live, against the machine's own speed: the whole linter on a
# generated module may take at most this many times what Python's own parser takes on it,
# both timed here, interleaved, best of several runs, so a loaded or slow machine slows
# both sides alike. On a quiet 2-CPU machine (2026-11-27) the linter took 3.4 to 4.2 times
# the parse; lines per second, which depend on the machine, are the benchmark's to report.
MAXIMUM_TIMES_THE_PARSE = 8.0
# Linear time keeps the linter's cost per parse flat as the file grows four times; a
# quadratic step would multiply it by about four. (In the suite, with wall-clock time,
# two workers and a browser beside it once gave 1.94: CPU time is what is compared now.)
MAXIMUM_GROWTH_PER_PARSE = 2.0


@pytest.fixture(scope="module")
def cases():
    return all_cases()


@pytest.fixture(scope="module")
def results():
    return read_results()


def test_the_corpus_has_enough_cases_from_real_reports(cases):
    written = [case for case in cases if not case.id.startswith("explainer/")]
    assert len(list(LINT_CASES.glob("*.py"))) == len(written) > 0
    assert len({case.source for case in cases}) >= MINIMUM_CASES
    assert sum(1 for case in cases if case.hazards) >= MINIMUM_CASES


def test_every_marker_names_a_rule_on_a_line_of_code(cases):
    for case in cases:
        lines = case.text.splitlines()
        for line, code in case.hazards:
            assert code in RULES_BY_CODE, (case.id, line, code)
            assert lines[line - 1].split("#")[0].strip(), (case.id, line)


def test_the_results_file_is_the_current_score_of_every_case(cases, results):
    """The page shows what the linter now does: re-scoring gives the recorded results."""
    recorded = {case["id"]: case for case in results["cases"]}
    assert set(recorded) == {case.id for case in cases}
    for case in cases:
        assert score_case(case) == recorded[case.id], case.id


def test_recall_on_the_corpus(results):
    summary = totals(results)
    assert summary["recall"] >= MINIMUM_RECALL, summary


def test_no_finding_on_the_corpus_where_no_hazard_is_marked(results):
    false = [(case["id"], f) for case in results["cases"] for f in case["false_findings"]]
    assert false == []


def test_every_finding_on_the_repositories_is_reviewed_and_precise(results):
    summary = totals(results)
    assert summary["unreviewed"] == 0, [
        (r["name"], f["path"], f["cell"], f["line"], f["rule"])
        for r in results["repositories"]
        for f in r["findings"]
        if f["true"] is None
    ]
    assert summary["precision"] >= MINIMUM_PRECISION, summary


def test_the_recorded_speed_benchmark_is_of_the_modules_the_page_names(results):
    speed = results["speed"]
    small, large = speed["modules"]
    assert (small["functions"], large["functions"]) == (500, 2000)


def fastest_lint_and_parse(source: str, repeats: int = 3) -> tuple[float, float]:
    """The fastest of several runs of the linter and of Python's parser on one source, in
    this process's CPU time (other processes' load does not count), taken in turns so
    that what load still shows (shared caches) slows both alike."""
    actions = {
        "lint": lambda: lint_source(source, "generated.py"),
        "parse": lambda: ast.parse(source),
    }
    fastest = dict.fromkeys(actions, float("inf"))
    for _ in range(repeats):
        for name, action in actions.items():
            gc.collect()
            started = time.process_time()
            action()
            fastest[name] = min(fastest[name], time.process_time() - started)
    return fastest["lint"], fastest["parse"]


def test_the_linter_is_linear_and_within_a_few_parses_measured_live():
    """Measured now, against this machine's own parser: the linter costs at most a few
    parses of the same file, and that cost per parse does not grow with the file (1,000
    functions against 250), where anything worse than linear time would make it grow."""
    times_the_parse = {}
    for functions in (250, 1000):
        lint, parse = fastest_lint_and_parse(generated_module(functions))
        times_the_parse[functions] = lint / parse
    assert max(times_the_parse.values()) <= MAXIMUM_TIMES_THE_PARSE, times_the_parse
    growth = times_the_parse[1000] / times_the_parse[250]
    assert growth <= MAXIMUM_GROWTH_PER_PARSE, times_the_parse
