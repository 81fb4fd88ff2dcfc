"""The retracing linter: hazards of ``tf.function`` retracing found in Python files and
Jupyter notebooks, without running them or importing TensorFlow.

The layout: ``engine`` finds, reads and parses files (``notebooks`` turns a notebook into
one program); ``facts`` gathers in one pass what the rules share (``context``: where each
node runs; ``tf_functions`` and ``models``: the tf.functions and Keras models the file
defines), and ``varying``, ``bodies`` and ``keras_receivers`` derive more from it, kept
once per module by ``ModuleFacts.derived``; each rule code is one module of ``rules``
(``rule`` says what one declares) with its message, guide link and examples; ``output``
and ``cli`` print. Imports run one way, from the rules down to ``syntax``: what two rules
share lives below both, never in a rule (``tests/test_lint_layout.py``).

``python -m tf_retracing.lint PATH ...`` (or ``tf-retracing lint PATH ...``) prints one
line per finding: file, line, column, rule, message and the guide section that explains
the cause and its fix. Exit status as ruff's: 0 clean, 1 findings, 2 bad input or usage.

From Python: ``lint_source(text)`` for one module, ``lint_paths(paths)`` for files and
folders; ``RULES`` lists the rules.
"""

from __future__ import annotations

from tf_retracing.lint.cli import main
from tf_retracing.lint.config import Config, ConfigError, load_config
from tf_retracing.lint.engine import (
    Finding,
    InputError,
    LintInputError,
    LintResult,
    lint_paths,
    lint_source,
)
from tf_retracing.lint.rules import RULES, RULES_BY_CODE, Rule

__all__ = [
    "RULES",
    "RULES_BY_CODE",
    "Config",
    "ConfigError",
    "Finding",
    "InputError",
    "LintInputError",
    "LintResult",
    "Rule",
    "lint_paths",
    "lint_source",
    "load_config",
    "main",
]
