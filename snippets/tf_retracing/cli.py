"""The ``tf-retracing`` console command: ``tf-retracing explain [options] script.py [args]`` and
``tf-retracing lint PATH ...``."""

from __future__ import annotations

import sys

USAGE = (
    "usage: tf-retracing explain [--guard log|raise] [--warmup N] [--json PATH] [--html PATH]"
    " [--] script.py|- [args ...]\n"
    "       tf-retracing lint [options] [PATH ...]\n"
    "       tf-retracing --version\n"
    "Each command's own --help gives its options."
)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] == "--version":
        from tf_retracing._version import __version__  # no TensorFlow: answers at once

        print(f"tf-retracing {__version__}")
        return 0
    command, rest = argv[0], argv[1:]
    if command == "explain":
        from tf_retracing.explain import main as explain

        return explain(rest, prog="tf-retracing explain")
    if command == "lint":
        from tf_retracing.lint import main as lint  # never imports TensorFlow

        return lint(rest)
    print(f"tf-retracing: unknown command {command!r}\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
