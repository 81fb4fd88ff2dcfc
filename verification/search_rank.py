"""``python -m verification.search_rank SITE [--query TEXT ...] [--top N]``: what the site's
search puts first, and why, without a browser.

It runs the search worker the built site's pages name (the site's own: Material's
``search.*.min.js`` followed by verification/search_worker.js, see
verification.search_machinery) under Node on the site's ``search/search_index.json``, so
its ranking is the one tests/test_browser.py measures in the real search box; it also
prints each result's score and which query words it matched, which the search box does
not show. Without ``--query`` it ranks every query of tests/fixtures/search/queries.toml,
prints the misses with the results above the answering page, and the share first. Needs
``node`` on the PATH.

The ranking, as the worker does it: each query word is stemmed as the index is, and only
the last one is a prefix (the site's change; Material alone makes every word a prefix); a
word in a section's heading (``title``) weighs ``fields: title: boost`` (mkdocs.yml) times
one in its text; a page's own entry (its title and the text before its first heading) gets
a bonus over its sections; and a page's ``search: boost:`` multiplies the score of all its
entries.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

QUERIES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "search" / "queries.toml"

# Loads the worker as the browser does (it registers a message handler on its global) and
# answers one query per line of the queries file with each page group's best entry.
SHIM = r"""
const fs = require("fs");
let handler, last;
globalThis.self = globalThis;
globalThis.addEventListener = (type, fn) => { handler = fn; };
globalThis.postMessage = message => { last = message; };
// The worker the site runs may load others (importScripts), by URLs relative to itself.
const path = require("path");
globalThis.importScripts = (...urls) => {
  for (const url of urls) require(path.resolve(path.dirname(process.argv[2]), url));
};
require(process.argv[2]);
const index = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const queries = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
const top = Number(process.argv[5]);
(async () => {
  const setup = { config: index.config, docs: index.docs, options: { suggest: false } };
  await handler({ data: { type: 0, data: setup } });
  const answers = [];
  for (const query of queries) {
    await handler({ data: { type: 2, data: query } });
    answers.push(last.data.items.slice(0, top).map(group => {
      const best = group.reduce((a, b) => (b.score > a.score ? b : a));
      return {
        page: group[0].location.split("#")[0],
        entry: best.location,
        score: best.score,
        title: best.title.replace(/<[^>]+>/g, ""),
        matched: Object.keys(best.terms).filter(term => best.terms[term]),
      };
    }));
  }
  process.stdout.write(JSON.stringify(answers));
})();
"""


def site_worker(site: Path) -> Path:
    """The search worker the built ``site`` runs: the one its pages name in the theme's
    configuration (``<script id="__config">``), so that a worker the site swaps in is the
    one measured."""
    page = site / "index.html"
    if not page.is_file():
        raise SystemExit(f"search_rank: {page} not found: build the site first")
    found = re.search(
        r'<script id="__config" type="application/json">(.*?)</script>',
        page.read_text(encoding="utf-8"),
        re.DOTALL,
    )
    if found is None:
        raise SystemExit(f"search_rank: {page} holds no theme configuration (__config)")
    worker = (site / json.loads(found[1])["search"]).resolve()
    if not worker.is_file():
        raise SystemExit(f"search_rank: the site names the search worker {worker}; not found")
    return worker


def worker_script() -> Path:
    """The installed theme's search worker."""
    import material

    workers = Path(material.__file__).parent / "templates" / "assets" / "javascripts" / "workers"
    found = sorted(workers.glob("search.*.min.js"))
    if not found:
        raise SystemExit(f"search_rank: no search.*.min.js under {workers}")
    return found[0]


def rank(site: Path, queries: list[str], top: int = 5) -> list[list[dict]]:
    """For each query, the first ``top`` results (one per page, as the search box groups
    them): the page, its best entry, that entry's score, title and matched words."""
    node = shutil.which("node")
    if node is None:
        raise SystemExit("search_rank: needs node (Node.js) on the PATH")
    index = site / "search" / "search_index.json"
    if not index.is_file():
        raise SystemExit(f"search_rank: {index} not found: build the site first")
    with tempfile.TemporaryDirectory() as folder:
        shim = Path(folder) / "rank.js"
        shim.write_text(SHIM, encoding="utf-8")
        asked = Path(folder) / "queries.json"
        asked.write_text(json.dumps(queries), encoding="utf-8")
        result = subprocess.run(
            [node, str(shim), str(site_worker(site)), str(index), str(asked), str(top)],
            capture_output=True,
            text=True,
        )
    if result.returncode != 0:
        raise SystemExit(f"search_rank: the search worker failed under node:\n{result.stderr}")
    return json.loads(result.stdout)


def show(results: list[dict], expected: str | None = None) -> None:
    for result in results:
        mark = "*" if expected is not None and "/" + result["page"] == expected else " "
        print(
            f"  {mark} {result['score']:9.1f}  /{result['entry']:<58} "
            f"{result['title'][:48]!r}  {' '.join(result['matched'])}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built site (site_build --site-dir)")
    parser.add_argument("--query", action="append", default=[], help="rank this instead")
    parser.add_argument("--top", type=int, default=5, help="results shown per query")
    args = parser.parse_args(argv)
    if args.query:
        for query, results in zip(args.query, rank(args.site, args.query, args.top), strict=True):
            print(repr(query))
            show(results)
        return 0
    queries = tomllib.loads(QUERIES.read_text(encoding="utf-8"))["query"]
    answers = rank(args.site, [query["text"] for query in queries], args.top)
    misses = 0
    for query, results in zip(queries, answers, strict=True):
        if results and "/" + results[0]["page"] == query["page"]:
            continue
        misses += 1
        print(f"{query['text']!r}: want {query['page']}")
        show(results, query["page"])
    first = len(queries) - misses
    print(f"first for {first} of {len(queries)} queries ({first / len(queries):.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
