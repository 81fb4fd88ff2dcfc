"""SharedGraphPredictor on real architectures nobody on the project wrote: each served with
the weight updates serving systems make (``set_weights``, ``variable.assign``,
``load_weights``) and under eight threads, against the output its weights define.

``python -m verification.serving_corpus run`` writes ``results.json``; the Serving page
renders it where it has ``<!-- serving-corpus -->``."""
