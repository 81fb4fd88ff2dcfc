"""Run a whole program under the retrace explainer: ``python -m tf_retracing.explain``.

``python -m tf_retracing.explain [options] [--] script.py [args]`` runs ``script.py`` as
``python script.py [args]`` would (its own ``sys.argv``, its folder first on the path,
``__name__ == "__main__"``, the same output, exit status, ``sys.exit`` message and
traceback), with every ``tf.function`` it creates watched. At exit the retracing report
goes to standard error, so the program's standard output is unchanged.

Options come before the script; everything after the script's name is the script's own.

- ``--guard log|raise``: after warm-up, a retrace logs its reason once per function on
  the ``retrace`` logger, or raises ``RetracingBudgetExceeded`` from the call that retraced.
- ``--warmup N``: the first N traces of each function are its warm-up (default 1, so every
  retrace counts); needs ``--guard``.
- ``--json PATH``: also write the report as versioned JSON to PATH (replaced atomically,
  at exit). A PATH that cannot be written stops here, before the script runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import platform
import runpy
import sys
import tempfile
import threading
import traceback

# TensorFlow is imported by the run, not here: --help, a bad option or a missing script
# answers at once instead of after TensorFlow's few seconds of start-up.
import tf_retracing
from tf_retracing.explainer_types import REPORT_SCHEMA_VERSION

PROG = "python -m tf_retracing.explain"
USAGE = f"usage: {PROG} [--guard log|raise] [--warmup N] [--json PATH] [--] script.py [args ...]"
HELP = f"""{USAGE}

Run script.py with every tf.function it creates watched; at exit, print the retracing
report to standard error. The script's output and exit status are unchanged.

options (before the script; what follows the script is its own):
  --guard log|raise  after warm-up, log each function's first retrace (log) or raise
                     RetracingBudgetExceeded from the call that retraced (raise)
  --warmup N         the first N traces of each function are its warm-up (default 1,
                     every retrace counts); needs --guard
  --json PATH        also write the report as JSON (schema_version {{version}}) to PATH
  --                 end of options: the next argument is the script
  -h, --help         show this help
  --version          print the version of tf-retracing"""
DEFAULT_WARMUP = 1


class UsageError(Exception):
    """Bad command-line options: one line for standard error, exit status 2."""


@dataclasses.dataclass
class Options:
    script: str
    args: list[str]
    guard: str | None = None
    warmup: int | None = None
    json_path: str | None = None  # absolute: the script may change directory


def main(argv: list[str] | None = None) -> int:
    """Run the script named in ``argv`` with its arguments; return the exit status Python
    would (2 for bad options, before the script runs)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        print(HELP.replace("{version}", str(REPORT_SCHEMA_VERSION)))
        return 0
    if argv[0] == "--version":
        print(f"tf-retracing {tf_retracing.__version__}")
        return 0
    try:
        options = parse_options(argv)
        json_target = _JsonTarget(options.json_path) if options.json_path else None
    except UsageError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    script = options.script
    missing = _missing_script(script)
    if missing is not None:
        if json_target is not None:
            json_target.discard()
        return missing
    try:
        return _run_watched(options, json_target)
    finally:
        if json_target is not None:
            json_target.discard()  # nothing left behind if the report was not written


def parse_options(argv: list[str]) -> Options:
    """Our options, up to the script's name or ``--``; the rest belongs to the script."""
    values: dict = {}
    index = 0
    while index < len(argv) and argv[index].startswith("-") and argv[index] != "-":
        arg = argv[index]
        index += 1
        if arg == "--":
            break
        name, has_value, value = arg.partition("=")
        if name not in ("--guard", "--warmup", "--json"):
            raise UsageError(f"unknown option {arg!r} (options go before the script)\n{USAGE}")
        if not has_value:
            if index == len(argv):
                raise UsageError(f"{name} needs a value\n{USAGE}")
            value, index = argv[index], index + 1
        if name in values:
            raise UsageError(f"{name} given twice")
        values[name] = value
    if index == len(argv):
        raise UsageError(f"no script given\n{USAGE}")
    options = Options(script=argv[index], args=argv[index + 1 :])
    if "--guard" in values:
        if values["--guard"] not in ("log", "raise"):
            raise UsageError(f"--guard must be 'log' or 'raise', got {values['--guard']!r}")
        options.guard = values["--guard"]
    if "--warmup" in values:
        if options.guard is None:
            raise UsageError("--warmup needs --guard log or --guard raise")
        text = values["--warmup"]
        if not (text.isascii() and text.isdigit()):
            raise UsageError(f"--warmup must be a whole number of traces >= 0, got {text!r}")
        options.warmup = int(text)
    elif options.guard is not None:
        options.warmup = DEFAULT_WARMUP
    if "--json" in values:
        if not values["--json"]:
            raise UsageError("--json needs a file path")
        options.json_path = os.path.abspath(values["--json"])
    return options


def _missing_script(script: str) -> int | None:
    """The status Python exits with when ``script`` cannot be run, after its message."""
    if os.path.isdir(script):  # python runs a folder's __main__.py; this tool does not
        print(f"tf_retracing.explain: {script!r} is a directory, not a script", file=sys.stderr)
        return 1
    if not os.path.isfile(script):
        print(
            f"tf_retracing.explain: can't open file {script!r}: No such file or directory",
            file=sys.stderr,
        )
        return 2
    return None


def _run_watched(options: Options, json_target: _JsonTarget | None) -> int:
    script = options.script
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *options.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        if tf_retracing.EXPLAINER_UNAVAILABLE is not None:
            print(
                f"tf_retracing.explain: {tf_retracing.EXPLAINER_UNAVAILABLE}; running the "
                "program without the explainer" + (" (no guard)" if options.guard else ""),
                file=sys.stderr,
            )
            status = _run(os.path.abspath(script))
            if json_target is not None:
                json_target.write(_json_report(options, status, None, None))
            return status
        with tf_retracing.watch_every_tf_function() as watches, _guard(options) as guard:
            status = 1  # if the run is interrupted below Python's own handling
            try:
                status = _run(os.path.abspath(script))
            finally:
                _print_report(script, watches, guard)
                if json_target is not None:
                    json_target.write(_json_report(options, status, watches, guard))
        return status
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def _guard(options: Options):
    if options.guard is None:
        return contextlib.nullcontext()
    return tf_retracing.guard_retracing(action=options.guard, warmup=options.warmup)


def _print_report(script: str, watches: list, guard) -> None:
    print(f"\n== retracing report for {script} ==", file=sys.stderr)
    print(
        tf_retracing.report(watches) if watches else "no tf.function was created", file=sys.stderr
    )
    if guard is not None:
        print(
            f"\nguard ({guard.action}, warm-up {guard.warmup} trace"
            f"{'' if guard.warmup == 1 else 's'} per function): "
            f"{len(guard.reasons)} retrace{'' if len(guard.reasons) == 1 else 's'} after warm-up",
            file=sys.stderr,
        )


def _json_report(options: Options, status: int, watches: list | None, guard) -> dict:
    """Everything in the printed report, plus what ran where, as plain data."""
    import tensorflow as tf  # already imported: the run needed it

    if watches is None:  # the explainer is unavailable on this TensorFlow
        data = {"schema_version": REPORT_SCHEMA_VERSION, "functions": []}
    else:
        data = tf_retracing.report_data(watches)
    return {
        "schema_version": data["schema_version"],
        "script": options.script,
        "args": options.args,
        "exit_status": status,
        "explainer_unavailable": tf_retracing.EXPLAINER_UNAVAILABLE,
        "versions": {
            "tf_retracing": tf_retracing.__version__,
            "tensorflow": tf.__version__,
            "python": platform.python_version(),
        },
        "guard": None
        if guard is None
        else {
            "action": guard.action,
            "warmup": guard.warmup,
            "retraces_after_warmup": [reason.as_dict() for reason in guard.reasons],
        },
        "functions": data["functions"],
    }


class _JsonTarget:
    """Where the JSON report goes: a temporary file beside it, made before the script runs
    (so an unwritable path stops the run), renamed over it when the report is complete."""

    def __init__(self, path: str):
        self.path = path
        if os.path.isdir(path):
            raise UsageError(f"--json {path!r} is a directory; give a file path")
        folder, name = os.path.split(path)
        self._mode = _new_file_mode()
        try:
            self._fd, self._temporary = tempfile.mkstemp(
                prefix=f".{name}.", suffix=".tmp", dir=folder
            )
        except OSError as error:
            raise UsageError(
                f"cannot write the JSON report to {path!r}: {error.strerror or error}"
            ) from None

    def write(self, data: dict) -> None:
        try:
            with os.fdopen(self._fd, "w", encoding="utf-8") as file:
                self._fd = None
                json.dump(data, file, indent=2, allow_nan=False)
                file.write("\n")
            os.chmod(self._temporary, self._mode)  # as open() would: mkstemp makes it private
            os.replace(self._temporary, self.path)
            self._temporary = None
        except (OSError, ValueError) as error:
            print(
                f"{PROG}: could not write the JSON report to {self.path!r}: {error}",
                file=sys.stderr,
            )

    def discard(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._temporary is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._temporary)
            self._temporary = None


def _new_file_mode() -> int:
    """The permissions open() gives a new file under the process's umask."""
    umask = os.umask(0o022)  # reading the umask means setting it; restored at once
    os.umask(umask)
    return 0o666 & ~umask


def _run(script: str) -> int:
    """Run the script; report its end as the interpreter would, and return the status."""
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit_:
        status = _exit_status(exit_.code)
    except BaseException as error:  # the interpreter prints any other exception and exits 1
        _print_traceback(error, script)
        status = 1
    else:
        status = 0
    _join_threads()
    return status


def _join_threads() -> None:
    """Wait for the script's non-daemon threads, as the interpreter does before it exits."""
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon:
            thread.join()


def _exit_status(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("message"): printed, status 1
    return 1


def _print_traceback(error: BaseException, script: str) -> None:
    """The traceback without this runner's and runpy's frames, as Python shows it."""
    tb = error.__traceback__
    target = os.path.abspath(script)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != target:
        tb = tb.tb_next
    # No frame of the script: it failed to compile, and Python shows no traceback lines.
    traceback.print_exception(type(error), error, tb, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
