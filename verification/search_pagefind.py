"""Pagefind on a built site, for verification.search_heldout's side-by-side measurement.

Pagefind indexes the built HTML of every page's article (``--root-selector article``, so
the navigation that every page repeats is not indexed, and Material's
``data-search-exclude`` blocks are left out as the theme's search leaves them out), into a
copy of the site. Its own ``pagefind.js`` then answers each query in Chromium (Playwright),
served over HTTP as a reader's browser would fetch it. The cost recorded: the seconds the
index took, and the bytes a reader downloads for one query (Pagefind loads its entry file,
its WebAssembly, the index chunks and fragments the query needs), read from the browser's
own resource timings.

Pagefind is not a dependency of the project (the site keeps Material's search: see
verification/search_heldout_results.json); to run this, install it into the environment:
``.tools/bin/uv pip install --python .venv/bin/python "pagefind[extended]==1.5.2"``.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SEARCH = """async ([queries, top]) => {
  const pagefind = await import("/pagefind/pagefind.js");
  await pagefind.init();
  const answers = [];
  for (const query of queries) {
    const found = await pagefind.search(query);
    const data = await Promise.all(found.results.slice(0, top).map(result => result.data()));
    answers.push(data.map(entry => entry.url));
  }
  return answers;
}"""

FIRST_QUERY_BYTES = """async (query) => {
  const pagefind = await import("/pagefind/pagefind.js");
  await pagefind.init();
  const found = await pagefind.search(query);
  await Promise.all(found.results.slice(0, 10).map(result => result.data()));
  return performance.getEntriesByType("resource")
    .filter(entry => entry.name.includes("/pagefind/"))
    .reduce((total, entry) => total + (entry.encodedBodySize || entry.transferSize || 0), 0);
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def index_site(site: Path) -> float:
    """Write Pagefind's index into ``site``/pagefind; the seconds it took."""
    start = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pagefind",
            "--site",
            str(site),
            "--root-selector",
            "article",
            "--exclude-selectors",
            "[data-search-exclude]",
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"search_pagefind: pagefind failed:\n{result.stdout}{result.stderr}")
    return time.monotonic() - start


def chromium_path() -> str:
    """The system's Chromium, as the browser tests find it (CHROMIUM, or on the PATH)."""
    path = (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if not path:
        raise SystemExit(
            "search_pagefind: Chromium not found: run .ci/ensure-chromium or set CHROMIUM"
        )
    return path


def _serve(folder: Path):
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def rank_pagefind(site: Path, texts: list[str], top: int = 10) -> tuple[list[list[str]], dict]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "site"
        shutil.copytree(site, copy)
        seconds = index_site(copy)
        index_bytes = sum(path.stat().st_size for path in (copy / "pagefind").rglob("*"))
        server = _serve(copy)
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium_path())
                page = browser.new_page()
                page.goto(base)
                answers = page.evaluate(SEARCH, [texts, top])
                fresh = browser.new_page()
                fresh.goto(base)
                first_query = fresh.evaluate(FIRST_QUERY_BYTES, texts[0])
                browser.close()
        finally:
            server.shutdown()
    cost = {
        "index_seconds": round(seconds, 1),
        "index_bytes_on_disk": index_bytes,
        "first_query_download_bytes": first_query,
    }
    return [[url.removeprefix("/") for url in urls] for urls in answers], cost
