"""The site's search worker: Material's, followed by verification/search_worker.js, which
stems the query as the index is stemmed, drops the words of a pasted message that are data,
and weighs down an entry that holds one word of a long query (what and why: that file's
header); the search weight of the pages generated from results files; and the symptom
index's messages added to the search entry of the section that answers each.

docs/hooks/search_worker.py calls these at build time: the worker is written beside
Material's under a name that changes with its content, and every page's theme
configuration (``<script id="__config">``) is pointed at it instead of Material's.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

WORKER_SOURCE = Path(__file__).resolve().parent / "search_worker.js"
WORKERS = Path("assets") / "javascripts" / "workers"
CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def material_worker() -> Path:
    """The installed theme's search worker (search.<hash>.min.js)."""
    import material

    folder = Path(material.__file__).parent / "templates" / WORKERS
    found = sorted(folder.glob("search.*.min.js"))
    if len(found) != 1:
        raise RuntimeError(f"search_machinery: expected one search.*.min.js in {folder}: {found}")
    return found[0]


def worker_text(material_name: str, source: Path = WORKER_SOURCE) -> str:
    """The site's worker: Material's, loaded from beside it, then the query changes."""
    return f"importScripts({json.dumps(material_name)});\n" + source.read_text(encoding="utf-8")


def worker_name(text: str) -> str:
    return f"search-retracing.{hashlib.sha256(text.encode()).hexdigest()[:8]}.js"


def point_config_at(page: str, name: str) -> str:
    """``page`` with its theme configuration's search worker replaced by ``name`` (in the
    same folder, so the relative URL the theme wrote keeps its prefix). A page without the
    configuration is returned unchanged; a configuration without a worker is an error."""
    found = CONFIG.search(page)
    if found is None:
        return page
    config = json.loads(found[2])
    if "search" not in config:
        raise ValueError("search_machinery: the theme configuration names no search worker")
    folder = config["search"].rsplit("/", 1)[0]
    config["search"] = f"{folder}/{name}"
    text = json.dumps(config, separators=(",", ":")).replace("</", "<\\/")
    return page[: found.start(2)] + text + page[found.end(2) :]


# Pages generated from results files (benchmarks.results_pages): every figure as its key
# path and value. Data that holds words of many queries ("predict_loop", "sequence_lengths",
# "batch_size") and came first above the page that answers them. They are reached from the
# claims that cite them, not from the search box, so search leaves them out: weighed 0.3
# they still took first place for one query of queries.toml (72 of 84 first; left out, 73).
RESULTS_PAGES = "benchmarks/results/"

# The notebooks (mkdocs-jupyter) put every code cell and output before their first heading,
# so a notebook's own entry holds all its code (8,479 of diagnose-serving-loop's 11,454
# characters) and gets Material's bonus for a page's own entry: words of code ("model",
# "predict", "slow", "len", "shape") placed the notebook above the guide page it repeats
# (set 3's tune half: 2 queries; set 1's: 1). No query of any set is answered by a
# notebook. Weighed at this, a notebook is still found by its title.
NOTEBOOKS = "notebooks/"
NOTEBOOK_BOOST = 0.5


def search_meta(src_uri: str) -> dict | None:
    """The search settings the build gives a page that has none of its own, or None."""
    if src_uri.startswith(RESULTS_PAGES):
        return {"exclude": True}
    if src_uri.startswith(NOTEBOOKS) and src_uri.endswith(".ipynb"):
        return {"boost": NOTEBOOK_BOOST}
    return None


# A pasted message is answered by a section of the guide, but its words are on the messages
# page, which lists them all (and is weighed down for that, see its front matter), and the
# answering section rarely quotes the message whole. Each message of the symptom index
# (verification/symptoms/messages.toml) is therefore added to the search entry of the
# section that answers it, after that section's own text: a pasted message then matches its
# answer on every word, and the result's preview shows the message under the section's
# heading. Only the search index changes; the page does not.
ANSWERS_LEAD = "Messages this section answers:"


def add_symptoms(index: dict, messages: Iterable, url_of: Callable[[str], str]) -> int:
    """Append each message's ``shown`` text to the entry of ``index`` (Material's
    search_index.json) for its answering section; ``url_of`` maps a docs-relative page to
    its URL as the index writes it. A section the index lacks is an error naming the
    message, except the page's own title, whose entry is the page's. Returns how many
    entries changed."""
    entries = {entry["location"]: entry for entry in index["docs"]}
    answered: dict[str, list[str]] = {}
    for message in messages:
        url = url_of(message.page)
        location = f"{url}#{message.anchor}"
        if location not in entries and _is_page_title(entries.get(url), message.anchor):
            location = url
        if location not in entries:
            raise ValueError(
                f"search_machinery: symptom {message.title!r} answers {message.answer}, "
                f"which has no search entry ({location})"
            )
        answered.setdefault(location, []).append(message.shown.strip())
    for location, shown in answered.items():
        quoted = "".join(f"<p>{html.escape(text)}</p>" for text in shown)
        entries[location]["text"] += f"<p>{ANSWERS_LEAD}</p>{quoted}"
    return len(answered)


def _is_page_title(entry: dict | None, anchor: str) -> bool:
    from markdown.extensions.toc import slugify

    if entry is None:
        return False
    title = re.sub(r"<[^>]+>", "", html.unescape(entry["title"]))
    return slugify(title, "-") == anchor
