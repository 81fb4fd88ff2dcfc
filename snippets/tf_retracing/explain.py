"""Run a whole program under the retrace explainer: ``python -m tf_retracing.explain``.

``python -m tf_retracing.explain script.py [args]`` runs ``script.py`` as
``python script.py [args]`` would (its own ``sys.argv``, its folder first on the path,
``__name__ == "__main__"``, the same output, exit status, ``sys.exit`` message and
traceback), with every ``tf.function`` it creates watched. At exit the retracing report
goes to standard error, so the program's standard output is unchanged.
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import traceback

import tf_retracing

USAGE = "usage: python -m tf_retracing.explain script.py [args ...]"


def main(argv: list[str] | None = None) -> int:
    """Run ``argv[0]`` with arguments ``argv[1:]``; return the exit status Python would."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    script = argv[0]
    if os.path.isdir(script):  # python runs a folder's __main__.py; this tool does not
        print(f"tf_retracing.explain: {script!r} is a directory, not a script", file=sys.stderr)
        return 1
    if not os.path.isfile(script):
        print(
            f"tf_retracing.explain: can't open file {script!r}: No such file or directory",
            file=sys.stderr,
        )
        return 2
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    if tf_retracing.EXPLAINER_UNAVAILABLE is not None:
        print(
            f"tf_retracing.explain: {tf_retracing.EXPLAINER_UNAVAILABLE}; running the "
            "program without the explainer",
            file=sys.stderr,
        )
        try:
            return _run(os.path.abspath(script))
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    with tf_retracing.watch_every_tf_function() as watches:
        try:
            status = _run(os.path.abspath(script))
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
            print(f"\n== retracing report for {script} ==", file=sys.stderr)
            print(
                tf_retracing.report(watches) if watches else "no tf.function was created",
                file=sys.stderr,
            )
    return status


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
