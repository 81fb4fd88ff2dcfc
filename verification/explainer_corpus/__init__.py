"""The explainer's corpus: reductions of real retracing reports, run and scored.

``cases/`` holds the scripts (format in ``verification.explainer_corpus.cases``), ``runner``
runs each one wrapped, whole-program and fixed, ``results.json`` is the last full run
(written by ``python -m verification.explainer_corpus run``), which the Diagnosing page
renders."""
