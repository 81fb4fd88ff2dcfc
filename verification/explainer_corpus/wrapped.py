"""``python -m verification.explainer_corpus.wrapped OUTPUT case.py``: run a corpus case as
``python case.py`` would, with its ``watch(...)`` calls being ``explain_retracing``; write
every retrace reason of the watched functions to OUTPUT as JSON (``{"exit_status",
"reasons"}``)."""

from __future__ import annotations

import json
import os
import runpy
import sys


def main(output: str, script: str) -> int:
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    import corpus_watch

    corpus_watch.WATCHED = []
    sys.argv = [script]
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:  # the traceback goes to stderr, as python prints it
        import traceback

        traceback.print_exc()
        status = 1
    reasons = []
    seen = set()
    for function in corpus_watch.WATCHED:
        if id(function) in seen:
            continue
        seen.add(id(function))
        reasons += [reason.as_dict() for reason in function.retrace_reasons]
    with open(output, "w", encoding="utf-8") as file:
        json.dump({"exit_status": status, "reasons": reasons}, file, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
