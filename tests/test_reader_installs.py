"""The wheel installed the way the Install page says, into the environments readers have.

Each environment is made fresh (``uv venv --seed``, then the reader's own packages from uv's
cache), and the wheel is installed with that environment's ``pip``, by the exact lines the
Install page shows, pointed at the built site served on localhost. In every environment
the distributions present before must be present after at the same version (TensorFlow
and Keras above all), the package must add at most ``MAX_ADDED_BYTES``, and the tools must
work there or say in one message why not (``PROBE``).
"""

from __future__ import annotations

import functools
import html
import http.server
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from tf_retracing._site import SITE_URL

from verification.harness.codeblocks import ROOT
from verification.matrix.entries import NIGHTLY, InterpreterNotFound, interpreter

# Eight environments made and installed into: minutes, so weekly (CONTRIBUTING.md).
pytestmark = [pytest.mark.slow, pytest.mark.scheduled]

UV = ROOT / ".tools" / "bin" / "uv"
MAX_ADDED_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class ReaderEnvironment:
    id: str
    python: str  # minor version, found on this machine
    packages: tuple[str, ...]  # what the reader had before installing the tools
    expect: str  # what the tools do there (see PROBE): full, counting, no-tensorflow
    keras2_model: bool = False  # probe SharedGraphPredictor with a tf-keras model


ENVIRONMENTS = (
    ReaderEnvironment("tensorflow-cpu-2.21", "3.12", ("tensorflow-cpu==2.21.0",), "full"),
    ReaderEnvironment("tf-nightly", "3.12", (f"tf-nightly=={NIGHTLY.tensorflow}",), "counting"),
    ReaderEnvironment("tensorflow-2.15", "3.11", ("tensorflow==2.15.1",), "counting"),
    ReaderEnvironment(
        "tensorflow-2.21-tf-keras",
        "3.12",
        ("tensorflow==2.21.0", "tf-keras==2.21.0"),
        "full",
        keras2_model=True,
    ),
    *(
        ReaderEnvironment(f"no-tensorflow-py{python}", python, (), "no-tensorflow")
        for python in ("3.10", "3.11", "3.12", "3.13")
    ),
)

# Run in each environment after the install: the version, the linter with a project's
# settings, then what the TensorFlow tools do. Prints one JSON object.
PROBE = r"""
import json, subprocess, sys, warnings, pathlib
out = {}
bin_dir = pathlib.Path(sys.executable).parent
version = subprocess.run([str(bin_dir / "tf-retracing"), "--version"], capture_output=True,
                         text=True)
out["version"] = version.stdout.strip()
lint = subprocess.run([str(bin_dir / "tf-retracing"), "lint", "hazard.py"], capture_output=True,
                      text=True)
out["lint"] = [lint.returncode, lint.stdout.split(" ")[1] if lint.stdout else lint.stderr]
out["tensorflow_after_lint"] = "tensorflow" in sys.modules
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        from tf_retracing import explain_retracing
    except ModuleNotFoundError as error:
        out["explain"] = ["ModuleNotFoundError", str(error)]
    else:
        import tensorflow as tf
        @explain_retracing
        def double(x):
            return x * 2
        double(tf.ones([2]))
        double(tf.ones([3]))
        out["explain"] = [reason.kind for reason in double.retrace_reasons]
out["warnings"] = [str(w.message) for w in caught if "tf_retracing" in str(w.message)]
if "tensorflow" in sys.modules:
    from tf_retracing import SharedGraphPredictor
    try:
        if len(sys.argv) > 1:
            import tf_keras as k
        else:
            import keras as k
        model = k.Sequential([k.Input((3,)), k.layers.Dense(2)])
        SharedGraphPredictor().predict(model, tf.ones([1, 3]))
        out["serving"] = "ok"
    except (TypeError, RuntimeError) as error:
        out["serving"] = f"{type(error).__name__}: {error}"
print(json.dumps(out))
"""

HAZARD = """\
import tensorflow as tf


@tf.function
def step(x):
    return x


for i in range(3):
    step(i)
"""


def _install_lines(wheel_name: str, base: str):
    """The Install page's lines, from the hook that writes them into the page."""
    path = ROOT / "docs" / "hooks" / "package_wheel.py"
    spec = importlib.util.spec_from_file_location("package_wheel_lines", path)
    hook = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = hook  # its dataclasses look their module up there
    spec.loader.exec_module(hook)
    wheel = hook.Wheel(wheel_name, b"")
    return {line.reader: line.command for line in hook.install_lines(wheel, base)}


@pytest.fixture(scope="module")
def served_site(built_site):
    """The built site on localhost, as a reader's pip reaches the published one."""
    handler = functools.partial(QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _run(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: int = 600):
    clean = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    clean.update(UV_PYTHON_DOWNLOADS="never", PIP_DISABLE_PIP_VERSION_CHECK="1")
    clean.update(env or {})
    return subprocess.run(
        list(args), cwd=cwd, env=clean, capture_output=True, text=True, timeout=timeout
    )


def _ok(proc) -> str:
    assert proc.returncode == 0, f"{proc.args}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _fresh_environment(environment: ReaderEnvironment, folder: Path) -> Path:
    try:
        base = interpreter(environment.python)
    except InterpreterNotFound as error:
        pytest.fail(f"{environment.id}: {error}")
    _ok(_run(str(UV), "venv", "-q", "--seed", "--no-project", "--python", str(base), str(folder)))
    python = folder / "bin" / "python"
    if environment.packages:
        _ok(_run(str(UV), "pip", "install", "-q", "--python", str(python), *environment.packages))
    return python


# What an environment holds, read by its own interpreter in one start: each installed
# distribution's version (what `pip list` shows, without pip's own start-up) and the bytes
# of its site-packages folder (links not followed).
INVENTORY = r"""
import importlib.metadata, json, os, sysconfig
root = sysconfig.get_paths()["purelib"]
size = 0
for folder, _, files in os.walk(root):
    for name in files:
        path = os.path.join(folder, name)
        if not os.path.islink(path):
            size += os.path.getsize(path)
versions = {d.metadata["Name"].lower(): d.version for d in importlib.metadata.distributions()}
print(json.dumps({"distributions": versions, "bytes": size}))
"""


def _inventory(python: Path) -> tuple[dict[str, str], int]:
    """The environment's distributions (lower-case name -> version) and site-packages size."""
    found = json.loads(_ok(_run(str(python), "-I", "-c", INVENTORY)))
    return found["distributions"], found["bytes"]


def _pip_line(python: Path, line: str) -> list[str]:
    """A page's `pip install ...` line, run with this environment's pip."""
    words = line.removeprefix("%").split()
    assert words[:2] == ["pip", "install"], line
    rest = line.removeprefix("%").split(maxsplit=2)[2]
    # The one quoted argument the page uses ("name[extra] @ url") stays one argument.
    args = [rest.strip('"')] if rest.startswith('"') else rest.split()
    return [str(python), "-m", "pip", "install", *args]


@pytest.fixture(scope="module")
def wheel_name(built_site) -> str:
    (wheel,) = sorted((built_site / "downloads").glob("tf_retracing-*.whl"))
    return wheel.name


def test_the_install_page_shows_each_line_the_tests_run(built_site, wheel_name):
    page = (built_site / "install" / "index.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))  # highlighting splits code in spans
    for reader, command in _install_lines(wheel_name, SITE_URL).items():
        assert f"{reader}." in text and command in text, reader


@pytest.mark.parametrize("environment", ENVIRONMENTS, ids=lambda e: e.id)
def test_installing_leaves_the_readers_packages_as_they_were(
    environment, served_site, wheel_name, tmp_path
):
    python = _fresh_environment(environment, tmp_path / "venv")
    before, size_before = _inventory(python)
    lines = _install_lines(wheel_name, served_site)
    by_file = lines["This exact release, from its file"]
    # Python 3.10 needs tomli, which only the file line (dependencies from PyPI) finds;
    # the index lines (a shell's and a notebook cell's) are for 3.11 and newer.
    # A notebook cell's `%pip install` runs the shell's line: each distinct command once.
    by_index = list(
        dict.fromkeys(line.removeprefix("%") for line in lines.values() if "--index-url" in line)
    )
    chosen = [by_file] if environment.python == "3.10" else [*by_index, by_file]
    for number, line in enumerate(chosen, 1):
        _ok(_run(*_pip_line(python, line)))
        after, size_after = _inventory(python)
        changed = {n: (v, after.get(n)) for n, v in before.items() if after.get(n) != v}
        assert not changed, f"{line} changed {changed}"
        added = set(after) - set(before)
        allowed = {"tf-retracing"} | ({"tomli"} if environment.python == "3.10" else set())
        assert "tf-retracing" in added and added <= allowed, f"{line} added {added}"
        assert size_after - size_before <= MAX_ADDED_BYTES
        if number < len(chosen):  # the tools are checked as the last line installed them
            _ok(_run(str(python), "-m", "pip", "uninstall", "-y", "tf-retracing"))
    _check_the_tools(environment, python, tmp_path)


def _probe(environment, python: Path, cwd: Path, env: dict | None = None) -> dict:
    args = ["keras2"] if environment.keras2_model else []
    probe = _run(str(python), "-I", "-c", PROBE, *args, cwd=cwd, env=env)
    _ok(probe)
    return json.loads(probe.stdout.strip().splitlines()[-1])


def _check_the_tools(environment: ReaderEnvironment, python: Path, folder: Path) -> None:
    (folder / "hazard.py").write_text(HAZARD)
    (folder / "pyproject.toml").write_text('[tool.tf-retracing.lint]\nignore = ["TFL004"]\n')
    result = _probe(environment, python, folder)
    import tf_retracing

    assert result["version"] == f"tf-retracing {tf_retracing.__version__}"
    assert result["lint"] == [1, "TFL003"]
    assert result["tensorflow_after_lint"] is False
    if environment.expect == "no-tensorflow":
        kind, message = result["explain"]
        assert kind == "ModuleNotFoundError" and "'tf-retracing[tensorflow]'" in message
        return
    if environment.expect == "full":
        assert (result["explain"], result["warnings"]) == (["shape"], [])
    else:
        assert result["explain"] == ["unknown"]
        (warning,) = result["warnings"]
        assert "outside the tested range 2.16 to 2.21" in warning
        assert "TF_RETRACING_ALLOW_UNTESTED=1" in warning
    if environment.keras2_model:
        assert result["serving"].startswith("TypeError: SharedGraphPredictor needs a Keras 3")
    elif environment.id == "tensorflow-2.15":
        assert result["serving"].startswith("RuntimeError: SharedGraphPredictor needs Keras 3")
    else:
        assert result["serving"] == "ok"
    if environment.id == "tf-nightly":  # the opt-in runs the full explainer there
        opted = _probe(environment, python, folder, {"TF_RETRACING_ALLOW_UNTESTED": "1"})
        assert opted["explain"] == ["shape"]
        (warning,) = opted["warnings"]
        assert warning.endswith("running the full explainer because TF_RETRACING_ALLOW_UNTESTED=1")


def test_the_tensorflow_extra_installs_a_tested_tensorflow(served_site, wheel_name, tmp_path):
    """The "No TensorFlow yet" line, resolved by pip in an environment without TensorFlow
    (a dry run: pip resolves it against PyPI and reports what it would install)."""
    python = _fresh_environment(ReaderEnvironment("bare", "3.12", (), ""), tmp_path / "venv")
    line = _install_lines(wheel_name, served_site)["No TensorFlow yet"]
    report = tmp_path / "report.json"
    _ok(_run(*_pip_line(python, line), "--dry-run", "--quiet", "--report", str(report)))
    planned = {
        item["metadata"]["name"].lower(): item["metadata"]["version"]
        for item in json.loads(report.read_text())["install"]
    }
    assert "tf-retracing" in planned
    major, minor = (int(p) for p in planned["tensorflow"].split(".")[:2])
    assert (2, 16) <= (major, minor) <= (2, 21)
    assert planned.get("keras", "3").split(".")[0] == "3"  # Keras 3, with TensorFlow 2.16+


def test_the_serve_extra_installs_ray_serve_from_pypi(served_site, wheel_name, tmp_path):
    """The Ray Serve page's line, resolved by pip in an environment without TensorFlow (a
    dry run): the wheel from the site and Ray from PyPI, and no TensorFlow with them."""
    python = _fresh_environment(ReaderEnvironment("bare", "3.12", (), ""), tmp_path / "venv")
    line = _install_lines(wheel_name, served_site)["For the Ray Serve example"]
    report = tmp_path / "report.json"
    _ok(_run(*_pip_line(python, line), "--dry-run", "--quiet", "--report", str(report)))
    planned = {
        item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]
    }
    assert {"tf-retracing", "ray"} <= planned
    assert "tensorflow" not in planned
