"""The command line: ``python -m tf_retracing.lint`` and ``tf-retracing lint``."""

from __future__ import annotations

import argparse
import os
import sys

from tf_retracing.lint.config import ConfigError, load_config
from tf_retracing.lint.engine import LintResult, lint_paths
from tf_retracing.lint.output import as_json, as_sarif, as_text, shown_path
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
    if not codes and option == "--select":
        parser.error(
            f"{option}: no rule given ({value!r}); name one or more, such as "
            f"{option} TFL001,TFL003, or leave {option} out to run every rule"
        )
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
    """Exit status 0, 1 or 2; 2 as well when standard error or standard output cannot be
    written (the report then says, on whichever of them still works, what it can)."""
    try:
        return _main(argv, prog)
    except OSError as error:  # most likely, standard error refused a message
        _silence(sys.stderr)
        _say(sys.stdout, f"{prog}: error: {error.strerror or error}")
        return 2


def _main(argv: list[str] | None, prog: str) -> int:
    parser = _parser(prog)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        config = load_config(args.config)
    except ConfigError as error:
        _say(sys.stderr, f"{prog}: error: {error}")
        return 2
    told = all([_say(sys.stderr, f"{prog}: warning: {warning}") for warning in config.warnings])
    if args.list_rules:
        print(_list_rules(config.site_url))
        return 0
    if args.select is not None:
        config = config.__class__(
            **{**config.__dict__, "select": _codes(parser, "--select", args.select)}
        )
    if args.ignore is not None:
        extra = _codes(parser, "--ignore", args.ignore)
        config = config.__class__(**{**config.__dict__, "ignore": config.ignore | extra})
    result = lint_paths(args.paths, config)
    status = _report(result, args.format, config.site_url, prog)
    return status if told else 2


def _say(stream, text: str) -> bool:
    """Write a line; False (never an exception) when the stream cannot take it."""
    try:
        print(text, file=stream)
        stream.flush()  # a write error shows now, not as a traceback at exit
        return True
    except BrokenPipeError:  # `... | head` closed the pipe: what was wanted was read
        _silence(stream)
        return True
    except (OSError, ValueError):  # a full disk, a closed stream
        _silence(stream)
        return False


def _silence(stream) -> None:
    """Point the stream at the null device, so that the interpreter's own flush at exit
    does not fail again on the closed pipe or full disk."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


def _report(result: LintResult, output_format: str, site_url: str, prog: str) -> int:
    """Print the report: errors and notes on standard error, the findings on standard
    output. The exit status is the result's, or 2 when either stream refused its part."""
    told = True
    for error in result.errors:
        told &= _say(sys.stderr, f"{prog}: error: {shown_path(error.path)}: {error.message}")
    for skipped in result.skipped:
        told &= _say(sys.stderr, f"{prog}: note: {shown_path(skipped.path)}: {skipped.message}")
    if output_format == "json":
        report = as_json(result, _version())
    elif output_format == "sarif":
        report = as_sarif(result, _version(), site_url)
    else:
        report = as_text(result)
    try:
        print(report)
        sys.stdout.flush()
    except BrokenPipeError:  # `... | head` closed the pipe: what was wanted was read
        _silence(sys.stdout)
    except OSError as error:
        _silence(sys.stdout)
        _say(sys.stderr, f"{prog}: error: cannot write the report: {error.strerror or error}")
        return 2
    return result.exit_status if told else 2
