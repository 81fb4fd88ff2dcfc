"""Loading results files: every kind of bad input fails with the file and the field."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from benchmarks.schema import ResultsError, load_results, validate, write_results

FIXTURE = Path(__file__).parent / "fixtures" / "benchmarks" / "cpu.json"


@pytest.fixture
def document() -> dict:
    return json.loads(FIXTURE.read_text("utf-8"))


@pytest.fixture
def results_dir(tmp_path) -> Path:
    folder = tmp_path / "results"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / "cpu.json")
    return folder


def write(folder: Path, data: object) -> Path:
    path = folder / "cpu.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return path


def load_error(folder: Path) -> str:
    with pytest.raises(ResultsError) as caught:
        load_results(folder)
    return str(caught.value)


def test_the_fixture_is_valid(results_dir):
    loaded = load_results(results_dir)
    assert set(loaded) == {"cpu"}
    assert {"predict_loop", "batch_size_stream", "loop_count"} <= set(loaded["cpu"].scenarios)


def test_missing_folder(tmp_path):
    assert "results folder not found" in load_error(tmp_path / "absent")


def test_folder_without_results(tmp_path):
    assert "no results files" in load_error(tmp_path)


def test_empty_file(results_dir):
    path = write(results_dir, "")
    assert load_error(results_dir) == f"{path}: the file is empty"


def test_invalid_json(results_dir):
    path = write(results_dir, '{"schema_version": 1,')
    message = load_error(results_dir)
    assert message.startswith(f"{path}: invalid JSON at line 1")


def test_wrong_schema_version(results_dir, document):
    document["schema_version"] = 99
    path = write(results_dir, document)
    assert load_error(results_dir) == f"{path}: schema_version: expected 1, found 99"


def test_missing_field_is_named_with_its_path(results_dir, document):
    del document["scenarios"]["loop_count"]["variants"][1]["first_call_ms"]
    path = write(results_dir, document)
    assert load_error(results_dir) == (
        f"{path}: scenarios.loop_count.variants[1].first_call_ms: missing field"
    )


def test_missing_provenance_field(results_dir, document):
    del document["scenarios"]["predict_loop"]["provenance"]["git_commit"]
    write(results_dir, document)
    assert "scenarios.predict_loop.provenance.git_commit: missing field" in load_error(results_dir)


def test_unknown_scenario(results_dir, document):
    document["scenarios"]["warp_drive"] = copy.deepcopy(document["scenarios"]["loop_count"])
    path = write(results_dir, document)
    message = load_error(results_dir)
    assert message.startswith(f"{path}: scenarios.warp_drive: unknown scenario")


def test_nan_is_named_with_its_path(results_dir, document):
    document["scenarios"]["loop_count"]["ratios"][0]["median"] = float("nan")
    path = write(results_dir, document)  # json.dumps writes NaN, as a careless writer would
    assert load_error(results_dir) == (
        f"{path}: scenarios.loop_count.ratios[0].median: expected a finite number, found nan"
    )


def test_wrong_type_and_inconsistent_ratio(document):
    document["scenarios"]["loop_count"]["repetitions"] = "ten"
    ratio = document["scenarios"]["predict_loop"]["ratios"][0]
    ratio["ci_low"], ratio["ci_high"] = ratio["median"] * 2, ratio["median"] * 3
    errors = validate(document)
    assert 'scenarios.loop_count.repetitions: expected a whole number >= 0, found "ten"' in errors
    assert "scenarios.predict_loop.ratios[0]: median outside its interval" in errors


def test_write_merges_scenarios_and_refuses_invalid_results(tmp_path, document):
    out = tmp_path / "cpu.json"
    scenarios = document["scenarios"]
    write_results(out, "cpu", {"loop_count": scenarios["loop_count"]})
    write_results(out, "cpu", {"predict_loop": scenarios["predict_loop"]})
    assert set(load_results(tmp_path)["cpu"].scenarios) == {"loop_count", "predict_loop"}

    broken = copy.deepcopy(scenarios["loop_count"])
    broken["seconds"] = float("inf")
    before = out.read_bytes()
    with pytest.raises(ResultsError, match=r"scenarios\.loop_count\.seconds"):
        write_results(out, "cpu", {"loop_count": broken})
    assert out.read_bytes() == before  # nothing half-written
    assert [p.name for p in tmp_path.iterdir()] == ["cpu.json"]


def test_a_rerun_replaces_a_result_the_schema_has_outgrown(tmp_path, document):
    # The file holds a weight_cache result written before a field became required; a
    # re-run of weight_cache replaces it, a run of another scenario refuses to keep it.
    out = tmp_path / "cpu.json"
    outgrown = copy.deepcopy(document)
    del outgrown["scenarios"]["weight_cache"]["extra"]["memory"][0]["shared_mb"]
    out.write_text(json.dumps(outgrown), "utf-8")
    with pytest.raises(ResultsError, match=r"weight_cache\.extra\.memory\[0\]\.shared_mb"):
        write_results(out, "cpu", {"loop_count": document["scenarios"]["loop_count"]})
    write_results(out, "cpu", {"weight_cache": document["scenarios"]["weight_cache"]})
    assert load_results(tmp_path)["cpu"].scenarios == document["scenarios"]


def test_an_update_refuses_a_file_of_another_device(tmp_path, document):
    out = tmp_path / "cpu.json"
    out.write_text(json.dumps({**document, "device": "gpu"}), "utf-8")
    with pytest.raises(ResultsError, match="device: holds gpu results, not cpu"):
        write_results(out, "cpu", {"loop_count": document["scenarios"]["loop_count"]})


def test_scenario_extras_are_checked(document):
    del document["scenarios"]["weight_cache"]["extra"]["memory"][2]["shared_mb"]
    document["scenarios"]["loop_count"]["extra"] = {"anything": 1}
    errors = validate(document)
    assert "scenarios.weight_cache.extra.memory[2].shared_mb: missing field" in errors
    assert "scenarios.loop_count.extra: expected null for this scenario" in errors


def test_an_update_keeps_the_file_mode(results_dir, document):
    path = results_dir / "cpu.json"
    path.chmod(0o644)
    scenarios = {"predict_loop": document["scenarios"]["predict_loop"]}
    write_results(path, "cpu", scenarios)
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_writer_holds_the_folder_lock_from_reading_to_replacing(results_dir, document):
    """Deterministic: while a writer is between reading the file and replacing it, the
    folder's lock is taken (a non-blocking attempt fails), so a second writer waits and
    then merges into the first one's file instead of overwriting it."""
    import fcntl
    import os
    import threading

    from benchmarks import schema

    path = results_dir / "cpu.json"
    names = ["predict_loop", "loop_count"]
    fixture = json.loads(FIXTURE.read_text("utf-8"))["scenarios"]
    for name in names:
        del document["scenarios"][name]
    write(results_dir, document)
    inside, release = threading.Event(), threading.Event()
    real_load = schema._kept_scenarios

    def held_load(p, device):
        loaded = real_load(p, device)
        inside.set()
        release.wait(10)
        return loaded

    def lock_is_free() -> bool:
        folder = os.open(results_dir, os.O_RDONLY)
        try:
            fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(folder)

    schema._kept_scenarios = held_load
    try:
        first = threading.Thread(
            target=write_results, args=(path, "cpu", {names[0]: fixture[names[0]]})
        )
        first.start()
        assert inside.wait(10)
        assert not lock_is_free()  # held between the read and the replace
    finally:
        release.set()
        schema._kept_scenarios = real_load
    first.join(10)
    assert lock_is_free()
    write_results(path, "cpu", {names[1]: fixture[names[1]]})
    assert set(names) <= set(load_results(results_dir)["cpu"].scenarios)


def test_onednn_state_may_be_absent_but_must_be_text_when_recorded(results_dir, document):
    provenance = document["scenarios"]["predict_loop"]["provenance"]
    assert "onednn" not in provenance  # runs made before it was recorded stay valid
    load_results(results_dir)
    provenance["onednn"] = 1
    write(results_dir, document)
    assert "scenarios.predict_loop.provenance.onednn: expected text" in load_error(results_dir)
