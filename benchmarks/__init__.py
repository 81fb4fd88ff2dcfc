"""The project's benchmarks: retracing scenarios, their runner, and the results renderer."""

from pathlib import Path

# The repository's root: the runner starts workers there and reads the git commit there.
ROOT = Path(__file__).resolve().parents[1]
