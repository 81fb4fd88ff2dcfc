"""A page of the site per scenario of a results file, with an anchor on every figure, so
that a claim citing a results figure links to that figure and not to the top of a large
JSON file.

The pages are generated at build time (``docs/hooks/claims.py`` adds them) from
``benchmarks/results/*.json``: ``benchmarks/results/<file>/<scenario>.md`` lists every
figure of the scenario's run, grouped by the record it belongs to (a variant, a ratio, a
row of a scenario's extra table), each as its key path and its value exactly as the file
holds it; ``benchmarks/results/<file>/index.md`` lists the file's scenarios. Whether the
run is older than its code (``benchmarks.code_hash.freshness``) is said at the top.

Plain functions, unit-tested in ``tests/test_results_pages.py``. Values and texts from a
results file reach the page only as inline code, so none of them becomes markup.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.code_hash import NO_HASH, freshness

RESULTS_FOLDER = "benchmarks/results"  # in the repository, and on the site
FRESH = "fresh"


def is_results_file(file: str) -> bool:
    """Whether ``file`` (from the repository root) is a results file the site has pages
    for: ``benchmarks/results/<device>.json``."""
    path = Path(file)
    return path.parent.as_posix() == RESULTS_FOLDER and path.suffix == ".json"


def page_of(file: str, scenario: str | None) -> str:
    """The page (a path from docs/) that shows a scenario of ``file``, or its index."""
    return f"{RESULTS_FOLDER}/{Path(file).stem}/{scenario or 'index'}.md"


def figure_anchor(parts: tuple[str, ...] | list[str]) -> str:
    """The HTML id of the figure at ``parts`` (its key path inside the scenario)."""
    return "-".join(re.sub(r"[^A-Za-z0-9_]+", "_", part) for part in parts)


def locate(key: str) -> tuple[str | None, tuple[str, ...]]:
    """(scenario, key path inside it) of a figure's key path in a results file;
    (None, the whole path) for a figure outside any scenario."""
    parts = tuple(key.split("/"))
    if len(parts) > 2 and parts[0] == "scenarios":
        return parts[1], parts[2:]
    return None, parts


FIRST_RUN = "first_run"


def run_state(document: dict, key: str, root: Path) -> str:
    """``FRESH`` when the run that wrote the figure at ``key`` measured the code as it is
    now; otherwise the sentence ``freshness`` gives (changed code, or no hash recorded).
    A figure outside any run (a file's ``device``) is fresh: no code produced it. So is a
    figure of a first run kept beside the latest (a corpus's blind score, ``first_run``):
    it is cited as what the code of its day scored, so its age is its point, not a fault."""
    if FIRST_RUN in key.split("/"):
        return FRESH
    holder = _run_holder(document, key)
    if holder is None:
        return FRESH
    return freshness(holder, root) or FRESH


def _run_holder(document: Any, key: str) -> dict | None:
    """The dict that records the hashes of the run that wrote ``key``: the deepest dict
    on the path that has a ``provenance``; the hashes sit beside it (a benchmark
    scenario) or inside it (a corpus run)."""
    holder, value = None, document
    for part in [*key.split("/"), None]:
        if isinstance(value, dict) and isinstance(value.get("provenance"), dict):
            holder = value if ("measured" in value or "code_hash" in value) else value["provenance"]
        if part is None:
            break
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            break
    return holder


def leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every figure under ``value``: (key path, value), in the file's order."""
    if isinstance(value, dict):
        for name, inner in value.items():
            yield from leaves(inner, (*path, str(name)))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from leaves(inner, (*path, str(index)))
    else:
        yield path, value


def _record(path: tuple[str, ...]) -> tuple[str, ...]:
    """The record a figure belongs to: its path up to the last list position (a variant,
    a ratio, a row), or its first key."""
    positions = [i for i, part in enumerate(path[:-1]) if part.isdigit()]
    return path[: positions[-1] + 1] if positions else path[:1]


def code(text: str) -> str:
    """``text`` as an inline code span, verbatim whatever backticks it holds."""
    text = " ".join(text.split()) or " "
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def scenario_page(file: str, name: str, result: dict, root: Path, repo_url: str) -> str:
    """The Markdown of the page that shows every figure of one scenario's run."""
    state = freshness(result, root)
    lines = [
        f"# Results: {code(name)} in {code(Path(file).name)}",
        "",
        f"Every figure that the benchmark script wrote for the scenario {code(name)} in "
        f"[{code(file)}]({repo_url.rstrip('/')}/blob/main/{file}), with its key path and "
        "its value exactly as the file holds it. A claim on a guide page that cites one of "
        "these figures links to its line here. [All scenarios of this file](index.md)",
        "",
        _state_note(state),
        "",
    ]
    groups: dict[tuple[str, ...], list[tuple[tuple[str, ...], Any]]] = {}
    for path, value in leaves(result):
        groups.setdefault(_record(path), []).append((path, value))
    anchors: set[str] = set()
    long_lists = _long_lists(groups)
    folded: tuple[str, ...] | None = None
    # One line per record (a variant, a ratio, a row), its figures side by side: a page of
    # hundreds of figures stays a few screens high, and each figure keeps its own id.
    for record, figures in groups.items():
        shown = []
        for path, value in figures:
            anchor = figure_anchor(path)
            if anchor in anchors:
                raise ValueError(f"{file}: {name}: two figures would share the id {anchor!r}")
            anchors.add(anchor)
            inner = "/".join(path[len(record) :]) or path[-1]
            shown.append(f"{_plain(inner)} = {code(_shown(value))}{{ #{anchor} .results-figure }}")
        line = f"- **{_plain(' / '.join(record))}**: " + " · ".join(shown)
        rows = record[:-1] if record[:-1] in long_lists and record[-1].isdigit() else None
        if rows is not None and rows != folded:  # a long list starts: its rows fold
            title = f"{_plain(' / '.join(rows))}: {long_lists[rows]} rows"
            lines += ["", f'??? abstract "{title}"', ""]
        elif rows is None and folded is not None:
            lines.append("")
        folded = rows
        lines.append(f"    {line}" if rows is not None else line)
    lines.append("")
    return "\n".join(lines)


# A scenario page with more figures than this folds each list of more than FOLD_ROWS
# records (a row per architecture, per tenant count) into a box of its own: the page
# stays within twelve screens, and a link to a figure opens the box it is in (browsers
# open a closed box that holds the element a link's fragment names).
FOLD_FIGURES = 800
FOLD_ROWS = 12


def _long_lists(groups: dict) -> dict[tuple[str, ...], int]:
    """The lists whose rows fold, with their number of rows: none on a page of at most
    FOLD_FIGURES figures; else each list of more than FOLD_ROWS records."""
    if sum(len(figures) for figures in groups.values()) <= FOLD_FIGURES:
        return {}
    rows = Counter(record[:-1] for record in groups if record and record[-1].isdigit())
    return {parent: count for parent, count in rows.items() if count > FOLD_ROWS}


def _plain(text: str) -> str:
    """Text from a results file's keys, with every sign that Markdown or HTML reads
    written as a character reference: shown as written, never markup."""
    return "".join(c if c.isalnum() or c in " /-." else f"&#{ord(c)};" for c in text)


def _state_note(state: str | None) -> str:
    if state is None:
        return "This run measured the code as it is now (its code hash matches)."
    if state == NO_HASH:
        return f'!!! warning "No code hash"\n\n    {state}'
    return f'!!! warning "Older than its code"\n\n    {state}'


def file_index(file: str, document: dict, root: Path) -> str:
    """The Markdown of the page that lists a results file's scenarios and their state."""
    lines = [
        f"# Results in {code(Path(file).name)}",
        "",
        "Each scenario's page lists every figure of its run. A scenario is *older than its "
        "code* when the code it measured has changed since it ran, and has *no code hash* "
        "when it ran before hashes were kept.",
        "",
        "| Scenario | Run | State |",
        "|---|---|---|",
    ]
    for name, result in document.get("scenarios", {}).items():
        state = freshness(result, root)
        word = "fresh" if state is None else "no code hash" if state == NO_HASH else "older"
        date = result.get("provenance", {}).get("date", "")
        lines.append(f"| [{code(name)}]({name}.md) | {code(str(date))} | {word} |")
    other = [(p, v) for p, v in leaves(document) if p[0] != "scenarios"]
    if other:
        lines += ["", "Figures of the file itself:", ""]
        lines += [
            f"- {code('/'.join(p))}: {code(_shown(v))}{{ #{figure_anchor(p)} .results-figure }}"
            for p, v in other
        ]
    return "\n".join(lines) + "\n"


def results_page_paths(root: Path) -> list[str]:
    """The paths (from docs/) of the pages ``results_pages`` makes, without making them."""
    import json

    paths = []
    for path in sorted((root / RESULTS_FOLDER).glob("*.json")):
        file = path.relative_to(root).as_posix()
        document = json.loads(path.read_text(encoding="utf-8"))
        paths.append(page_of(file, None))
        paths += [page_of(file, name) for name in document.get("scenarios", {})]
    return paths


def results_pages(root: Path, repo_url: str) -> dict[str, str]:
    """Every page (path from docs/ -> Markdown) for the results files under ``root``."""
    import json

    pages = {}
    for path in sorted((root / RESULTS_FOLDER).glob("*.json")):
        file = path.relative_to(root).as_posix()
        document = json.loads(path.read_text(encoding="utf-8"))
        pages[page_of(file, None)] = file_index(file, document, root)
        for name, result in document.get("scenarios", {}).items():
            pages[page_of(file, name)] = scenario_page(file, name, result, root, repo_url)
    return pages
