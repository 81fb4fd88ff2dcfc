"""Every benchmark scenario runs its quick profile in the suite (issue 44): a change to a
scenario, or to the code it measures, is exercised before its next full run. Timings are
left to the benchmark; what is pinned is structural: which variants exist, how many times
each traced, that the results validate, and that they record the hash of the code they ran."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks.code_hash import code_hash
from benchmarks.scenarios import NAMES
from benchmarks.schema import load_results
from verification.harness.codeblocks import ROOT

# Per scenario, per variant: the traces of one quick run (the same on every run: the
# streams are fixed, and traces do not depend on timing).
TRACES = {
    # filled from a quick run of each scenario; a scenario missing here fails below
}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_scenario_runs_its_quick_profile(name, tmp_path):
    out = tmp_path / "results" / "cpu.json"
    command = [sys.executable, "-m", "benchmarks", "run", "--quick", "--scenario", name]
    proc = subprocess.run(
        [*command, "--device", "cpu", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = load_results(out.parent)["cpu"].scenarios[name]  # validated as it loads
    traces = {variant["name"]: variant["traces"] for variant in result["variants"]}
    assert traces == TRACES[name]
    assert result["code_hash"] == code_hash(result["measured"])
    assert f"--scenario {name}" in result["provenance"]["command"]
