"""Run a whole program under the retrace explainer: ``python -m tf_retracing.explain``.

``python -m tf_retracing.explain [options] [--] script.py [args]`` runs ``script.py`` as
``python script.py [args]`` would (``sys.argv`` as given, the folder of its real file
first on the path, ``__name__ == "__main__"``, the same output, exit status, ``sys.exit``
message and traceback, its own ``sys.excepthook``; ``-`` reads the program from standard
input, and a folder or zip file runs its ``__main__`` module; Ctrl-C ends it by SIGINT, as
python does), with every ``tf.function`` it creates watched. The explainer starts when the
program first imports TensorFlow: a program that never does runs as fast as under python.
At exit the retracing report goes to standard error, so the program's standard output is
unchanged; SIGTERM (docker stop, Kubernetes) writes every report, then ends the process
by SIGTERM as python's would end.

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
import importlib.abc
import json
import os
import pkgutil
import platform
import re
import runpy
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
    """The status Python exits with when ``script`` cannot be run, after its message. (A
    folder is run as python runs it: its ``__main__`` module, or python's message.)"""
    if not os.path.exists(script):
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
    session = _Session(options, targets)
    try:
        with session:
            status = 1  # if the run is interrupted below Python's own handling
            try:
                status = _run(script)
            finally:
                session.report(status)
        return _exit(status)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


class _Session:
    """The explainer around one run. It starts when the program first imports TensorFlow
    (at once if it is imported already), so a program that never does runs as fast as
    under python. Its reports are written once: at the end of the run, or when SIGTERM
    (how docker stop and Kubernetes end a server) arrives, after which the process ends by
    SIGTERM as python's would."""

    def __init__(self, options: Options, targets: list[_ReportFile]):
        self.options, self.targets = options, targets
        self.watches = self.guard = None
        self.unavailable: str | None = None  # why the explainer did not run, if it did not
        self._stack = contextlib.ExitStack()
        self._hook = _AfterImport("tensorflow", self._start)
        self._reported = self._done = False  # the reports: begun, finished
        self._pending_signal: int | None = None
        # The report goes where standard error was when the run began, even if the script
        # closes or replaces sys.stderr; the files asked for are written first.
        self._stream = _ReportStream()
        self._previous_sigterm = None

    def __enter__(self):
        self._listen_for_sigterm()
        if "tensorflow" in sys.modules:
            self._start()
        else:
            self._hook.install()
        return self

    def __exit__(self, *exc_info):
        self._hook.remove()
        self._restore_sigterm()
        self._stack.close()

    def _start(self) -> None:
        """Watch every tf.function from now on (TensorFlow has just been imported)."""
        try:
            self.unavailable = tf_retracing.EXPLAINER_UNAVAILABLE
            if self.unavailable is not None:
                print(
                    f"tf_retracing.explain: {self.unavailable}; running the program without "
                    "the explainer" + (" (no guard)" if self.options.guard else ""),
                    file=sys.stderr,
                )
                return
            self.watches = self._stack.enter_context(tf_retracing.watch_every_tf_function())
            self.guard = self._stack.enter_context(_guard(self.options))
        except Exception as error:  # never break the program's import of TensorFlow
            self.unavailable = f"the explainer could not start ({type(error).__name__}: {error})"
            print(f"tf_retracing.explain: {self.unavailable}; running without it", file=sys.stderr)

    def report(self, status: int) -> None:
        """Write the files asked for, then print the report (once)."""
        if self._reported:
            return
        self._reported = True
        try:
            if self.targets:
                _write_reports(self.targets, _json_report(self.options, status, self))
            if self.unavailable is None:
                with self._stream as stream:
                    _print_report(self.options.script, self.watches, self.guard, stream)
        finally:
            self._done = True
            if self._pending_signal is not None:  # SIGTERM came while the reports were written
                _die_of(self._pending_signal)

    def _listen_for_sigterm(self) -> None:
        # Only where python would die of it: not if SIGTERM is ignored or handled already.
        with contextlib.suppress(ValueError):  # not the main thread: signals are not ours
            if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
                self._previous_sigterm = signal.signal(signal.SIGTERM, self._on_sigterm)

    def _restore_sigterm(self) -> None:
        if self._previous_sigterm is not None and signal.getsignal(signal.SIGTERM) == (
            self._on_sigterm
        ):
            signal.signal(signal.SIGTERM, self._previous_sigterm)

    def _on_sigterm(self, signum, _frame) -> None:
        """Write the reports, then die of the signal as python would have: no finally
        block or atexit handler of the program runs, and the parent sees SIGTERM."""
        if self._reported and not self._done:  # arrived while they are being written
            self._pending_signal = signum  # finish them first (report() then dies)
            return
        self.report(TERMINATED)
        _die_of(signum)


def _die_of(signum: int) -> None:
    """End the process by ``signum`` with its default action, as python ends by it."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls ``then()`` once, right after the module ``name`` is first imported (before
    the import statement that asked for it returns). Finding the module without importing
    it (``importlib.util.find_spec``, as libraries probe for TensorFlow) calls nothing."""

    def __init__(self, name: str, then):
        self.name, self.then = name, then

    def install(self) -> None:
        sys.meta_path.insert(0, self)

    def remove(self) -> None:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        for finder in sys.meta_path:  # the spec the other finders would give, unchanged
            find = getattr(finder, "find_spec", None) if finder is not self else None
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _LoaderThen(spec.loader, self._imported)
                return spec
        return None

    def _imported(self) -> None:
        self.remove()
        self.then()


class _LoaderThen:
    """A module's own loader, with a call after the module has run."""

    def __init__(self, loader, then):
        self._loader, self._then = loader, then

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        # The module sees its own loader, as if this one had never been there.
        module.__loader__ = module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._then()


def _guard(options: Options):
    if options.guard is None:
        return contextlib.nullcontext()
    return tf_retracing.guard_retracing(action=options.guard, warmup=options.warmup)


def _print_report(script: str, watches: list | None, guard, stream) -> None:
    print(f"\n== retracing report for {printable(script)} ==", file=stream)
    if watches and (len(watches) or getattr(watches, "unwatched", None)):
        print(tf_retracing.report(watches), file=stream)
    else:  # None: the program never imported TensorFlow
        print("no tf.function was created", file=stream)
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


# The status is recorded when the program's code has ended; what runs after the report
# (atexit handlers, which may call os._exit, and the flush of standard output) can still
# end the process with another status, and nothing can write a report after them.
EXIT_STATUS_NOTE = (
    "the status the program's code ended with (sys.exit, an uncaught exception, Ctrl-C: "
    "130, SIGTERM: 143); atexit handlers run after this report is written, and one that "
    "calls os._exit, or a failure to flush standard output, ends the process with another"
)


def _json_report(options: Options, status: int, session: _Session) -> dict:
    """Everything in the printed report, plus what ran where, as plain data."""
    tf = sys.modules.get("tensorflow")  # never imported here: the program may not have
    if session.watches is None:  # no TensorFlow, or the explainer did not run on it
        data = {"schema_version": REPORT_SCHEMA_VERSION, "functions": []}
    else:
        data = tf_retracing.report_data(session.watches)
    guard = session.guard
    return {
        "schema_version": data["schema_version"],
        "script": options.script,
        "args": options.args,
        "exit_status": status,
        "exit_status_note": EXIT_STATUS_NOTE,
        "explainer_unavailable": session.unavailable,
        "versions": {
            "tf_retracing": tf_retracing.__version__,
            "tensorflow": getattr(tf, "__version__", None),
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
TERMINATED = 128 + signal.SIGTERM  # and for one that SIGTERM ended (143)


class _ScriptError(Exception):
    """A script python would refuse before running it; the message is python's."""


@dataclasses.dataclass
class _Script:
    """A program compiled as ``python SCRIPT`` compiles it, and where it runs from."""

    source: bytes
    file: str  # its __file__ and the file name in tracebacks: absolute, as python makes it
    path_entry: str  # first on sys.path: the folder of the real file behind any symlink
    # A folder or a zip file: python runs the ``__main__`` module it holds, found through
    # sys.path (path_entry is the folder or zip file itself, made absolute as python does).
    runs_main_module: bool = False

    @classmethod
    def load(cls, script: str) -> _Script:
        if script == STDIN:
            return cls(sys.stdin.buffer.read(), "<stdin>", "")
        if pkgutil.get_importer(script) is not None:  # what python (and runpy) test
            return cls(b"", script, os.path.join(os.getcwd(), script), runs_main_module=True)
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

    def execute(self, namespace: dict) -> None:
        if self.runs_main_module:
            # What python itself calls for a folder or zip file: the traceback of an error
            # and the message for a missing __main__ module are then python's own.
            runpy._run_module_as_main("__main__", alter_argv=False)
        else:
            namespace["__file__"] = self.file
            exec(self.compile(), namespace)


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
    main.__dict__.update(__builtins__=builtins, __cached__=None)
    saved_main = sys.modules["__main__"]
    sys.modules["__main__"] = main  # pickle and multiprocessing find the script's classes
    try:
        script.execute(main.__dict__)
    except _ScriptError as error:  # python's own message, without a traceback
        print(error, file=sys.stderr)
        status = 1
    except SystemExit as exit_:
        status = _exit_status(exit_.code)
    except BaseException as error:  # the interpreter hands it to sys.excepthook, exits 1
        status = INTERRUPTED if isinstance(error, KeyboardInterrupt) else 1
        status = _uncaught(error, status)
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


def _uncaught(error: BaseException, status: int) -> int:
    """What the interpreter does with an exception nobody caught: it calls
    ``sys.excepthook`` (the program's own, if it set one) with the traceback from the
    program's first frame; the status it returns is the exit status."""
    # On the exception itself too: the interpreter's default hook shows that one.
    tb = error.__traceback__ = _without_our_frames(error.__traceback__)
    hook = getattr(sys, "excepthook", None)
    if hook is None:
        print("sys.excepthook is missing", file=sys.stderr)
        traceback.print_exception(type(error), error, tb, file=sys.stderr)
        return status
    try:
        hook(type(error), error, tb)
    except SystemExit as exit_:  # the interpreter exits with the hook's status
        return _exit_status(exit_.code)
    except BaseException as failure:  # shown as the interpreter shows it
        if failure.__context__ is error:  # raised inside our except clause, not python's
            failure.__context__ = None
        print("Error in sys.excepthook:", file=sys.stderr)
        traceback.print_exception(
            type(failure), failure, _without_our_frames(failure.__traceback__), file=sys.stderr
        )
        print("\nOriginal exception was:", file=sys.stderr)
        traceback.print_exception(type(error), error, tb, file=sys.stderr)
    return status


def _without_our_frames(tb):
    """The traceback from the first frame that is not this runner's, as Python shows it
    (None for a script that failed to compile: Python shows no traceback lines)."""
    ours = _run.__code__.co_filename
    while tb is not None and tb.tb_frame.f_code.co_filename == ours:
        tb = tb.tb_next
    return tb


if __name__ == "__main__":
    sys.exit(main())
