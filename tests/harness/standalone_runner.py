"""Run pages' blocks in an interpreter that has none of this repository.

Usage: python -I standalone_runner.py BLOCKS.json RESULTS.json

Copied next to its input and run with ``-I`` by ``tests/test_fresh_install.py``, so it
imports nothing from the repository: BLOCKS.json holds, per page, the code of each block
in page order; each page runs in a child process of its own, its blocks in one
namespace, stopping at the first failure, as a reader pasting the page would.
"""

import contextlib
import io
import json
import linecache
import subprocess
import sys
import traceback


def run_page(name, blocks):
    namespace = {"__name__": "__main__"}
    results = []
    for index, code in enumerate(blocks, 1):
        filename = f"{name} [block {index}]"
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        captured = io.StringIO()
        try:
            compiled = compile(code, filename, "exec", dont_inherit=True)
            with contextlib.redirect_stdout(captured):
                exec(compiled, namespace)
        except BaseException:
            results.append(
                {"status": "failed", "output": captured.getvalue(), "error": traceback.format_exc()}
            )
            break
        results.append({"status": "passed", "output": captured.getvalue(), "error": ""})
    return results


def main(argv):
    if argv[1] == "--page":
        with open(argv[2], encoding="utf-8") as file:
            pages = json.load(file)
        json.dump(run_page(argv[3], pages[argv[3]]), sys.stdout)
        return 0
    with open(argv[1], encoding="utf-8") as file:
        pages = json.load(file)
    results = {}
    for name in pages:
        proc = subprocess.run(
            [sys.executable, "-I", argv[0], "--page", argv[1], name], capture_output=True, text=True
        )
        try:
            results[name] = json.loads(proc.stdout)
        except ValueError:
            results[name] = [{"status": "failed", "output": proc.stdout, "error": proc.stderr}]
    with open(argv[2], "w", encoding="utf-8") as file:
        json.dump(results, file)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
