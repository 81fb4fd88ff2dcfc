"""A results file that would break the build is refused before the build writes anything.

Each case writes one bad file into a throwaway project and runs the benchmark hook's
``on_config``, which MkDocs calls before it empties the site folder: the build must fail
there, with a message that names the file and the field. ``test_benchmarks_build.py``
runs one whole build to show that the earlier site is left as it was.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from benchmarks import render
from benchmarks.claims import CLAIMS
from benchmarks.scenarios import NAMES
from benchmarks.schema import ResultsError, load_results
from verification.harness.codeblocks import ROOT

FIXTURE = Path(__file__).parent / "fixtures" / "benchmarks" / "cpu.json"
HOOK = ROOT / "docs" / "hooks" / "benchmark_figures.py"


@pytest.fixture
def hook(monkeypatch):
    monkeypatch.delenv("BENCHMARKS_RERUN", raising=False)
    spec = importlib.util.spec_from_file_location("benchmark_figures_validation", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def project(tmp_path) -> Path:
    """A project folder as the hook sees it: mkdocs.yml beside benchmarks/results/."""
    (tmp_path / "mkdocs.yml").write_text("site_name: test\n", "utf-8")
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    return tmp_path


@pytest.fixture
def document() -> dict:
    return json.loads(FIXTURE.read_text("utf-8"))


def results_file(project: Path, device: str = "cpu") -> Path:
    return project / "benchmarks" / "results" / f"{device}.json"


def write(project: Path, content: dict | str | bytes, device: str = "cpu") -> Path:
    path = results_file(project, device)
    if isinstance(content, dict):
        content = json.dumps(content)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def refused(hook, project: Path) -> str:
    """The build's error for the project's results; fails if the hook accepts them."""
    with pytest.raises(PluginError) as caught:
        hook.on_config(SimpleNamespace(config_file_path=str(project / "mkdocs.yml")))
    return str(caught.value)


def test_the_fixture_and_the_committed_results_pass(hook, project, document):
    write(project, document)
    config = SimpleNamespace(config_file_path=str(project / "mkdocs.yml"))
    assert hook.on_config(config) is config
    assert set(load_results(ROOT / "benchmarks" / "results")) >= {"cpu"}


# --- cross-references the renderer and the claims rely on ------------------------------


def test_a_missing_steady_ratio_for_one_variant(hook, project, document):
    ratios = document["scenarios"]["loop_count"]["ratios"]
    ratios[:] = [r for r in ratios if r["pass"] != "steady"]
    path = write(project, document)
    assert (
        f"{path}: scenarios.loop_count.ratios: no steady ratio for variant 'tensor'; expected one"
        in refused(hook, project)
    )


def test_no_ratio_marked_headline(hook, project, document):
    for ratio in document["scenarios"]["loop_count"]["ratios"]:
        ratio["headline"] = False
    path = write(project, document)
    assert (
        f"{path}: scenarios.loop_count.ratios: expected one headline ratio, the cold ratio of "
        "'tensor'; found 0" in refused(hook, project)
    )


def test_two_ratios_marked_headline(hook, project, document):
    for ratio in document["scenarios"]["loop_count"]["ratios"]:
        ratio["headline"] = True
    path = write(project, document)
    assert f"{path}: scenarios.loop_count.ratios: expected one headline" in refused(hook, project)


def test_a_renamed_variant_the_claims_compare(hook, project, document):
    result = document["scenarios"]["predict_loop"]
    for item in [*result["variants"], *result["ratios"]]:
        for key in ("name", "variant"):
            if item.get(key) == "tf_function":
                item[key] = "compiled"
    path = write(project, document)
    message = refused(hook, project)
    assert (
        f"{path}: scenarios.predict_loop.variants: no variant named 'tf_function', which the "
        "claims table compares" in message
    )


def test_a_renamed_baseline(hook, project, document):
    result = document["scenarios"]["loop_count"]
    result["baseline"] = result["variants"][0]["name"] = "python_number"
    for ratio in result["ratios"]:
        ratio["baseline"] = "python_number"
    path = write(project, document)
    assert (
        f"{path}: scenarios.loop_count.baseline: expected 'python_int', found 'python_number'"
        in refused(hook, project)
    )


def test_a_ratio_against_another_baseline(hook, project, document):
    document["scenarios"]["loop_count"]["ratios"][1]["baseline"] = "tensor"
    path = write(project, document)
    assert (
        f"{path}: scenarios.loop_count.ratios[1].baseline: expected 'python_int', found 'tensor'"
        in refused(hook, project)
    )


def test_a_subnormal_ci_low(hook, project, document):
    # 1 / 1e-320 is infinite: the overhead column would raise OverflowError mid-build.
    document["scenarios"]["loop_count"]["ratios"][0]["ci_low"] = 1e-320
    path = write(project, document)
    assert (
        f"{path}: scenarios.loop_count.ratios[0].ci_low: 1e-320 is not a plausible measurement"
        in refused(hook, project)
    )


def test_a_huge_but_finite_time(hook, project, document):
    document["scenarios"]["loop_count"]["variants"][0]["first_call_ms"] = 1e300
    path = write(project, document)
    assert f"{path}: scenarios.loop_count.variants[0].first_call_ms: 1e+300 is not" in refused(
        hook, project
    )


def test_p25_above_the_median(hook, project, document):
    summary = document["scenarios"]["loop_count"]["variants"][1]["steady_ms_per_call"]
    summary["p25"] = summary["median"] * 2
    path = write(project, document)
    assert (
        f"{path}: scenarios.loop_count.variants[1].steady_ms_per_call.p25: "
        f"{summary['p25']} is above median" in refused(hook, project)
    )


def test_parameters_given_as_a_list(hook, project, document):
    document["scenarios"]["loop_count"]["parameters"] = ["calls per pass", "60"]
    path = write(project, document)
    assert f"{path}: scenarios.loop_count.parameters: expected an object of text values" in refused(
        hook, project
    )


# --- bytes and JSON that Python's json module lets through or raises on -------------------


def test_invalid_utf8(hook, project):
    path = write(project, b'{"schema_version": 1, "device": "cpu\xff"}')
    assert f"{path}: not UTF-8 text (byte 36: invalid start byte)" in refused(hook, project)


def test_an_integer_of_thousands_of_digits(hook, project, document):
    text = json.dumps(document).replace(
        '"repetitions": 3,', '"repetitions": ' + "9" * 5000 + ",", 1
    )
    path = write(project, text)
    assert f"{path}: scenarios.predict_loop.repetitions: an integer of 5000 digits" in refused(
        hook, project
    )


def test_arrays_nested_beyond_the_parser(hook, project):
    path = write(project, '{"schema_version": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert f"{path}: invalid results: arrays or objects nested deeper than" in refused(
        hook, project
    )


def test_arrays_nested_deeper_than_the_format(hook, project, document):
    document["scenarios"]["loop_count"]["extra"] = json.loads("[" * 40 + "]" * 40)
    path = write(project, document)
    assert f"{path}: scenarios.loop_count.extra" in refused(hook, project)
    assert "nested deeper than 12 levels" in refused(hook, project)


def test_a_fifo_named_like_a_results_file_does_not_hang_the_build(hook, project, document):
    write(project, document)
    fifo = results_file(project, "gpu")
    os.mkfifo(fifo)
    outcome: list[str] = []
    worker = threading.Thread(target=lambda: outcome.append(refused(hook, project)), daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():  # unblock the reader so that the test run can go on
        with open(fifo, "w"):
            pass
        pytest.fail("loading the results blocked on a FIFO")
    assert outcome == [f"benchmark results: {fifo}: not a regular file; a results file must be one"]


def test_a_results_file_with_another_name(hook, project, document):
    write(project, document)
    second = project / "benchmarks" / "results" / "cpu-second.json"
    second.write_text(json.dumps(document), "utf-8")
    assert f"{second}: not a results file name" in refused(hook, project)


# --- accepted silently before; refused now -----------------------------------------------


def test_a_duplicate_scenario_key(hook, project, document):
    loop_count = json.dumps(document["scenarios"]["loop_count"])
    text = json.dumps(document).replace(
        '"loop_count": ', f'"loop_count": {loop_count}, "loop_count": '
    )
    path = write(project, text)
    assert f"{path}: scenarios.loop_count: the key appears more than once in one object" in refused(
        hook, project
    )


def test_a_duplicate_key_inside_a_variant(hook, project, document):
    text = json.dumps(document).replace('"traces": ', '"traces": 1, "traces": ', 1)
    path = write(project, text)
    assert (
        f"{path}: scenarios.predict_loop.variants[0].traces: the key appears more than once"
        in refused(hook, project)
    )


def test_a_duplicate_variant_name(hook, project, document):
    variants = document["scenarios"]["batch_size_stream"]["variants"]
    variants[2]["name"] = variants[1]["name"]
    path = write(project, document)
    assert (
        f"{path}: scenarios.batch_size_stream.variants: the name 'input_signature' is given to "
        "more than one variant" in refused(hook, project)
    )


def test_schema_version_true(hook, project, document):
    document["schema_version"] = True  # True == 1 in Python
    path = write(project, document)
    assert f"{path}: schema_version: expected 1, found true" in refused(hook, project)


def test_a_cpu_file_naming_a_gpu(hook, project, document):
    document["scenarios"]["loop_count"]["provenance"]["gpu"] = {"name": "A100", "driver": "1"}
    path = write(project, document)
    assert f"{path}: scenarios.loop_count.provenance.gpu: a CPU result names a GPU" in refused(
        hook, project
    )


def gpu_document(document: dict, gpu: dict | None) -> dict:
    gpu_results = copy.deepcopy(document)
    gpu_results["device"] = "gpu"
    for result in gpu_results["scenarios"].values():
        result["provenance"].update(device="gpu", gpu=gpu)
    return gpu_results


def test_gpu_null_in_the_gpu_file(hook, project, document):
    write(project, document)
    path = write(project, gpu_document(document, None), "gpu")
    assert (
        f"{path}: scenarios.predict_loop.provenance.gpu: a GPU result must name its GPU, "
        "found null" in refused(hook, project)
    )


def test_every_bad_file_is_named_in_one_build(hook, project, document):
    cpu = write(project, {**document, "schema_version": 2})
    gpu = write(project, gpu_document(document, None), "gpu")
    message = refused(hook, project)
    assert f"{cpu}: schema_version: expected 1, found 2" in message
    assert f"{gpu}: scenarios.predict_loop.provenance.gpu: a GPU result must name" in message


def test_a_file_whose_device_differs_from_its_name(hook, project, document):
    path = write(project, document, "gpu")
    assert f"{path}: device: 'cpu' results in gpu.json" in refused(hook, project)


def test_a_gpu_file_naming_its_gpu_is_accepted(hook, project, document):
    write(project, document)
    write(project, gpu_document(document, {"name": "NVIDIA L4", "driver": "550.1"}), "gpu")
    hook.on_config(SimpleNamespace(config_file_path=str(project / "mkdocs.yml")))
    assert set(hook._loaded["results"]) == {"cpu", "gpu"}


def test_a_pipe_in_a_label_stays_in_its_table_cell(document):
    result = document["scenarios"]["loop_count"]

    def first_variant_row() -> str:  # the table's rows start with "| "; 0 is its header
        table = render.scenario_table("loop_count", result)
        return [line for line in table.splitlines() if line.startswith("| ")][1]

    clean_row = first_variant_row()
    result["variants"][0]["label"] = "a | b"
    row = first_variant_row()
    assert "a &#124; b" in row
    assert row.count("|") == clean_row.count("|")


# --- the net under validation ------------------------------------------------------------


def test_a_renderer_failing_on_validated_results_names_the_file(
    hook, project, document, monkeypatch
):
    path = write(project, document)

    def broken(*_):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(render, "runs_table", broken)
    message = refused(hook, project)
    assert f"{path}: rendering runs table failed: ZeroDivisionError" in message


def test_many_errors_are_listed_with_a_count_of_the_rest(project, document):
    for result in document["scenarios"].values():
        for variant in result["variants"]:
            variant.update(traces=-1, traces_min=-1, steady_pass_traces=-1)  # 33 errors
    write(project, document)
    with pytest.raises(ResultsError) as caught:
        load_results(project / "benchmarks" / "results")
    lines = str(caught.value).splitlines()
    assert len(lines) == 21 and lines[-1].endswith("more")


def test_every_claim_names_a_scenario_of_the_registry():
    assert {claim.scenario for claim in CLAIMS} <= set(NAMES)
