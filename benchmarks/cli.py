"""``python -m benchmarks``: list the scenarios, or run them and write a results file;
``python -m benchmarks stale``: the scenarios whose committed run is older than its code
(or recorded no code hash), run again with ``--rerun --out FILE`` (the scheduled checks
do this)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import ROOT
from benchmarks.code_hash import freshness
from benchmarks.lookup import headline_ratio
from benchmarks.measure import relative_half_width
from benchmarks.scenarios import SCENARIOS, runnable
from benchmarks.schema import DEVICES, RESULTS_DIR, ResultsError, write_results

HEADLINE_HALF_WIDTH = 0.10  # the full profile's target for every headline ratio


class RunFailed(Exception):
    pass


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="Measure the retracing scenarios."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the scenarios and whether they can run")
    stale = commands.add_parser(
        "stale",
        help="list the scenarios of a results file whose run is stale (older than its code, "
        "or without a code hash); with --rerun, run them again",
    )
    stale.add_argument(
        "--results",
        type=Path,
        default=RESULTS_DIR / "cpu.json",
        help="the results file to read (default: benchmarks/results/cpu.json)",
    )
    stale.add_argument("--rerun", action="store_true", help="run the stale scenarios again")
    stale.add_argument("--quick", action="store_true", help="with --rerun: few repetitions")
    stale.add_argument("--device", choices=["auto", *DEVICES], default="cpu")
    stale.add_argument("--out", type=Path, help="with --rerun: the results file to write")
    run = commands.add_parser("run", help="run scenarios and write a results file")
    run.add_argument("--quick", action="store_true", help="few repetitions (development)")
    run.add_argument(
        "--scenario",
        action="append",
        metavar="NAME",
        help="run only this scenario (repeatable); default: every runnable scenario",
    )
    run.add_argument("--device", choices=["auto", *DEVICES], default="auto")
    run.add_argument(
        "--out",
        type=Path,
        help="results file to write or update (default: benchmarks/results/DEVICE.json)",
    )
    args = parser.parse_args(argv)
    if args.command == "stale" and args.rerun and args.out is None:
        stale.error("--rerun needs --out: the new runs are reviewed before they replace any")
    if args.command == "stale" and args.out is not None:
        problem = out_problem(args.out, args.device)
        if problem:
            stale.error(problem)
    if args.command == "run":
        args.scenario = chosen_scenarios(run, args.scenario)
        problem = out_problem(args.out, args.device)
        if problem:
            run.error(problem)  # before any measurement: a long run is never lost at the end
    return args


def out_problem(out: Path | None, device: str) -> str | None:
    """Why ``--out`` cannot receive the results, or None; checked before measuring."""
    if out is None:
        return None
    if out.suffix != ".json":
        return f"--out {out}: a results file must end in .json"
    if out.resolve().parent == RESULTS_DIR.resolve():
        expected = {f"{d}.json" for d in DEVICES} if device == "auto" else {f"{device}.json"}
        if out.name not in expected:
            return (
                f"--out {out}: the results folder holds one file per device "
                f"({' or '.join(sorted(expected))}); a second file would break the site build"
            )
    if out.exists() and not out.is_file():
        return f"--out {out}: exists and is not a regular file"
    existing = out.absolute().parent
    while not existing.exists():  # missing folders are created when the file is written
        existing = existing.parent
    if not existing.is_dir():
        return f"--out {out}: {existing} is not a folder"
    if not os.access(existing, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        return f"--out {out}: not writable"
    return None


def chosen_scenarios(parser: argparse.ArgumentParser, requested: list[str] | None) -> list[str]:
    if not requested:
        return runnable()
    for name in requested:
        if name not in SCENARIOS:
            parser.error(f"unknown scenario {name!r}; choose from: {', '.join(SCENARIOS)}")
        missing = SCENARIOS[name].missing_requirements()
        if missing:
            parser.error(
                f"scenario {name!r} cannot run in this checkout: needs {', '.join(missing)}"
            )
    return list(dict.fromkeys(requested))


def stale_scenarios(document: dict, root: Path = ROOT) -> dict[str, str]:
    """Each scenario of a results document whose run is stale, with why."""
    return {
        name: state
        for name, result in document.get("scenarios", {}).items()
        if (state := freshness(result, root)) is not None
    }


def report_stale(args: argparse.Namespace) -> int:
    """Print the stale scenarios and how many; with ``--rerun``, run those this checkout
    can run into ``--out`` (never over the committed file: a reviewer compares first)."""
    try:
        document = json.loads(args.results.read_text("utf-8"))
    except (OSError, ValueError) as error:
        print(f"error: {args.results}: cannot be read: {error}", file=sys.stderr)
        return 1
    stale = stale_scenarios(document)
    for name, state in stale.items():
        print(f"stale: {name}: {state}")
    total = len(document.get("scenarios", {}))
    print(f"{len(stale)} of {total} scenarios in {args.results} are stale")
    if not args.rerun or not stale:
        return 0
    runnable_now = set(runnable())
    args.scenario = [name for name in stale if name in runnable_now]
    skipped = [name for name in stale if name not in runnable_now]
    if skipped:
        print(f"cannot run here (missing requirements): {', '.join(skipped)}")
    if not args.scenario:
        return 0
    print(f"running again: {', '.join(args.scenario)}", flush=True)
    run(args)
    return 0


def list_scenarios() -> None:
    for name, scenario in SCENARIOS.items():
        missing = scenario.missing_requirements()
        note = f"  (cannot run here: needs {', '.join(missing)})" if missing else ""
        print(f"{name:20} {scenario.title}{note}")


def worker_env(device: str, environment: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0", **dict(environment))
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = "-1"  # measure the CPU even where a GPU exists
    return env


def run_worker(name: str, args: argparse.Namespace, command: str, workdir: Path) -> dict:
    """Run one scenario in a fresh interpreter, showing its progress; return its result."""
    from tqdm import tqdm

    out = workdir / f"{name}.json"
    log = workdir / f"{name}.log"
    worker = [
        sys.executable, "-m", "benchmarks.worker", name,
        "--profile", "quick" if args.quick else "full",
        "--device", args.device, "--out", str(out), "--command", command,
    ]  # fmt: skip
    with log.open("w") as stderr, tqdm(desc=f"{name:18}", unit="run", leave=True) as bar:
        with _sigterm_held() as held:  # a SIGTERM inside Popen would orphan the worker
            proc = subprocess.Popen(
                worker, cwd=ROOT, env=worker_env(args.device, SCENARIOS[name].environment),
                stdout=subprocess.PIPE, stderr=stderr, text=True,
            )  # fmt: skip
        try:
            if held:  # now that `proc` exists, the cleanup below covers it
                os.kill(os.getpid(), signal.SIGTERM)
            for line in proc.stdout:
                if line.startswith("progress "):
                    done, total = map(int, line.split()[1:])
                    bar.total = total
                    bar.update(done - bar.n)
            proc.wait()
        finally:  # interrupted (Ctrl-C, SIGTERM): the worker goes too
            if proc.poll() is None:
                proc.terminate()
                proc.wait()
    if proc.returncode != 0 or not out.exists():
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise RunFailed(f"scenario {name} failed (exit {proc.returncode}):\n{tail}")
    return json.loads(out.read_text("utf-8"))


@contextlib.contextmanager
def _sigterm_held():
    """Record a SIGTERM instead of acting on it inside the block; yields the record (a
    list, non-empty if one came), for the caller to send it again once it can clean up."""
    held: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: held.append(signum))
    try:
        yield held
    finally:
        signal.signal(signal.SIGTERM, previous)


class Terminated(Exception):
    """SIGTERM, turned into an exception so that cleanup (worker, temp folder) runs."""


def _raise_terminated(signum, frame):
    raise Terminated(f"terminated by signal {signum}")


def _kept_elsewhere(results: dict) -> Path:
    """The run's results, written outside the results folder (which pages read whole)."""
    handle, name = tempfile.mkstemp(prefix="benchmark-results-", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        json.dump(results, file)
    return Path(name)


def run(args: argparse.Namespace) -> Path:
    command = shlex.join(["python", "-m", "benchmarks", *sys.argv[1:]])
    started = time.perf_counter()
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.scenario:
            results[name] = run_worker(name, args, command, Path(tmp))
    device = next(iter(results.values()))["provenance"]["device"]
    out = args.out or RESULTS_DIR / f"{device}.json"
    try:
        write_results(out, device, results)
    except ResultsError as error:  # keep the measurements: the run may have taken an hour
        kept = _kept_elsewhere(results)
        raise ResultsError(f"{error}\nthe measurements are kept in {kept}") from error
    minutes = (time.perf_counter() - started) / 60
    print(f"wrote {len(results)} scenario(s) to {out} in {minutes:.1f} min", file=sys.stderr)
    report_headlines(results)
    return out


def report_headlines(results: dict[str, dict]) -> None:
    """Print each headline ratio; flag intervals wider than the site's +-10% target."""
    for name, result in results.items():
        headline = headline_ratio(result)
        width = relative_half_width(headline)
        flag = "" if width <= HEADLINE_HALF_WIDTH else "  <- wider than +-10%: rerun when quiet"
        print(
            f"{name:18} {headline['variant']} vs {headline['baseline']} ({headline['pass']}): "
            f"{headline['median']:.3g}x, 95% CI {headline['ci_low']:.3g}-{headline['ci_high']:.3g}"
            f" (+-{100 * width:.1f}%){flag}",
            file=sys.stderr,
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "list":
        list_scenarios()
        return 0
    if args.command == "stale" and not args.rerun:
        return report_stale(args)
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        if args.command == "stale":
            return report_stale(args)
        run(args)
    except (RunFailed, ResultsError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except Terminated as error:
        print(f"error: {error}; the results file was not changed", file=sys.stderr)
        return 143
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0
