"""The declared list of environments the matrix runs, each with exact pins.

TensorFlow comes from the ``tensorflow-cpu`` wheels (every release here has them), which
are a fraction of the size of ``tensorflow``'s, except where a pin requires
``tensorflow``. The Python version is a minor version that must be found on the machine
(``interpreter``), never downloaded. The Keras pin of the
Keras 3 entries is the Keras a reader who installs that TensorFlow today gets.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.+-]*$")
KERAS3 = "3.15.1"


@dataclass(frozen=True)
class Entry:
    id: str  # stable, used in anchors and file names
    label: str  # how the site names the entry
    python: str  # minor version, e.g. "3.12"
    tensorflow: str  # exact release
    keras: str  # exact release of the `keras` distribution
    tensorflow_package: str = "tensorflow-cpu"
    extra: tuple[str, ...] = ()  # further exact pins, e.g. tf-keras
    env: dict[str, str] = field(default_factory=dict)
    keras_package: str = "keras"  # keras-nightly beside tf-nightly
    # An early warning (a nightly): shown as such on the Versions page, its failures never
    # fail a build or a test.
    early_warning: bool = False

    @property
    def minor(self) -> tuple[int, int]:
        major, minor = self.tensorflow.split(".")[:2]
        return int(major), int(minor)

    @property
    def legacy_keras(self) -> bool:
        return self.env.get("TF_USE_LEGACY_KERAS") == "1"

    @property
    def requirements(self) -> list[str]:
        return [
            f"{self.tensorflow_package}=={self.tensorflow}",
            f"{self.keras_package}=={self.keras}",
            *self.extra,
        ]


def _entry(version: str, python: str, keras: str, **kwargs) -> Entry:
    minor = ".".join(version.split(".")[:2])
    return Entry(
        id=f"tf{minor}",
        label=f"TF {minor}",
        python=python,
        tensorflow=version,
        keras=keras,
        **kwargs,
    )


# The nightly the matrix and the install tests use, pinned so that a run can be repeated;
# move both pins to the newest nightly when the matrix is re-run. It runs with the opt-in
# set, so the Versions page shows how the full explainer fares on the next release.
NIGHTLY = Entry(
    id="tf-nightly",
    label="tf-nightly (early warning)",
    python="3.12",
    tensorflow="2.23.0.dev20261026",
    keras="3.16.0.dev2026102704",
    tensorflow_package="tf-nightly",
    keras_package="keras-nightly",
    env={"TF_RETRACING_ALLOW_UNTESTED": "1"},
    early_warning=True,
)

ENTRIES: tuple[Entry, ...] = (
    _entry("2.13.1", "3.11", "2.13.1"),
    _entry("2.14.1", "3.11", "2.14.0"),
    _entry("2.15.1", "3.11", "2.15.0"),
    _entry("2.16.2", "3.12", KERAS3),
    _entry("2.17.1", "3.12", KERAS3),
    _entry("2.18.1", "3.12", KERAS3),
    _entry("2.19.1", "3.12", KERAS3),
    _entry("2.20.0", "3.12", KERAS3),
    _entry("2.21.0", "3.12", KERAS3),
    Entry(
        id="tf2.21-tf-keras",
        label="TF 2.21 + tf-keras",
        python="3.12",
        tensorflow="2.21.0",
        keras=KERAS3,
        # tf-keras requires the `tensorflow` distribution: with tensorflow-cpu beside it,
        # two wheels would write the same `tensorflow` folder.
        tensorflow_package="tensorflow",
        extra=("tf-keras==2.21.0",),
        env={"TF_USE_LEGACY_KERAS": "1"},
    ),
    NIGHTLY,
)


# Pages that need a distribution only some entries install. Elsewhere they are not run,
# and the Versions page says what they need instead of counting an ImportError.
PAGE_NEEDS: dict[str, str] = {
    "docs/guide/keras-2.md": "tf-keras",
    "docs/guide/serving-on-ray.md": "ray",
}


def declared_tensorflow(root: Path | None = None) -> str:
    """The TensorFlow requirement of the package's ``tensorflow`` extra: the tested range
    (TensorFlow itself is not a dependency; see pyproject.toml)."""
    import tomllib

    root = root or Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    (requirement,) = project["optional-dependencies"]["tensorflow"]
    return requirement


class InterpreterNotFound(LookupError):
    pass


def interpreter(python: str, pyenv_root: Path | None = None) -> Path:
    """A concrete interpreter of this minor version: $PYTHON<MAJOR><MINOR> or pyenv's."""
    variable = "PYTHON" + python.replace(".", "")
    if os.environ.get(variable):
        return Path(os.environ[variable])
    root = pyenv_root or Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = sorted(
        glob.glob(str(root / "versions" / f"{python}.*" / "bin" / f"python{python}")),
        key=lambda path: [int(p) if p.isdigit() else -1 for p in Path(path).parts[-3].split(".")],
    )
    if not found:
        raise InterpreterNotFound(
            f"no Python {python} under {root}/versions and ${variable} is not set"
        )
    return Path(found[-1])
