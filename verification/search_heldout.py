"""``python -m verification.search_heldout score --half tune|sealed [--machinery NAME]
[--site DIR]``: how well the site's search answers the sealed held-out queries
(tests/fixtures/search/held_out.toml), measured with the machinery a reader's browser runs.

Without ``--site`` it builds the site (``verification.site_build``, --strict) into a
temporary folder and times the build. It ranks every query of one half, and writes
verification/search_heldout_results.json: per query the rank of its answering page, and the
first-place and top-3 counts, with the date, the machinery and the hash of the code it
measured. For each half and machinery the file keeps the FIRST run forever (``first_run``:
for the tune half the baseline, for the sealed half its one score) beside the latest.

Machineries:
- ``material``: the site's search as built (Material for MkDocs' search plugin and the
  worker the site's pages name), ranked under Node by verification.search_rank;
- ``material-stock``: the same built site with Material's search alone (its worker, no
  stemmer, headings weighing 1000), as before issue 51, to tell the machinery's share;
- ``pagefind``: Pagefind's index of the same built site, ranked by Pagefind's own
  ``pagefind.js`` in Chromium (Playwright), as a reader's browser would run it.

The sealed half is not for tuning: score it once, at the end.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from benchmarks.code_hash import code_hash

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ROOT / "tests" / "fixtures" / "search" / "held_out.toml"
RESULTS = Path(__file__).resolve().parent / "search_heldout_results.json"
# Each sealed set of held-out queries and its results file. The second set was written
# after the first set's sealed half had been scored and the search tuned further, so that
# a half nobody tuned on is left to score (--set 2).
SETS = {
    "1": (QUERIES, RESULTS),
    "2": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_2.toml",
        Path(__file__).resolve().parent / "search_heldout_2_results.json",
    ),
    # Written blind on 2026-11-28 after set 2's sealed half had been scored; its sealed
    # half is left for the end of the next search work.
    "3": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_3.toml",
        Path(__file__).resolve().parent / "search_heldout_3_results.json",
    ),
    # Written blind on 2026-11-28 (evening) by a helper who never ran a ranking, after
    # set 3's sealed half had been scored and sets 1-3 were all tuned on.
    "4": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_4.toml",
        Path(__file__).resolve().parent / "search_heldout_4_results.json",
    ),
    # Written blind on 2026-11-28 (night) from GitHub threads by a helper who never ran a
    # ranking, after set 4's sealed half had been scored; its no-answer queries re-read
    # against the pages added meanwhile, still before any ranking run.
    "5": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_5.toml",
        Path(__file__).resolve().parent / "search_heldout_5_results.json",
    ),
    # Written blind on 2026-11-29 from GitHub threads by a helper who never ran a ranking,
    # after set 5's sealed half had been scored, against the pages of commit 55366a5.
    "6": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_6.toml",
        Path(__file__).resolve().parent / "search_heldout_6_results.json",
    ),
    # Written blind on 2026-11-29 from GitHub threads by a helper who never ran a ranking,
    # after set 6's sealed half had been scored, against the pages of commit ab69c7e.
    "7": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_7.toml",
        Path(__file__).resolve().parent / "search_heldout_7_results.json",
    ),
    # Written blind on 2026-11-29 from GitHub threads by a helper who never ran a ranking,
    # after set 7's sealed half had been scored, against the pages of commit 7d9b3ee.
    "8": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_8.toml",
        Path(__file__).resolve().parent / "search_heldout_8_results.json",
    ),
    # Written blind on 2026-11-29 from GitHub threads by a helper who never ran a ranking,
    # after set 8's sealed half had been scored, against the pages of commit 1b437bc.
    "9": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_9.toml",
        Path(__file__).resolve().parent / "search_heldout_9_results.json",
    ),
    # Written blind on 2026-11-29 (evening) from GitHub threads by a helper who never ran a
    # ranking, after set 9's sealed half had been scored, against the pages of commit 0a41ece.
    "10": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_10.toml",
        Path(__file__).resolve().parent / "search_heldout_10_results.json",
    ),
    # Written blind on 2026-11-29 (evening) by a helper who never ran a ranking, while set
    # 10's sealed half was still unscored, against the pages of commit 7914792.
    "11": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_11.toml",
        Path(__file__).resolve().parent / "search_heldout_11_results.json",
    ),
    # Written blind on 2026-11-29 (night) by a helper who never ran a ranking, after set
    # 11's sealed half had been scored, against the pages of commit 83fccfa; its topics
    # kept to the site's subject.
    "12": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_12.toml",
        Path(__file__).resolve().parent / "search_heldout_12_results.json",
    ),
    # Written blind on 2026-11-30 by helpers who never ran a ranking, after set 12's sealed
    # half had been scored; its topics tilted toward the census's messages (its header).
    "13": (
        ROOT / "tests" / "fixtures" / "search" / "held_out_13.toml",
        Path(__file__).resolve().parent / "search_heldout_13_results.json",
    ),
}
HALVES = ("tune", "sealed")
MACHINERIES = ("material", "material-stock", "pagefind")
TOP = 10  # results kept per query: a rank below this is "not in the first 10"

# What decides the ranking, hashed so that a run cannot silently stand for other code:
# the pages and their configuration (the index is built from them), the search machinery
# the site ships (hooks and assets under docs/), and this measurement.
MEASURED = [
    "mkdocs.yml",
    "docs",
    "verification/search_rank.py",
    "verification/search_heldout.py",
    "verification/search_pagefind.py",
    # The worker and the index's additions that docs/hooks/search_worker.py ships.
    "verification/search_machinery.py",
    "verification/search_worker.js",
    "verification/symptoms",
]

RULE = (
    "A query whose `page` is a page of the site is answered first when that page is the "
    "first result (results are grouped by page, as the search box shows them), and in the "
    "top 3 when it is among the first three. `rank` is its 1-based place among the first "
    f'{TOP} results, null when it is not among them. A query with page = "" (no page of '
    "the site answers it, as marked before any ranking) has no right answer to rank: it is "
    "left out of `first` and `top3` and their denominator `answerable`, and listed under "
    "`no_answer` with what came first, so that a reader can judge whether the search "
    "misleads. The stricter figure, for the issue's goal (27 of 30 first, 29 in the top 3), "
    "is `first` and `top3` over `queries`, every query of the half: the no-answer queries "
    "count there as misses."
)


def load_queries(half: str, path: Path = QUERIES) -> list[dict]:
    """The queries of one half of the held-out set, in file order."""
    if half not in HALVES:
        raise SystemExit(f"search_heldout: --half must be one of {HALVES}, not {half!r}")
    with path.open("rb") as handle:
        queries = tomllib.load(handle)["query"]
    for number, query in enumerate(queries, 1):
        for field in ("text", "page", "half"):
            if field not in query:
                raise SystemExit(f"search_heldout: {path} query {number} has no `{field}`")
    return [query for query in queries if query["half"] == half]


def page_of(url: str) -> str:
    """A result's page as the queries name it (/guide/foo/), from a location or URL."""
    path = url.split("#")[0].split("?")[0]
    path = "/" + path.lstrip("/")
    if path.endswith("index.html"):
        path = path[: -len("index.html")]
    return path if path.endswith("/") else path + "/"


def score_ranking(queries: list[dict], rankings: list[list[str]]) -> dict:
    """Counts and per-query ranks, from the pages each query's search listed, best first."""
    per_query, no_answer = [], []
    for query, pages in zip(queries, rankings, strict=True):
        pages = [page_of(page) for page in pages][:TOP]
        if not query["page"]:
            no_answer.append(
                {"text": query["text"], "first": pages[0] if pages else None, "results": len(pages)}
            )
            continue
        rank = pages.index(query["page"]) + 1 if query["page"] in pages else None
        per_query.append(
            {"text": query["text"], "page": query["page"], "rank": rank, "top": pages[:3]}
        )
    first = sum(entry["rank"] == 1 for entry in per_query)
    top3 = sum(entry["rank"] is not None and entry["rank"] <= 3 for entry in per_query)
    return {
        "queries": len(queries),
        "answerable": len(per_query),
        "first": first,
        "top3": top3,
        "per_query": per_query,
        "no_answer": no_answer,
    }


def build_site(folder: Path) -> float:
    """Build the site with --strict into ``folder``; the seconds it took."""
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "verification.site_build", "build", "--site-dir", str(folder)],
        cwd=ROOT,
        check=True,
    )
    return time.monotonic() - start


def rank_material(site: Path, texts: list[str]) -> tuple[list[list[str]], dict]:
    from verification.search_rank import rank, site_worker

    answers = rank(site, texts, TOP)
    index = (site / "search" / "search_index.json").read_bytes()
    cost = {
        "index_bytes": len(index),
        # What a reader downloads when the server compresses (GitHub Pages sends gzip).
        "index_gzip_bytes": len(gzip.compress(index, compresslevel=6)),
        "worker_bytes": worker_bytes(site_worker(site)),
    }
    return [[result["page"] for result in results] for results in answers], cost


def stock_copy(site: Path, folder: Path) -> Path:
    """A copy of ``site`` whose search is Material's alone, as the project had it before
    issue 51: Material's worker (the pages point at it again), its English pipeline (stop
    words, no stemmer) and its heading weight (1000); the same pages, separator and page
    boosts. What differs from ``site`` is then the machinery only."""
    from verification.search_machinery import material_worker

    copy = folder / "stock"
    shutil.copytree(site, copy)
    worker = material_worker().name
    for page in copy.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        changed = re.sub(r"search-retracing\.[0-9a-f]+\.js", worker, text)
        if changed != text:
            page.write_text(changed, encoding="utf-8")
    index_path = copy / "search" / "search_index.json"
    index = json.loads(index_path.read_text(encoding="utf-8"))
    index["config"]["pipeline"] = ["stopWordFilter"]
    index["config"]["fields"]["title"] = {"boost": 1000.0}
    index_path.write_text(json.dumps(index, separators=(",", ":")), encoding="utf-8")
    return copy


def worker_bytes(worker: Path) -> int:
    """Bytes of the worker and of the scripts it loads from beside it (importScripts)."""
    total = worker.stat().st_size
    for name in re.findall(r'importScripts\("([^"]+)"\)', worker.read_text(encoding="utf-8")):
        total += (worker.parent / name).stat().st_size
    return total


def machinery_name(machinery: str) -> str:
    from importlib.metadata import version

    if machinery == "material":
        return f"mkdocs-material {version('mkdocs-material')} search (lunr), as the site sets it up"
    if machinery == "material-stock":
        return f"mkdocs-material {version('mkdocs-material')} search (lunr) alone: before issue 51"
    return f"pagefind {version('pagefind')}"


def measure(
    half: str,
    machinery: str,
    site: Path | None,
    build_into: Path | None = None,
    queries_path: Path = QUERIES,
) -> dict:
    queries = load_queries(half, queries_path)
    with tempfile.TemporaryDirectory() as folder:
        build_seconds = None
        if site is None:
            site = build_into or Path(folder) / "site"
            build_seconds = round(build_site(site), 1)
        if machinery == "material":
            rankings, cost = rank_material(site, [query["text"] for query in queries])
        elif machinery == "material-stock":
            stock = stock_copy(site, Path(folder))
            rankings, cost = rank_material(stock, [query["text"] for query in queries])
        else:
            from verification.search_pagefind import rank_pagefind

            rankings, cost = rank_pagefind(site, [query["text"] for query in queries])
    run = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "half": half,
        "machinery": machinery_name(machinery),
        "code_hash": code_hash(MEASURED),
        "measured": MEASURED,
        "queries_file": queries_path.relative_to(ROOT).as_posix(),
        "site_build_seconds": build_seconds,
        **cost,
        **score_ranking(queries, rankings),
    }
    return run


def record(run: dict, machinery: str, path: Path = RESULTS, queries: Path = QUERIES) -> dict:
    """Add ``run`` to the results file: the latest for its half and machinery, and the
    first run too when there is none yet (a first run is never replaced)."""
    results = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    results.setdefault("schema_version", 1)
    results["queries"] = queries.relative_to(ROOT).as_posix()
    results["rule"] = RULE
    slot = results.setdefault("runs", {}).setdefault(run["half"], {}).setdefault(machinery, {})
    slot.setdefault("first_run", run)
    slot["latest"] = run
    text = json.dumps(results, indent=1, ensure_ascii=False) + "\n"
    partial = path.with_suffix(".json.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)  # never a half-written results file
    return results


def summary(run: dict) -> str:
    return (
        f"{run['half']} half, {run['machinery']}: answering page first for {run['first']} of "
        f"{run['answerable']} answerable queries, top 3 for {run['top3']} "
        f"({run['queries'] - run['answerable']} with no answering page); "
        f"code {run['code_hash']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="rank one half and record it")
    score.add_argument("--half", required=True, choices=HALVES)
    score.add_argument("--set", default="1", choices=sorted(SETS), help="which sealed set")
    score.add_argument("--machinery", default="material", choices=MACHINERIES)
    score.add_argument("--site", type=Path, help="an already built site (else it is built)")
    score.add_argument("--build-into", type=Path, help="build the site here and keep it")
    score.add_argument("--no-record", action="store_true", help="print, do not write")
    args = parser.parse_args(argv)
    queries, results = SETS[args.set]
    run = measure(args.half, args.machinery, args.site, args.build_into, queries)
    for entry in run["per_query"]:
        if entry["rank"] != 1:
            print(
                f"  rank {entry['rank']}: {entry['text'][:90]!r} want {entry['page']}, "
                f"got {entry['top']}"
            )
    for entry in run["no_answer"]:
        print(f"  no answer: {entry['text'][:90]!r}: first {entry['first']}")
    print(summary(run))
    if not args.no_record:
        record(run, args.machinery, results, queries)
        print(f"recorded in {results.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
