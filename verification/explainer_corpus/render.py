"""The corpus's results as Markdown, for the Diagnosing page (``<!-- explainer-corpus -->``)."""

from __future__ import annotations

from benchmarks.code_hash import stale_admonition

MARKER = "<!-- explainer-corpus -->"
MODES = (("wrapped", "wrapped"), ("whole_program", "whole program"))


def replace_marker(markdown: str, data: dict, source_link) -> str:
    """``markdown`` with the marker replaced by the scores and the per-case table;
    ``source_link(path)`` gives the link to a file of the repository."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(data, source_link))


def scores(cases: list[dict]) -> dict[str, tuple[int, int]]:
    """Passed and run, per mode and for the fixes."""
    result = {}
    for mode, _ in MODES:
        runs = [case[mode] for case in cases if case[mode] is not None]
        result[mode] = (sum(run["passed"] for run in runs), len(runs))
    fixes = [case["fix"] for case in cases if case["fix"] is not None]
    result["fix"] = (sum(fix["passed"] for fix in fixes), len(fixes))
    return result


def render(data: dict, source_link) -> str:
    cases = data["cases"]
    provenance = data["provenance"]
    score = scores(cases)
    lines = [
        stale_admonition(provenance)
        + f"Run of {provenance['date']} at commit `{provenance['commit']}`, TensorFlow "
        f"{provenance['tensorflow']}, tf_retracing {provenance['tf_retracing']}, Python "
        f"{provenance['python']} ({provenance['machine']}, {provenance['seconds']} s), by "
        f"`{provenance['command']}`{_hash_text(provenance)}.",
        "",
        "| | passed |",
        "|---|---|",
    ]
    for mode, title in MODES:
        lines.append(f"| {title} | {score[mode][0]} of {score[mode][1]} |")
    lines.append(f"| fixes that run and retrace no more | {score['fix'][0]} of {score['fix'][1]} |")
    lines += [
        "",
        "| case and report | expected: function, argument, kind | wrapped | whole program | fix |",
        "|---|---|---|---|---|",
    ]
    for case in cases:
        lines.append(_row(case, source_link))
    return "\n".join(lines)


def _hash_text(provenance: dict) -> str:
    recorded = provenance.get("code_hash")
    return f", of the code with hash `{recorded}`" if recorded else ""


def _row(case: dict, source_link) -> str:
    expected = "<br>".join(
        f"`{_short_name(function)}` `{argument}` {kind}"
        if argument
        else f"`{_short_name(function)}` {kind}"
        for function, argument, kind in case["expect"]
    )
    name = case["id"].replace("_", "_<wbr>")  # long ids may break at their underscores
    cells = [
        f"[{name}]({source_link(f'verification/explainer_corpus/cases/{case["id"]}.py')})<br>"
        f"[{_short(case['source'])}]({case['source']})",
        expected or "no retrace",
        *(_verdict(case[mode]) for mode, _ in MODES),
        _verdict(case["fix"]),
    ]
    return "| " + " | ".join(cells) + " |"


def _verdict(run: dict | None) -> str:
    if run is None:
        return "–"
    if run["passed"]:
        return "yes"
    problems = []
    for label in ("missing", "false"):
        for function, argument, kind in run.get(label, []):
            problems.append(f"{label}: `{function}` `{argument}` {kind}")
    if run["exit_status"] != 0:
        problems.append(f"exit status {run['exit_status']}")
    if run.get("advice_printed") is False:
        problems.append("advice not printed")
    if run.get("retraces"):
        problems.append(f"still retraces: {run['retraces']}")
    return "**no**: " + "; ".join(problems)


def _short_name(function: str) -> str:
    """The function's own name: Keras's are 80 characters with their enclosing ones."""
    return function.rsplit(".", 1)[-1]


def _short(url: str) -> str:
    """``tensorflow/tensorflow#34481`` for a GitHub issue, the host for anything else."""
    parts = url.removeprefix("https://").split("/")
    if parts[0] == "github.com" and len(parts) >= 5 and parts[3] in ("issues", "pull"):
        return f"{parts[1]}/{parts[2]}#{parts[4].split('#')[0]}"
    if parts[0] == "stackoverflow.com" and len(parts) >= 3 and parts[1] == "questions":
        return f"Stack Overflow {parts[2]}"
    return parts[0]
