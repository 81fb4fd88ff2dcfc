"""The version matrix: every page's blocks and the package's tests on each declared
TensorFlow release, in an isolated environment per entry; results in ``results.json``.

``python -m verification.matrix run`` (or ``make matrix``) runs it;
``verification.matrix.schema`` loads and checks the results file;
``verification.matrix.render`` turns it into the Versions page, the per-block notes and the
verified-versions note (the MkDocs hook only wires them in)."""
