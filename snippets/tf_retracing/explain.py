"""Run a whole program under the retrace explainer: ``python -m tf_retracing.explain``.

``python -m tf_retracing.explain [options] [--] script.py [args]`` runs ``script.py`` as
``python script.py [args]`` would (``sys.argv`` as given, the folder of its real file
first on the path, ``__name__ == "__main__"``, the same output, exit status, ``sys.exit``
message and traceback; ``-`` reads the program from standard input; Ctrl-C ends it by
SIGINT, as python does), with every ``tf.function`` it creates watched. At exit the retracing report
goes to standard error, so the program's standard output is unchanged.

Options come before the script; everything after the script's name is the script's own.

- ``--guard log|raise``: after warm-up, a retrace logs its reason once per function on
  the ``retrace`` logger, or raises ``RetracingBudgetExceeded`` from the call that retraced.
- ``--warmup N``: the first N traces of each function are its warm-up (default 1, so every
  retrace counts); needs ``--guard``.
- ``--json PATH``: also write the report as versioned JSON to PATH (replaced atomically,
  at exit). A PATH that cannot be written, or that is the script or one of its arguments,
  stops here, before the script runs.
- ``--html PATH``: also write the report as one self-contained HTML page (same rules).
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import json
import os
import platform
import re
import signal
import sys
import tempfile
import threading
import traceback
import types

# TensorFlow is imported by the run, not here: --help, a bad option or a missing script
# answers at once instead of after TensorFlow's few seconds of start-up.
import tf_retracing
from tf_retracing.explainer_types import REPORT_SCHEMA_VERSION, printable

PROG = "python -m tf_retracing.explain"


def usage(prog: str = PROG) -> str:
    """The usage lines, naming the command as it was called (``tf-retracing explain``)."""
    return (
        f"usage: {prog} [--guard log|raise] [--warmup N] [--json PATH] [--html PATH]\n"
        f"       {' ' * len(prog)} [--] script.py|- [args ...]"
    )


USAGE = usage()
HELP = f"""{USAGE}

Run script.py (or -, the program on standard input) with every tf.function it creates
watched; at exit, print the retracing report to standard error. The script's output and
exit status are unchanged.

options (before the script; what follows the script is its own):
  --guard log|raise  after warm-up, log each function's first retrace (log) or raise
                     RetracingBudgetExceeded from the call that retraced (raise)
  --warmup N         the first N traces of each function are its warm-up (default 1,
                     every retrace counts); needs --guard
  --json PATH        also write the report as JSON (schema_version {{version}}) to PATH
  --html PATH        also write the report as a self-contained HTML page to PATH
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
    html_path: str | None = None
    prog: str = PROG  # the name the command was called by, for its messages


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Run the script named in ``argv`` with its arguments; return the exit status Python
    would (2 for bad options, before the script runs). ``prog`` is the name the command
    was called by, which its usage, help and messages use."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print(usage(prog), file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        print(HELP.replace(USAGE, usage(prog)).replace("{version}", str(REPORT_SCHEMA_VERSION)))
        return 0
    if argv[0] == "--version":
        print(f"tf-retracing {tf_retracing.__version__}")
        return 0
    try:
        options = parse_options(argv)
        targets = _report_files(options)
    except UsageError as error:
        print(f"{prog}: {str(error).replace(USAGE, usage(prog))}", file=sys.stderr)
        return 2
    options.prog = prog
    missing = None if options.script == STDIN else _missing_script(options.script)
    if missing is not None:
        return missing
    return _run_watched(options, targets)


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
        if name not in ("--guard", "--warmup", "--json", "--html"):
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
    for option, field in (("--json", "json_path"), ("--html", "html_path")):
        if option in values:
            if not values[option]:
                raise UsageError(f"{option} needs a file path")
            setattr(options, field, os.path.abspath(values[option]))
    if options.json_path is not None and options.json_path == options.html_path:
        raise UsageError("--json and --html name the same file; give two")
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


def _run_watched(options: Options, targets: list[_ReportFile]) -> int:
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [options.script, *options.args]  # argv[0] exactly as given, as python keeps it
    try:
        script = _Script.load(options.script)
    except _ScriptError as error:  # python's message for a script it cannot read
        print(error, file=sys.stderr)
        return 2
    sys.path.insert(0, script.path_entry)
    try:
        if tf_retracing.EXPLAINER_UNAVAILABLE is not None:
            print(
                f"tf_retracing.explain: {tf_retracing.EXPLAINER_UNAVAILABLE}; running the "
                "program without the explainer" + (" (no guard)" if options.guard else ""),
                file=sys.stderr,
            )
            status = _run(script)
            _write_reports(targets, _json_report(options, status, None, None))
            return _exit(status)
        # The report goes where standard error was when the run began, even if the script
        # closes or replaces sys.stderr; the files asked for are written first.
        report_stream = _ReportStream()
        with tf_retracing.watch_every_tf_function() as watches, _guard(options) as guard:
            status = 1  # if the run is interrupted below Python's own handling
            try:
                status = _run(script)
            finally:
                if targets:
                    _write_reports(targets, _json_report(options, status, watches, guard))
                with report_stream as stream:
                    _print_report(options.script, watches, guard, stream)
        return _exit(status)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def _guard(options: Options):
    if options.guard is None:
        return contextlib.nullcontext()
    return tf_retracing.guard_retracing(action=options.guard, warmup=options.warmup)


def _print_report(script: str, watches: list, guard, stream) -> None:
    print(f"\n== retracing report for {printable(script)} ==", file=stream)
    print(
        tf_retracing.report(watches)
        if watches or getattr(watches, "unwatched", None)
        else "no tf.function was created",
        file=stream,
    )
    if guard is not None:
        print(
            f"\nguard ({guard.action}, warm-up {guard.warmup} trace"
            f"{'' if guard.warmup == 1 else 's'} per function): "
            f"{len(guard.reasons)} retrace{'' if len(guard.reasons) == 1 else 's'} after warm-up",
            file=stream,
        )


class _ReportStream:
    """Standard error as it was when made: a duplicate of its file descriptor, opened when
    the report is printed, so a script that closed or replaced ``sys.stderr`` (or closed
    descriptor 2) still gets its report; ``sys.stderr`` itself where there is no
    descriptor (an embedding that replaced it before the run)."""

    def __init__(self):
        try:
            self._fd = os.dup(sys.stderr.fileno())
        except (AttributeError, OSError, ValueError):
            self._fd = None
        self._file = None

    def __enter__(self):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            sys.stderr.flush()  # what the script wrote comes first
        if self._fd is None:
            return sys.stderr
        self._file = open(self._fd, "w", encoding="utf-8", errors="backslashreplace", closefd=True)
        return self._file

    def __exit__(self, *exc_info):
        if self._file is not None:
            self._file.close()


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
        "unwatched": data.get("unwatched", []),
    }


def _report_files(options: Options) -> list[_ReportFile]:
    targets = []
    if options.json_path is not None:
        targets.append(_ReportFile("--json", options.json_path, options, _as_json))
    if options.html_path is not None:
        from tf_retracing.html_report import render_html

        targets.append(_ReportFile("--html", options.html_path, options, render_html))
    return targets


def _as_json(data: dict) -> str:
    return json.dumps(data, indent=2, allow_nan=False) + "\n"


def _write_reports(targets: list[_ReportFile], data: dict) -> None:
    for target in targets:
        target.write(data)


class _ReportFile:
    """Where a report goes. Checked before the script runs (a path that cannot be
    written, or that the script reads, stops the run); written at the end to a temporary
    file beside it, renamed over it when complete, so no report is ever half-written and a
    run that ends by os._exit or a signal leaves nothing behind."""

    def __init__(self, option: str, path: str, options: Options, render):
        self.option, self.path, self._render = option, path, render
        self._prog = options.prog
        if os.path.isdir(path):
            raise UsageError(f"{option} {path!r} is a directory; give a file path")
        _refuse_inputs(option, path, options)
        self._mode = _new_file_mode()
        try:  # can a file be made there? (removed at once: made again at the end)
            fd, probe = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=self._folder)
            os.close(fd)
            os.unlink(probe)
        except OSError as error:
            raise UsageError(
                f"cannot write the {option[2:].upper()} report to {path!r}: "
                f"{error.strerror or error}"
            ) from None

    @property
    def _folder(self) -> str:
        return os.path.dirname(self.path)

    def write(self, data: dict) -> None:
        temporary = None
        try:
            text = self._render(data)
            fd, temporary = tempfile.mkstemp(
                prefix=f".{os.path.basename(self.path)}.", suffix=".tmp", dir=self._folder
            )
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(text)
            os.chmod(temporary, self._mode)  # as open() would: mkstemp makes it private
            os.replace(temporary, self.path)
            temporary = None
        except (OSError, ValueError) as error:
            print(
                f"{self._prog}: could not write the {self.option[2:].upper()} report to "
                f"{self.path!r}: {error}",
                file=sys.stderr,
            )
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)


def _refuse_inputs(option: str, path: str, options: Options) -> None:
    """The report must not replace the script or a file the script is given."""
    target = os.path.realpath(path)
    if options.script != STDIN and os.path.realpath(options.script) == target:
        raise UsageError(f"{option} {path!r} is the script itself; give another file")
    for number, arg in enumerate(options.args, start=1):
        for candidate in {arg, arg.partition("=")[2]} - {""}:
            if os.path.isfile(candidate) and os.path.realpath(candidate) == target:
                raise UsageError(
                    f"{option} {path!r} is a file the script is given (its argument {number},"
                    f" {arg!r}); give another file"
                )


def _new_file_mode() -> int:
    """The permissions open() gives a new file under the process's umask."""
    umask = os.umask(0o022)  # reading the umask means setting it; restored at once
    os.umask(umask)
    return 0o666 & ~umask


STDIN = "-"  # as for python: the program is read from standard input
INTERRUPTED = 130  # the status a shell shows for a program that SIGINT ended


class _ScriptError(Exception):
    """A script python would refuse before running it; the message is python's."""


@dataclasses.dataclass
class _Script:
    """A program compiled as ``python SCRIPT`` compiles it, and where it runs from."""

    source: bytes
    file: str  # its __file__ and the file name in tracebacks: absolute, as python makes it
    path_entry: str  # first on sys.path: the folder of the real file behind any symlink

    @classmethod
    def load(cls, script: str) -> _Script:
        if script == STDIN:
            return cls(sys.stdin.buffer.read(), "<stdin>", "")
        path = os.path.abspath(script)
        try:
            with open(path, "rb") as file:
                source = file.read()
        except OSError as error:
            raise _ScriptError(f"{sys.executable}: can't open file {path!r}: {error}") from None
        return cls(source, path, os.path.dirname(os.path.realpath(script)))

    def compile(self):
        _check_encoding(self.source, self.file)
        return compile(self.source, self.file, "exec", dont_inherit=True)


# PEP 263: an encoding declared in a comment on one of the first two lines.
_CODING_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", re.MULTILINE)


def _check_encoding(source: bytes, file: str) -> None:
    """Refuse a file that is not UTF-8 and declares no encoding, in python's own words
    (compile() would give a different message)."""
    if _CODING_COOKIE.search(b"\n".join(source.splitlines()[:2])):
        return  # compile() honours the declaration, and reports a bad one as python does
    for number, line in enumerate(source.splitlines(), start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as error:
            byte = line[error.start : error.start + 1]
            raise _ScriptError(
                f"SyntaxError: Non-UTF-8 code starting with '\\x{byte.hex()}' in file {file} "
                f"on line {number}, but no encoding declared; see "
                "https://peps.python.org/pep-0263/ for details"
            ) from None


def _run(script: _Script) -> int:
    """Run the script as ``__main__``; report its end as the interpreter would, and return
    the status (INTERRUPTED after a KeyboardInterrupt nobody caught)."""
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=script.file, __builtins__=builtins, __cached__=None)
    saved_main = sys.modules["__main__"]
    sys.modules["__main__"] = main  # pickle and multiprocessing find the script's classes
    try:
        exec(script.compile(), main.__dict__)
    except _ScriptError as error:  # python's own message, without a traceback
        print(error, file=sys.stderr)
        status = 1
    except SystemExit as exit_:
        status = _exit_status(exit_.code)
    except KeyboardInterrupt as error:
        _print_traceback(error, script.file)
        status = INTERRUPTED
    except BaseException as error:  # the interpreter prints any other exception and exits 1
        _print_traceback(error, script.file)
        status = 1
    else:
        status = 0
    finally:
        sys.modules["__main__"] = saved_main
    _join_threads()
    return status


def _exit(status: int) -> int:
    """Python ends an interrupted program by SIGINT, so its parent sees the signal."""
    if status == INTERRUPTED:
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return status


def _join_threads() -> None:
    """Wait for the script's non-daemon threads, as the interpreter does before it exits."""
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon:
            thread.join()


def _exit_status(code) -> int:
    """The status the shell sees for ``sys.exit(code)``, as python ends it: an int (a bool
    included) modulo 256, one beyond a C long an OverflowError and 255; anything else is
    printed, status 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        if not -(2**63) <= code < 2**63:
            print("OverflowError: Python int too large to convert to C long", file=sys.stderr)
            return 255
        return int(code) & 0xFF
    print(code, file=sys.stderr)  # sys.exit("message"): printed, status 1
    return 1


def _print_traceback(error: BaseException, file: str) -> None:
    """The traceback without this runner's frames, as Python shows it."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != file:
        tb = tb.tb_next
    # No frame of the script: it failed to compile, and Python shows no traceback lines.
    traceback.print_exception(type(error), error, tb, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
