"""The command line: ``python -m tf_retracing.lint`` and ``tf-retracing lint``."""

from __future__ import annotations

import argparse
import os
import sys

from tf_retracing.lint.config import ConfigError, load_config
from tf_retracing.lint.engine import LintResult, lint_paths
from tf_retracing.lint.output import as_json, as_sarif, as_text
from tf_retracing.lint.rules import RULES, RULES_BY_CODE, rule_url

FORMATS = ("text", "json", "sarif")


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Find tf.function retracing hazards in Python source, without running it.",
        epilog="Exit status: 0 no findings, 1 findings, 2 bad input or usage error.",
    )
    parser.add_argument("paths", nargs="*", default=["."], help="files and folders (default: .)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument(
        "--select",
        help="only these rules, comma-separated (instead of the configured select; "
        "the configured ignore still applies)",
    )
    parser.add_argument("--ignore", help="also skip these rules, comma-separated")
    parser.add_argument("--config", help="the pyproject.toml to read settings from")
    parser.add_argument("--list-rules", action="store_true", help="print the rules and exit")
    parser.add_argument("--version", action="version", version=f"tf-retracing {_version()}")
    return parser


def _codes(parser: argparse.ArgumentParser, option: str, value: str) -> frozenset[str]:
    codes = frozenset(c.strip() for c in value.split(",") if c.strip())
    unknown = sorted(codes - set(RULES_BY_CODE))
    if unknown:
        parser.error(f"{option}: unknown rule {unknown[0]!r}")
    return codes


def _version() -> str:
    from tf_retracing._version import __version__  # never imports TensorFlow

    return __version__


def _list_rules(site_url: str) -> str:
    return "\n".join(
        f"{rule.code} {rule.name}: {rule.summary}\n"
        f"    fix: {rule.fix}\n    {rule_url(rule, site_url)}"
        for rule in RULES
    )


def main(argv: list[str] | None = None, prog: str = "tf-retracing lint") -> int:
    parser = _parser(prog)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    if args.list_rules:
        print(_list_rules(config.site_url))
        return 0
    if args.select:
        config = config.__class__(
            **{**config.__dict__, "select": _codes(parser, "--select", args.select)}
        )
    if args.ignore:
        extra = _codes(parser, "--ignore", args.ignore)
        config = config.__class__(**{**config.__dict__, "ignore": config.ignore | extra})
    result = lint_paths(args.paths, config)
    try:
        _report(result, args.format, config.site_url, prog)
        sys.stdout.flush()  # a write error shows now, not as a traceback at exit
    except BrokenPipeError:  # `... | head` closed the pipe: what was wanted was read
        _silence_stdout()
    except OSError as error:
        _silence_stdout()
        print(f"{prog}: error: cannot write the report: {error.strerror or error}", file=sys.stderr)
        return 2
    return result.exit_status


def _silence_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's own flush at
    exit does not fail again on the closed pipe or full disk."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)


def _report(result: LintResult, output_format: str, site_url: str, prog: str) -> None:
    for error in result.errors:
        print(f"{prog}: error: {error.path}: {error.message}", file=sys.stderr)
    if output_format == "json":
        print(as_json(result, _version()))
    elif output_format == "sarif":
        print(as_sarif(result, _version(), site_url))
    else:
        print(as_text(result))
