"""SharedGraphPredictor on the serving corpus (verification/serving_corpus): the results file
the Serving page renders is a run of this corpus at a committed state, every architecture
passed, and two of its architectures (the stale-Keras case and a subclass) run here."""

from __future__ import annotations

import keras
import pytest
import tensorflow as tf

from benchmarks.architectures import ARCHITECTURES
from benchmarks.code_hash import freshness
from verification.serving_corpus.results import read_results
from verification.serving_corpus.runner import run_architecture

MINIMUM_ARCHITECTURES = 15
BY_ID = {architecture.id: architecture for architecture in ARCHITECTURES}


def test_the_page_renders_a_passing_run_of_this_corpus():
    results = read_results()
    recorded = [row["id"] for row in results["architectures"]]
    assert recorded == list(BY_ID), "run python -m verification.serving_corpus run"
    assert len(recorded) >= MINIMUM_ARCHITECTURES
    assert "uncommitted" not in results["provenance"]["commit"]
    # ... of the code as it is now (the predictor and the corpus), by its hash
    assert freshness(results["provenance"]) is None, freshness(results["provenance"])
    # ... on the TensorFlow and Keras installed, so that an upgrade runs it again
    versions = {"tensorflow": tf.__version__, "keras": keras.__version__}
    assert {name: results["provenance"][name] for name in versions} == versions
    failed = [row["id"] for row in results["architectures"] if not row["passed"]]
    assert not failed
    routes = {row["route"] for row in results["architectures"]}
    assert routes == {"shared graph", "own function"}  # both routes are exercised


def test_stale_keras_state_is_seen_and_warned_in_the_corpus():
    row = next(r for r in read_results()["architectures"] if r["id"] == "tabular_normalization")
    assert row["stale_keras_models"] >= 1 and row["stale_unwarned"] == []


@pytest.mark.parametrize("architecture", ["tabular_normalization", "subclassed_functional"])
def test_architecture(architecture):
    result = run_architecture(BY_ID[architecture])
    assert result["passed"], result
