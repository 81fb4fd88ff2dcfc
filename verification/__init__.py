"""The site's verification tooling, shared by the MkDocs hooks, the Makefile and the tests.

- ``harness``: runs every Python block of a page as a reader would (in page order, in a
  fresh environment with only the wheel and the locked packages) and compares shown output.
- ``matrix``: runs every page and the package tests on each supported TensorFlow release
  and writes the results the Versions page renders.
- ``explainer_corpus`` and ``lint_corpus``: the explainer and the linter measured on
  reductions of real reports and on public repositories; their results files are rendered
  on the Diagnosing and Lint pages.

Nothing here is imported by ``tf_retracing``; ``tests/`` imports from here, never the reverse.
"""
