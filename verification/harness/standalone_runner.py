"""Run the site's pages in a reader's environment: one that has none of this repository.

Usage: python -I standalone_runner.py JOBS.json
       python -I standalone_runner.py --page BLOCKS.json NAME

Copied out of the repository and run with ``-I`` by ``verification.harness.reader_pages``, so it
imports nothing from the repository. JOBS.json lists pages as {"name", "out", "blocks"},
each block {"code", "filename", "not_run"}. Each page runs as a reader pasting it in order
into a new Python session would: its blocks share one namespace and the page stops at its
first failure. Like a new session, each page gets a process of its own: this process
imports TensorFlow and Keras once (the state every page reaches with its first block,
before any op has run or any tf.function exists) and forks one child per page, at most one
per core at a time. A child writes {"error", "environment", "blocks"} to its "out" file;
a child that dies without writing gets a crash record, so the caller never waits for
nothing.

A page whose job names an ``environment`` (variables TensorFlow reads when it loads, such as
TF_ENABLE_ONEDNN_OPTS: codeblocks.page_environment) is not run in the forked child: the
child starts a fresh interpreter with them instead (``--job``), as the reader's own.

With ``--page`` (the version matrix, verification/matrix/runner.py), this process runs the one
page NAME of BLOCKS.json ({name: [code, ...]}) itself and prints its blocks' results.
"""

import builtins
import contextlib
import gc
import io
import json
import linecache
import os
import sys
import time
import traceback


def run_block(block, namespace):
    code, filename = block["code"], block["filename"]
    # Visible to inspect (AutoGraph reads a function's source) and to tracebacks.
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    captured = io.StringIO()
    try:
        # dont_inherit: a block must not inherit this module's compiler flags.
        compiled = compile(code, filename, "exec", dont_inherit=True)
        if block["not_run"] is not None:
            # Compiled, so even an unexecuted block cannot carry a syntax error.
            return {"status": "not-run", "output": "", "error": block["not_run"]}
        with contextlib.redirect_stdout(captured):
            exec(compiled, namespace)
    except BaseException:
        return {"status": "failed", "output": captured.getvalue(), "error": traceback.format_exc()}
    return {"status": "passed", "output": captured.getvalue(), "error": ""}


def run_page(blocks):
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    results = []
    failed = False
    for block in blocks:
        if failed:  # a reader's session stops at the first error: so does the page's
            results.append({"status": "blocked", "output": "", "error": "an earlier block failed"})
            continue
        # Times, so that what a page costs the suite can be read off its results.
        wall, cpu = time.perf_counter(), time.process_time()
        results.append(run_block(block, namespace))
        results[-1]["seconds"] = round(time.perf_counter() - wall, 3)
        results[-1]["cpu_seconds"] = round(time.process_time() - cpu, 3)
        failed = results[-1]["status"] == "failed"
    return results


def write_results(out, results):
    partial = out + ".partial"
    with open(partial, "w", encoding="utf-8") as file:
        json.dump(results, file)
    os.replace(partial, out)  # atomic: a reader never sees half a file


def run_child(job):
    if job.get("environment"):  # settings read when TensorFlow loads: a fresh interpreter
        path = job["out"] + ".job.json"
        with open(path, "w", encoding="utf-8") as file:
            json.dump(job, file)
        argv = [sys.executable, "-I", os.path.abspath(__file__), "--job", path]
        os.execve(sys.executable, argv, {**os.environ, **job["environment"]})
    run_job(job)


def run_job(job):
    try:
        blocks = run_page(job["blocks"])
        write_results(job["out"], {"error": "", "environment": sys.prefix, "blocks": blocks})
    finally:
        os._exit(0)  # never return into the parent's loop


def serve(jobs):
    with contextlib.suppress(ImportError):  # a page without TensorFlow still runs
        import keras  # noqa: F401 - imported once here, inherited by every forked page
        import tensorflow  # noqa: F401
    # The imports' objects, their garbage collected first, are moved out of the collector's
    # reach: a page's collections (its gc.collect() and Python's automatic ones) then walk
    # only what the page made instead of everything inherited, and
    # do not copy the parent's memory by touching it (all pages: 100.5 CPU-s instead of
    # 116.7). What a page prints does not change: nothing inherited is garbage.
    gc.collect()
    gc.freeze()
    running = {}
    pending = list(jobs)
    while pending or running:
        while pending and len(running) < (os.cpu_count() or 2):
            job = pending.pop(0)
            pid = os.fork()
            if pid == 0:
                run_child(job)
            running[pid] = job
        pid, status = os.wait()
        job = running.pop(pid)
        if not os.path.exists(job["out"]):
            crash = f"running {job['name']} crashed (wait status {status})"
            write_results(job["out"], {"error": crash, "environment": sys.prefix, "blocks": []})


def main(argv):
    if argv[1] == "--job":  # one page of JOBS.json, in this fresh interpreter
        with open(argv[2], encoding="utf-8") as file:
            run_job(json.load(file))
    if argv[1] == "--page":
        with open(argv[2], encoding="utf-8") as file:
            codes = json.load(file)[argv[3]]
        blocks = [
            {"code": code, "filename": f"{argv[3]} [block {index}]", "not_run": None}
            for index, code in enumerate(codes, 1)
        ]
        json.dump(run_page(blocks), sys.stdout)
        return 0
    with open(argv[1], encoding="utf-8") as file:
        serve(json.load(file))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
