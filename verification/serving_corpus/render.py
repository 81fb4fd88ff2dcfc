"""The serving corpus's results as Markdown, for the Serving page (``<!-- serving-corpus -->``)."""

from __future__ import annotations

from benchmarks.code_hash import stale_admonition

MARKER = "<!-- serving-corpus -->"
STEPS = ("first calls", "set_weights", "assign", "load_weights", "8 threads")


def replace_marker(markdown: str, data: dict, source_link) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(data, source_link))


def render(data: dict, source_link) -> str:
    rows = data["architectures"]
    provenance = data["provenance"]
    passed = sum(row["passed"] for row in rows)
    lines = [
        stale_admonition(provenance)
        + f"{passed} of {len(rows)} architectures passed. Run of {provenance['date']} at commit "
        f"`{provenance['commit']}`, TensorFlow {provenance['tensorflow']}, Keras "
        f"{provenance['keras']}, Python {provenance['python']} ({provenance['machine']}, "
        f"{provenance['seconds']} s), by `{provenance['command']}` "
        f"([the corpus]({source_link('benchmarks/architectures.py')})).",
        "",
        "Each architecture's largest difference from the output its weights define, relative "
        "to the output's largest magnitude, over every step (first calls, "
        + ", ".join(STEPS[1:])
        + "), and how many times Keras's own call was stale and the predictor warned:",
        "",
        "| architecture | variables | route | traces | largest difference | stale, warned "
        "| passed |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        worst = max(row["errors"][step] for step in STEPS)
        stale = row["stale_keras_models"]
        warned = stale - len(row["stale_unwarned"])
        route = row["route"] if row["reason"] is None else f"{row['route']}: {row['reason']}"
        lines.append(
            f"| [{row['title']}]({row['source']}) | {row['variables']} | {route} | "
            f"{row['traces']} | {worst:.1e} | {stale}, {warned} | "
            f"{'yes' if row['passed'] else '**no**'} |"
        )
    return "\n".join(lines)
