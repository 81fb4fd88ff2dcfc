"""What a case calls where a reader would call ``explain_retracing``.

Run as ``python case.py`` or under ``python -m tf_retracing.explain``, ``watch`` returns its
argument: the case runs as the reader's program did (whole-program mode watches it). Run by
``verification.explainer_corpus.wrapped``, which sets ``WATCHED`` to a list, ``watch`` is
``explain_retracing`` and every function it returns is kept there, for the report.
"""

WATCHED = None  # a list while the corpus runs the case in wrapped mode


def watch(function):
    if WATCHED is None:
        return function
    import tf_retracing

    watched = tf_retracing.explain_retracing(function)
    WATCHED.append(watched)
    return watched
