"""Run the matrix: per entry, an isolated cached environment, every page, the package tests.

Each entry's environment is created by the repository's uv from a lock file of exact pins
(``verification/matrix/locks/<id>.txt``, compiled once by ``python -m verification.matrix
lock``) with an interpreter found on the machine (``UV_PYTHON_DOWNLOADS=never``). It is
cached under the cache folder by a key of lock, interpreter and uv version, so a warm run
installs nothing but the freshly built ``tf_retracing`` wheel (always ``--no-deps``: each
entry pins its own TensorFlow and Keras).

Pages run through ``verification/harness/standalone_runner.py``, copied outside the repository
and started with ``-I`` from a folder that holds none of it, one process per page, blocks
in page order, as in the fresh-install test. The package's tests run with pytest from a
copy of the test files, in the same environment.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import version as installed_version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from verification.harness.codeblocks import (
    ROOT,
    DocBlock,
    documented_pages,
    output_mismatch,
    page_blocks,
    page_environment,
)
from verification.matrix import schema
from verification.matrix.entries import (
    ENTRIES,
    PAGE_NEEDS,
    Entry,
    InterpreterNotFound,
    declared_tensorflow,
    interpreter,
)

UV = ROOT / ".tools" / "bin" / "uv"
LOCKS = Path(__file__).parent / "locks"
DEFAULT_CACHE = ROOT / ".cache" / "matrix"
PAGE_TIMEOUT = 900
TESTS_TIMEOUT = 2400
TEXT_LIMIT = 3000  # characters of output or error kept per block
# The package's own tests, and what they import from the repository besides tf_retracing.
PACKAGE_TESTS = (
    "tests/test_retrace_explainer.py",
    "tests/test_serving.py",
    "tests/test_explain_cli.py",
)
PACKAGE_TEST_SUPPORT = (
    "snippets/weight_swap_cache.py",
    "verification/harness/preloaded_python.py",
    "verification/harness/fixtures.py",
    "verification/explainer_corpus/runner.py",
    "verification/explainer_corpus/cases.py",
)
# The copies' conftest: the fixtures the package's tests ask for, as the repository's has.
PACKAGE_TEST_CONFTEST = "from verification.harness.fixtures import preloaded_python  # noqa: F401\n"
# The copies' pytest.ini: the repository's markers, and its selection (pyproject.toml).
PACKAGE_TEST_INI = (
    "[pytest]\naddopts = -ra --strict-markers -p no:cacheprovider -m 'not scheduled'\n"
    "markers =\n    slow: builds the site or runs a subprocess\n"
    "    scheduled: too long for make test; run weekly\n"
)
# Data the package's tests read beside themselves (tests/fixtures/...): copied under the
# same name next to the copied tests. Missing, a test of the package failed on every entry.
PACKAGE_TEST_FIXTURES = ("tests/fixtures/explain",)
# Installed beside TensorFlow to run those tests, at the versions the project locks.
TEST_TOOLS = ("pytest", "attrs")
PROBE = r"""
import json, sys, warnings
from importlib.metadata import version, PackageNotFoundError
def v(name):
    try:
        return version(name)
    except PackageNotFoundError:
        return None
tf = v("tensorflow-cpu") or v("tensorflow") or v("tf-nightly")
keras = v("keras") or v("keras-nightly")
out = {"python": sys.version.split()[0], "tensorflow": tf, "keras": keras,
       "numpy": v("numpy"), "tf_keras": v("tf-keras"), "tf_retracing": v("tf-retracing")}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        import tf_retracing
        out["import"] = {"status": "ok", "error": "",
                         "explainer_unavailable": tf_retracing.EXPLAINER_UNAVAILABLE}
    except BaseException as error:
        out["import"] = {"status": "failed", "error": f"{type(error).__name__}: {error}",
                         "explainer_unavailable": None}
out["import"]["warnings"] = sorted({f"{w.category.__name__}: {w.message}" for w in caught
                                    if "tf_retracing" in str(w.message)})
print(json.dumps(out))
"""

Progress = Callable[[str], None]


def _print_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def clip(text: str, limit: int = TEXT_LIMIT, keep_end: bool = False) -> str:
    if len(text) <= limit:
        return text
    marker = f"[... {len(text) - limit} characters cut ...]"
    return marker + "\n" + text[-limit:] if keep_end else text[:limit] + "\n" + marker


def uv_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["UV_PYTHON_DOWNLOADS"] = "never"
    return env


def uv(*args: str, timeout: int = 3600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(UV), *args], capture_output=True, text=True, env=uv_env(), timeout=timeout, cwd=ROOT
    )


class EnvironmentFailed(Exception):
    """An entry's environment cannot be created; the message is the installer's."""


# --- locks and environments -----------------------------------------------------------


def lock_path(entry: Entry) -> Path:
    return LOCKS / f"{entry.id}.txt"


def lock_input(entry: Entry) -> list[str]:
    return [*entry.requirements, *(f"{tool}=={installed_version(tool)}" for tool in TEST_TOOLS)]


def compile_lock(entry: Entry) -> str:
    """Resolve the entry's pins and everything they need to exact versions."""
    python = interpreter(entry.python)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "requirements.in"
        source.write_text("\n".join(lock_input(entry)) + "\n")
        proc = uv(
            "pip", "compile", "--python", str(python), "--no-header", "--no-annotate", str(source)
        )
    if proc.returncode != 0:
        raise EnvironmentFailed(proc.stderr.strip() or f"uv pip compile exited {proc.returncode}")
    header = (
        f"# Exact pins of the matrix entry {entry.id}, from: {' '.join(lock_input(entry))}\n"
        "# Regenerate with: python -m verification.matrix lock\n"
    )
    return header + proc.stdout


def write_lock(entry: Entry) -> Path:
    path = lock_path(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(compile_lock(entry))
    return path


def environment_key(entry: Entry, lock: str, python: Path) -> str:
    material = json.dumps(
        {
            "lock": lock,
            "python": os.path.realpath(python),
            "uv": uv("--version").stdout.strip(),
            "env": entry.env,
        },
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()[:12]


@dataclass
class Environment:
    python: Path  # the environment's interpreter
    cached: bool
    seconds: float


def ensure_environment(entry: Entry, cache: Path, progress: Progress) -> Environment:
    """The entry's environment, created unless a complete one with the same key exists."""
    start = time.monotonic()
    try:
        base = interpreter(entry.python)
    except InterpreterNotFound as error:
        raise EnvironmentFailed(str(error)) from error
    path = lock_path(entry)
    if path.exists():
        lock = path.read_text()
    else:
        progress(f"   no lock file for {entry.id}: resolving its pins")
        lock = compile_lock(entry)
    folder = cache / f"{entry.id}-{environment_key(entry, lock, base)}"
    python = folder / "bin" / "python"
    stamp = folder / ".complete"
    for stale in cache.glob(f"{entry.id}-*"):
        if stale != folder and stale.name[len(entry.id) + 1 :].isalnum():
            shutil.rmtree(stale, ignore_errors=True)
    if stamp.exists():
        return Environment(python, True, time.monotonic() - start)
    shutil.rmtree(folder, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    progress(f"   creating {folder.name} with {base}")
    created = uv("venv", "--no-project", "--python", str(base), str(folder))
    if created.returncode != 0:
        raise EnvironmentFailed(created.stderr.strip())
    requirements = folder / "requirements.txt"
    requirements.write_text(lock)
    installed = uv("pip", "install", "--python", str(python), "-r", str(requirements))
    if installed.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise EnvironmentFailed(installed.stderr.strip())
    stamp.write_text(lock)
    return Environment(python, False, time.monotonic() - start)


# --- the work shared by every entry -----------------------------------------------------


@dataclass
class Workspace:
    folder: Path  # outside the repository; pages run from here
    runner: Path
    blocks_file: Path
    pages: dict[str, list[DocBlock]]
    wheel: Path
    tests: Path  # a copy of the package's tests and what they import


def build_wheel(out: Path) -> Path:
    code = "import sys, hatchling.build as b; print(b.build_wheel(sys.argv[1]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(out)], cwd=ROOT, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"building the tf_retracing wheel failed:\n{proc.stderr}")
    return out / proc.stdout.strip().splitlines()[-1]


def prepare(folder: Path, page_names: Sequence[str] | None = None) -> Workspace:
    pages = {}
    for page in documented_pages():
        name = page.relative_to(ROOT).as_posix()
        if page_names is None or name in page_names:
            pages[name] = page_blocks(page)
    blocks_file = folder / "blocks.json"
    # A block the page marks "Not run:" is replaced by an empty one, so the indices hold.
    blocks_file.write_text(
        json.dumps({n: ["" if b.not_run_reason else b.code for b in bs] for n, bs in pages.items()})
    )
    runner = folder / "standalone_runner.py"
    shutil.copy(ROOT / "verification" / "harness" / "standalone_runner.py", runner)
    (folder / "dist").mkdir()
    wheel = build_wheel(folder / "dist")
    tests = copy_package_tests(folder / "package-tests")
    work = folder / "pages-cwd"
    work.mkdir()
    return Workspace(work, runner, blocks_file, pages, wheel, tests)


def copy_package_tests(tests: Path) -> Path:
    """The package's tests, with what they import from the repository and a pytest.ini and
    conftest.py of their own, into ``tests``: runnable there by an entry's pytest."""
    tests.mkdir(parents=True, exist_ok=True)
    for relative in PACKAGE_TESTS:
        shutil.copy(ROOT / relative, tests / Path(relative).name)
    for relative in PACKAGE_TEST_FIXTURES:
        shutil.copytree(ROOT / relative, tests / Path(relative).relative_to("tests"))
    for relative in PACKAGE_TEST_SUPPORT:  # importable as in the repository
        (tests / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, tests / relative)
    (tests / "pytest.ini").write_text(PACKAGE_TEST_INI)
    (tests / "conftest.py").write_text(PACKAGE_TEST_CONFTEST)
    return tests


# --- one entry --------------------------------------------------------------------------


def run_env(entry: Entry) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(entry.env)
    return env


def probe(python: Path, entry: Entry, cwd: Path) -> dict:
    proc = subprocess.run(
        [str(python), "-I", "-c", PROBE],
        capture_output=True,
        text=True,
        env=run_env(entry),
        cwd=cwd,
        timeout=600,
    )
    if proc.returncode != 0:
        raise EnvironmentFailed(
            f"the environment's Python failed:\n{clip(proc.stderr, keep_end=True)}"
        )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def classify(block: DocBlock, result: dict) -> dict:
    """One block's outcome in the results file's vocabulary."""
    output = clip(result.get("output", ""))
    if block.not_run_reason is not None:
        return {"status": "not-applicable", "output": "", "error": block.not_run_reason}
    if result["status"] == "blocked":  # never ran: a block above it raised
        return {"status": "not-applicable", "output": "", "error": schema.STOPPED}
    if result["status"] != "passed":
        return {
            "status": "failed",
            "output": output,
            "error": clip(result.get("error", ""), keep_end=True),
        }
    if output_mismatch(block, result["output"]) is not None:
        return {"status": "differs", "output": output, "error": ""}
    return {"status": "passed", "output": output, "error": ""}


def run_page(python: Path, entry: Entry, work: Workspace, name: str) -> dict:
    blocks = work.pages[name]
    if not blocks:
        return {"error": "", "blocks": []}
    try:
        proc = subprocess.run(
            [str(python), "-I", str(work.runner), "--page", str(work.blocks_file), name],
            cwd=work.folder,
            capture_output=True,
            text=True,
            # What the page tells its reader to set before Python starts; the setup's own
            # variables (the condition it tests) win.
            env={**page_environment(ROOT / name), **run_env(entry)},
            timeout=PAGE_TIMEOUT,
        )
        ran = json.loads(proc.stdout)
        error = ""
    except subprocess.TimeoutExpired:
        ran, error = [], f"the page did not finish in {PAGE_TIMEOUT} s"
    except ValueError:
        ran = []
        error = clip(
            f"the page's process exited with status {proc.returncode}:\n{proc.stderr}",
            keep_end=True,
        )
    results = [classify(block, result) for block, result in zip(blocks, ran, strict=False)]
    for block in blocks[len(results) :]:
        reason = schema.STOPPED if not error else "the page did not finish"
        if block.not_run_reason is not None:
            reason = block.not_run_reason
        results.append({"status": "not-applicable", "output": "", "error": reason})
    return {"error": error, "blocks": results}


def page_not_run(blocks: Sequence[DocBlock], needs: str) -> dict:
    """The record of a page this entry cannot run: it lacks the distribution `needs`."""
    reason = f"needs {needs}, which this entry does not install"
    not_run = {"status": "not-applicable", "output": "", "error": reason}
    return {"error": "", "needs": needs, "blocks": [dict(not_run) for _ in blocks]}


def junit_summary(report: Path) -> dict:
    root = ET.parse(report).getroot()
    cases = root.iter("testcase")
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failures = []
    for case in cases:
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            counts["failed"] += 1
            failures.append(
                {
                    "test": f"{case.get('classname')}::{case.get('name')}",
                    "message": clip(failure_line(problem), 300),
                }
            )
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return {**counts, "failures": failures}


def failure_line(problem: ET.Element) -> str:
    """The line that says what went wrong: pytest's message, or for a module that could
    not even be collected (message "collection failure"), its exception line."""
    message = (problem.get("message") or "").strip()
    if message and message != "collection failure":
        return message.splitlines()[0]
    lines = [line.strip() for line in (problem.text or "").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("E ")]
    return (errors[-1][1:].strip() if errors else lines[-1] if lines else message) or "failed"


def run_package_tests(python: Path, entry: Entry, work: Workspace, out: Path) -> dict:
    start = time.monotonic()
    report = out / f"{entry.id}-junit.xml"
    try:
        proc = subprocess.run(
            [
                str(python),
                "-I",
                "-m",
                "pytest",
                "-q",
                "--continue-on-collection-errors",
                f"--junitxml={report}",
                ".",
            ],
            cwd=work.tests,
            capture_output=True,
            text=True,
            env=run_env(entry),
            timeout=TESTS_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return {
            "status": "failed",
            "passed": 0,
            "failed": 0,
            "skipped": 0,
            "failures": [{"test": "", "message": f"timed out after {TESTS_TIMEOUT} s"}],
            "seconds": round(time.monotonic() - start, 1),
        }
    if report.exists():
        summary = junit_summary(report)
    else:
        summary = {
            "passed": 0,
            "failed": 0,
            "skipped": 0,
            "failures": [
                {"test": "", "message": clip(proc.stdout + proc.stderr, 600, keep_end=True)}
            ],
        }
    status = "passed" if proc.returncode == 0 and not summary["failed"] else "failed"
    return {"status": status, **summary, "seconds": round(time.monotonic() - start, 1)}


def declared_support(tensorflow: str) -> bool:
    """Whether the package's tested TensorFlow range admits this release."""
    return Requirement(declared_tensorflow()).specifier.contains(tensorflow, prereleases=True)


def provenance(command: str) -> dict:
    def git(*args: str) -> str:
        proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    if git("status", "--porcelain", "--", ".", ":!verification/matrix/results.json"):
        commit += "+uncommitted-changes"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "command": command,
        "machine": f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} cores",
        "uv": uv("--version").stdout.strip(),
    }


def run_entry(
    entry: Entry,
    work: Workspace,
    cache: Path,
    started_from: dict,
    jobs: int,
    progress: Progress,
    run_tests: bool = True,
) -> dict:
    start = time.monotonic()
    record: dict = {
        "id": entry.id,
        "label": entry.label,
        "requirements": entry.requirements,
        "env": dict(entry.env),
        "provenance": started_from,
        "declared_support": declared_support(entry.tensorflow),
    }
    try:
        environment = ensure_environment(entry, cache, progress)
        progress(
            f"   environment {'reused from the cache' if environment.cached else 'created'} "
            f"in {environment.seconds:.0f} s"
        )
        installed = uv(
            "pip",
            "install",
            "--python",
            str(environment.python),
            "--no-deps",
            "--reinstall",
            str(work.wheel),
        )
        if installed.returncode != 0:
            raise EnvironmentFailed(installed.stderr.strip())
        versions = probe(environment.python, entry, work.folder)
    except (EnvironmentFailed, subprocess.TimeoutExpired) as error:
        progress(f"   environment failed: {str(error).splitlines()[-1] if str(error) else ''}")
        record.update(
            environment={
                "status": "failed",
                "message": clip(str(error), keep_end=True),
                "cached": False,
                "seconds": round(time.monotonic() - start, 1),
            },
            versions=None,
            package=None,
            pages={},
            seconds=round(time.monotonic() - start, 1),
        )
        return record
    record["environment"] = {
        "status": "ok",
        "message": "",
        "cached": environment.cached,
        "seconds": round(environment.seconds, 1),
    }
    package_import = versions.pop("import")
    record["versions"] = versions
    freeze = uv("pip", "freeze", "--python", str(environment.python))
    record["installed"] = [line for line in freeze.stdout.splitlines() if "==" in line]
    progress(
        f"   TensorFlow {versions['tensorflow']}, Keras {versions['keras']}, "
        f"NumPy {versions['numpy']}, Python {versions['python']}; "
        f"import tf_retracing: {package_import['status']}"
    )
    names = list(work.pages)
    installed = {canonicalize_name(line.split("==")[0]) for line in record["installed"]}
    pages: dict[str, dict] = {
        name: page_not_run(work.pages[name], PAGE_NEEDS[name])
        for name in names
        if name in PAGE_NEEDS and canonicalize_name(PAGE_NEEDS[name]) not in installed
    }
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {
            pool.submit(run_page, environment.python, entry, work, n): n
            for n in names
            if n not in pages
        }
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            name = futures[future]
            pages[name] = future.result()
            counts = count_statuses(pages[name]["blocks"])
            summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no blocks"
            progress(f"   page {done}/{len(futures)} {name}: {summary}")
    record["pages"] = {name: pages[name] for name in names}
    if run_tests:
        progress("   package tests ...")
        tests = run_package_tests(environment.python, entry, work, work.folder.parent)
        progress(
            f"   package tests {tests['status']}: {tests['passed']} passed, "
            f"{tests['failed']} failed, {tests['skipped']} skipped ({tests['seconds']:.0f} s)"
        )
    else:
        tests = {
            "status": "not-run",
            "passed": 0,
            "failed": 0,
            "skipped": 0,
            "failures": [],
            "seconds": 0.0,
        }
    record["package"] = {"import": package_import, "tests": tests}
    record["seconds"] = round(time.monotonic() - start, 1)
    return record


def count_statuses(blocks: list[dict]) -> dict[str, int]:
    counts = dict.fromkeys(schema.BLOCK_STATUSES, 0)
    for block in blocks:
        counts[block["status"]] += 1
    return counts


# --- the whole run ----------------------------------------------------------------------


def kept_entries(out: Path, pages: dict[str, list[DocBlock]], progress: Progress) -> dict:
    """The entries of an earlier run, if it ran these very pages (same blocks, same shown
    outputs); otherwise none, since a result is only worth keeping for the block it ran."""
    if not out.exists():
        return {}
    try:
        previous = schema.read_document(out)
    except schema.ResultsError as error:
        progress(f"   ignoring the earlier results: {error}")
        return {}
    now = schema.document([], pages, ENTRIES)["pages"]
    changed = sorted(
        n for n in previous["pages"].keys() | now.keys() if previous["pages"].get(n) != now.get(n)
    )
    if changed:
        progress(f"   not keeping the earlier results: changed since: {', '.join(changed)}")
        return {}
    return {entry["id"]: entry for entry in previous["entries"]}


def run(
    entries: Sequence[Entry] = ENTRIES,
    out: Path = schema.RESULTS_FILE,
    cache: Path = DEFAULT_CACHE,
    jobs: int = 1,
    command: str = "python -m verification.matrix run",
    progress: Progress = _print_progress,
    run_tests: bool = True,
    page_names: Sequence[str] | None = None,
) -> dict:
    """Run ``entries`` and merge them into ``out`` (entries not run keep their results).

    The file is rewritten after every entry, each time checked against the schema first;
    until every declared entry is in it, it says ``"complete": false``.
    """
    started = time.monotonic()
    # Taken once, at the start: the commit whose pages and package every entry ran.
    origin = provenance(command)
    with tempfile.TemporaryDirectory(prefix="tf-retracing-matrix-") as tmp:
        work = prepare(Path(tmp), page_names)
        kept = kept_entries(out, work.pages, progress)
        progress(
            f">> matrix: {len(entries)} entries, {len(work.pages)} pages, "
            f"{sum(len(b) for b in work.pages.values())} blocks; cache {cache}"
        )
        for number, entry in enumerate(entries, 1):
            progress(f"[{number}/{len(entries)}] {entry.id} ({', '.join(entry.requirements)})")
            kept[entry.id] = run_entry(entry, work, cache, origin, jobs, progress, run_tests)
            progress(f"   {entry.id} done in {kept[entry.id]['seconds']:.0f} s")
            document = schema.document(
                [kept[e.id] for e in ENTRIES if e.id in kept], work.pages, ENTRIES
            )
            schema.write_document(out, document)
    progress(f">> matrix finished in {time.monotonic() - started:.0f} s; results in {out}")
    return document
