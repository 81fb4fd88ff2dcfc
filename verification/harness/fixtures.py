"""Pytest fixtures shared by the repository's tests and the copies of the package's tests
that the version matrix runs in each setup (verification/matrix/runner.py)."""

from __future__ import annotations

import pytest

from verification.explainer_corpus.runner import run_environment
from verification.harness.preloaded_python import PreloadedPython


@pytest.fixture(scope="session")
def preloaded_python():
    """One server per worker of interpreters forked after TensorFlow's import, for every
    module that runs the explainer on scripts (its CLI, its corpus, its advice applied): a
    module of its own cost one TensorFlow start more (about 4.5 CPU-seconds) per module
    and worker. Started in the environment the explainer corpus runs in, which the CLI
    tests' new interpreters share (runs compared with a new interpreter keep it honest)."""
    server = PreloadedPython(run_environment())
    yield server
    server.close()
