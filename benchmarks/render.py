"""Results -> Markdown tables and SVG plots, and the page markers that ask for them.

Pure functions of the loaded results: the MkDocs hook only calls them. A page asks for a
figure with a marker alone on its line, e.g. ``<!-- benchmark:table loop_count -->``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from benchmarks.claims import CLAIMS
from benchmarks.code_hash import stale_admonition
from benchmarks.formatting import number, ratio_text
from benchmarks.lookup import find_ratio, headline_ratio
from benchmarks.measure import relative_half_width
from benchmarks.scenarios import NAMES
from benchmarks.scenarios.base import COLD, STEADY
from benchmarks.schema import DEVICES, ResultsFile
from benchmarks.serving_goals import DISPATCH_GOAL, DISPATCH_SHARE, FLOOR_LIMIT, goal_rows

DEVICE_NAMES = {device: device.upper() for device in DEVICES}
MARKER = re.compile(r"^<!--\s*benchmark:(?P<kind>[\w-]+)(?:\s+(?P<name>\S+))?\s*-->[ \t]*$", re.M)
LOOSE_MARKER = re.compile(r"^.*<!--\s*benchmark:.*$", re.M)
KINDS_WITH_NAME = ("table", "plot")
KINDS_ALONE = ("claims", "gpu", "runs", "serving-goals")

# Colours legible on both Material's light (white) and slate (dark blue-grey) backgrounds.
INK = "#8a8f98"
COLD_COLOUR = "#ef6c00"
STEADY_COLOUR = "#3f7fd6"
# A plot is 4.6 in (331 pt) wide with 11 pt type: scaled down to a 390 px phone's column
# (about 360 px) its text stays above 11 CSS px; tests/test_browser.py measures it.
PLOT_WIDTH_INCHES = 4.6
PLOT_FONT_SIZE = 11


class MarkerError(Exception):
    """A page asks for a figure that cannot be rendered; the message names page and marker."""


class RenderError(Exception):
    """Validated results that still failed to render: a bug here, named by file and figure."""


# --- numbers (number and ratio_text live in benchmarks.formatting) ----------------------


def _optional_number(value: float | None) -> str:
    return "–" if value is None else number(value)


# --- text from results files ------------------------------------------------------------
# A results file comes from a runner or a pull request: every string in it is text, never
# markup. Characters that Markdown, HTML or the autolinker would read as syntax become
# numeric character references, which the browser shows as the character itself.
# (No extension of this site autolinks bare text, so ":" and "@" need nothing.)
_SYNTAX = frozenset("&<>`*_{}[]#+!|\\")


def text(value: Any) -> str:
    """A results-file value as inert text for a Markdown page (tables included)."""
    return "".join(f"&#{ord(c)};" if c in _SYNTAX or ord(c) < 32 else c for c in str(value))


def code(value: Any) -> str:
    """A results-file value shown as code, with nothing in it read as markup."""
    return f"<code>{text(value)}</code>"


def label_text(value: str) -> str:
    """A label or title: text, with `backtick` spans (how scenarios mark code) as code."""
    parts = str(value).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code span at all
        return text(value)
    return "".join(code(part) if i % 2 else text(part) for i, part in enumerate(parts))


def spread_text(summary: Mapping[str, float]) -> str:
    return f"{number(summary['median'])} ({number(summary['p5'])}–{number(summary['p95'])})"


# --- tables -----------------------------------------------------------------------------


def provenance_line(result: Mapping[str, Any]) -> str:
    p = result["provenance"]
    machine = f"{text(p['cpu_model'])}, {p['cpu_cores']} cores"
    if "onednn" in p:  # recorded since runs were made where oneDNN's default differs
        machine += f", oneDNN {text(p['onednn'])}"
    if p["gpu"]:
        machine = f"{text(p['gpu']['name'])} (driver {text(p['gpu']['driver'])}), host {machine}"
    return (
        f"{DEVICE_NAMES[p['device']]}: {machine}; TensorFlow {text(p['tensorflow'])}, "
        f"Keras {text(p['keras'])}, Python {text(p['python'])}; "
        f"**{text(p['profile'])} profile**, "
        f"{result['repetitions']} interleaved repetitions of {result['calls_per_pass']} calls; "
        f"{text(p['date'])}, commit {code(p['git_commit'])}, {code(p['command'])}"
        + (f", code hash {code(result['code_hash'])}." if result.get("code_hash") else ".")
    )


def _speedup_cell(result: Mapping[str, Any], variant: str, which: str) -> str:
    if variant == result["baseline"]:
        return "1× (baseline)"
    ratio = find_ratio(result, variant, which)
    cell = ratio_text(ratio)
    return f"**{cell}**" if ratio["headline"] else cell


def scenario_table(name: str, result: Mapping[str, Any]) -> str:
    header = (
        # The headline figures (speedups, memory growth) come right after the variant, so
        # that they stay in view on a narrow screen, where the rest of the table scrolls.
        "| Variant | Speedup, cold pass | Speedup, steady | Memory growth (MB) | Traces "
        "| Retraces per 1000 calls | First call (ms) | Cold pass (ms/call) "
        "| Steady (ms/call): median (p5–p95) | Steady throughput (rows/s) |"
    )
    on_gpu = result["provenance"]["device"] == "gpu"
    header += " Peak GPU memory (MB) |" if on_gpu else ""
    header += "\n|---|" + "--:|" * (9 + on_gpu) + "\n"
    rows = []
    for v in result["variants"]:
        traces = str(v["traces"])
        if v["traces_min"] != v["traces"]:
            traces = f"{v['traces_min']}–{v['traces']}"
        if v["steady_pass_traces"]:
            traces += f" (+{v['steady_pass_traces']} in the steady pass)"
        rows.append(
            f"| {label_text(v['label'])} "
            f"| {_speedup_cell(result, v['name'], COLD)} "
            f"| {_speedup_cell(result, v['name'], STEADY)} "
            f"| {number(v['rss_growth_mb'])} "
            f"| {traces} | {number(v['retraces_per_1000_calls'])} "
            f"| {number(v['first_call_ms'])} | {number(v['cold_ms_per_call']['median'])} "
            f"| {spread_text(v['steady_ms_per_call'])} "
            f"| {number(v['steady_throughput_per_s'])} |"
            + (f" {_optional_number(v['peak_gpu_mb'])} |" if on_gpu else "")
        )
    table = header + "\n".join(rows) + "\n"
    extra = EXTRA_RENDERERS.get(name, lambda _: "")
    return (
        stale_admonition(result)
        + table
        + extra(result)
        + "\n"
        + setup_line(result)
        + " "
        + provenance_line(result)
        + "\n"
    )


def setup_line(result: Mapping[str, Any]) -> str:
    """The scenario's inputs, as the script describes them (stream length, sizes, ...)."""
    pairs = result["parameters"].items()
    return "Set-up: " + "; ".join(f"{label_text(k)} {label_text(v)}" for k, v in pairs) + "."


def weight_cache_extra(result: Mapping[str, Any]) -> str:
    memory = result["extra"]["memory"]
    lines = [
        "\nResident memory added by serving N models, each called once (MB), and the "
        "traces it took:\n",
        "| Models | One `tf.function` per model | Traces | One shared graph | Traces |",
        "|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {row['models']} | {number(row['dedicated_mb'])} | {row['dedicated_traces']} "
        f"| {number(row['shared_mb'])} | {row['shared_traces']} |"
        for row in memory
    ]
    wrong = result["extra"]["wrong_outputs"]
    lines += [
        "",
        f"Wrong outputs when {wrong[0]['threads']} threads share one predictor (a result is "
        "wrong when it differs from `model(x)` by more than 1e-6):\n",
        "| Predictor | Wrong outputs | Calls |",
        "|---|--:|--:|",
    ]
    lines += [f"| {label_text(w['label'])} | {w['wrong']} | {w['calls']} |" for w in wrong]
    return "\n".join(lines) + "\n"


def explainer_extra(result: Mapping[str, Any]) -> str:
    watched = headline_ratio(result)["variant"]  # the function under explain_retracing
    steady = find_ratio(result, watched, STEADY)
    cold = find_ratio(result, watched, COLD)

    def overhead(ratio: Mapping[str, float]) -> str:
        # A speedup below 1 is a slowdown: 1/ratio - 1 is the extra time, as a percentage.
        low, mid, high = (100 * (1 / ratio[k] - 1) for k in ("ci_high", "median", "ci_low"))
        return f"{number(mid, 2)}% (95% CI {number(low, 2)}% to {number(high, 2)}%)"

    return (
        f"\nExtra time of the watched function: {overhead(steady)} on calls that reuse a "
        f"trace, {overhead(cold)} on calls that retrace (the trace itself included).\n"
    )


def serving_architectures_extra(result: Mapping[str, Any]) -> str:
    rows = result["extra"]["architectures"]
    lines = [
        "\nSteady time per call (µs, median of the rounds) per architecture, and the speedup "
        "of the shared graph over a dedicated `tf.function` per model (above 1: the shared "
        "graph is faster; 95% CI over the rounds):\n",
        "| Architecture | Variables | Batch | Shared graph | Dedicated | `predict_on_batch` "
        "| Speedup (95% CI) | Traces: shared / dedicated |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        speedup = _interval(row)
        if row["route"] != "shared graph":
            speedup += " (own route)"
        lines.append(
            f"| {text(row['architecture'])} | {row['variables']} | {row['batch']} "
            f"| {number(row['shared_us'])} | {number(row['dedicated_us'])} "
            f"| {number(row['predict_on_batch_us'])} | {speedup} "
            f"| {row['shared_traces']} / {row['dedicated_traces']} |"
        )
    return (
        "\n".join(lines)
        + "\n\n"
        + _serving_crossover(rows)
        + "\n"
        + _graph_alone_table(rows)
        + _xla_choice_table(rows)
    )


def _xla_choice_table(rows: list[Mapping[str, Any]]) -> str:
    """What ``choose_xla=True`` chose per architecture and batch, where the run has it."""
    chosen = [row for row in rows if "xla_choice" in row]
    if not chosen:
        return ""
    lines = [
        "\nWith `SharedGraphPredictor(choose_xla=True)`: at the first request each shared "
        "graph is traced plainly and for XLA and timed on that request's input, and XLA is "
        "kept where it is faster and its output agrees; the trial times (µs, medians of "
        "7 calls), then the steady time of the chosen graph and its speedup over a dedicated "
        "`tf.function` per model (95% CI over the rounds). The last column is the A/A "
        "comparison: a second, identical dedicated function against the first, in the same "
        "rounds; a speedup within its spread is this machine's noise, not a difference:\n",
        "| Architecture | Batch | Chosen | Trial: plain | Trial: XLA | Steady, chosen "
        "| Speedup over dedicated (95% CI) | A/A: dedicated twice (95% CI) |",
        "|---|--:|---|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {text(row['architecture'])} | {row['batch']} | {text(row['xla_choice'])} "
        f"| {_optional_number(row.get('xla_trial_plain_us'))} "
        f"| {_optional_number(row.get('xla_trial_xla_us'))} "
        f"| {number(row['shared_xla_us'])} | {_interval(row, 'xla_')} "
        f"| {_interval(row, 'aa_') if 'aa_speedup_median' in row else 'not measured'} |"
        for row in chosen
    ]
    return "\n".join(lines) + "\n"


def _graph_alone_table(rows: list[Mapping[str, Any]]) -> str:
    """The shared graph next to the dedicated model's own graph, called without dispatch."""
    lines = [
        "\nWhere the dedicated function's time goes: the same calls through its concrete "
        "function, called directly (the model's own graph, without the lookup by which "
        "`tf.function` finds the trace, which hashes every captured variable), and the "
        "speedup of the shared graph over that (µs, medians; 95% CI):\n",
        "| Architecture | Batch | Dedicated `tf.function` | Its concrete function "
        "| Shared graph | Speedup over the concrete function (95% CI) |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {text(row['architecture'])} | {row['batch']} | {number(row['dedicated_us'])} "
        f"| {number(row['graph_us'])} | {number(row['shared_us'])} "
        f"| {_interval(row, 'graph_')} |"
        for row in rows
        if row["route"] == "shared graph"
    ]
    return "\n".join(lines) + "\n"


def _interval(row: Mapping[str, Any], prefix: str = "") -> str:
    return (
        f"{number(row[f'{prefix}speedup_median'])} ({number(row[f'{prefix}speedup_ci_low'])}–"
        f"{number(row[f'{prefix}speedup_ci_high'])})"
    )


def _serving_crossover(rows: list[Mapping[str, Any]]) -> str:
    """Where the shared graph stops paying off, read from the rows rather than asserted."""
    shared = [row for row in rows if row["route"] == "shared graph"]
    if not shared:
        return "No architecture took the shared route in this run."
    slower = [row for row in shared if row["speedup_ci_high"] < 1]
    if slower:
        names = ", ".join(
            f"{text(row['architecture'])} at batch {row['batch']} ({row['variables']} "
            f"variables, {_interval(row)})"
            for row in slower
        )
        return f"Measurably slower through the shared graph (whole interval below 1): {names}."
    lowest = min(shared, key=lambda row: row["speedup_median"])
    return (
        "No architecture was measurably slower through the shared graph in this run (no "
        "interval lies entirely below 1). The lowest median speedup was "
        f"{text(lowest['architecture'])}, {lowest['variables']} variables, "
        f"batch {lowest['batch']}: {_interval(lowest)}."
    )


def trace_memory_extra(result: Mapping[str, Any]) -> str:
    rows = result["extra"]["memory"]
    lines = [
        "\nResident memory added by a function that traces once per input length; what the "
        "same traces added again, in a new function, after `del` of the first; and what the "
        "same calls added through one `input_signature` trace (MB; each size in a fresh "
        "interpreter):\n",
        "| Operations | Traces | Added | Per trace (KB) | Added again after `del` | "
        "With `input_signature`: traces | Added |",
        "|--:|--:|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {row['operations']} | {row['traces']} | {number(row['grown_mb'])} "
        f"| {number(row['kb_per_trace'])} | {number(row['after_del_grown_mb'])} "
        f"| {row['signature_traces']} | {number(row['signature_grown_mb'])} |"
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def explainer_at_scale_extra(result: Mapping[str, Any]) -> str:
    rows = result["extra"]["scale"]
    lines = [
        "\nA whole program that retraces N times, run as `python program.py` and as "
        "`python -m tf_retracing.explain program.py` (a fresh interpreter each, the fastest "
        "of the runs; seconds include starting Python and importing TensorFlow). The "
        "explainer's own time is its code's, timed inside the watched run:\n",
        "| Retraces | Runs | Plain (s) | Under the explainer (s) | Extra time | "
        "Extra per retrace (ms) | Explainer's own time per retrace (ms) "
        "| Plain run per retrace (ms) |",
        "|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {row['retraces']:,} | {row['rounds']} | {number(row['plain_s'])} "
        f"| {number(row['watched_s'])} | {number(row['extra_percent'], 2)}% "
        f"| {number(row['extra_ms_per_retrace'], 2)} | {number(row['own_ms_per_retrace'], 2)} "
        f"| {number(row['plain_ms_per_retrace'], 2)} |"
        for row in rows
    ]
    return "\n".join(lines) + "\n\n" + overhead_sentence(rows) + "\n"


def overhead_sentence(rows: list[Mapping[str, Any]]) -> str:
    """What the explainer adds to the whole program, said from the slowest pair of runs
    (the upper end of what was measured), never from the fastest figure alone; a run that
    kept no pairs is said to bound nothing."""
    paired = [row for row in rows if len(row.get("extra_percent_runs") or []) >= 2]
    if not paired:
        return (
            "This run kept only the fastest time of each command, so its extra time has no "
            "spread and bounds nothing."
        )
    parts = [
        f"at {row['retraces']:,} retraces at most {number(max(row['extra_percent_runs']), 2)}% "
        f"(from {number(min(row['extra_percent_runs']), 2)}% over "
        f"{len(row['extra_percent_runs'])} pairs)"
        for row in paired
    ]
    return (
        "Pairing each run under the explainer with the plain run before it, the explainer "
        "added to the whole program " + "; ".join(parts) + "."
    )


def _percentile_text(figure: Mapping[str, float]) -> str:
    return _ratio_interval((figure["value"], figure["ci_low"], figure["ci_high"]))


def many_tenants_extra(result: Mapping[str, Any]) -> str:
    rows = result["extra"]["tenants"]
    lines = []
    for title in dict.fromkeys(row["architecture"] for row in rows):
        mine = [row for row in rows if row["architecture"] == title]
        lines += [
            f"\n**{label_text(title)}**, per request at batch 1 after every tenant was "
            "served once: milliseconds with 95% intervals, and the first request of a "
            "tenant (median over tenants). (Memory is measured by the scenario "
            "`tenant_memory`, each figure in a fresh interpreter.)\n",
            "| Tenants | Served by | Popularity | p50 (ms) | p99 (ms) | Traces per 1,000 "
            "requests | First request (ms) |",
            "|--:|---|---|--:|--:|--:|--:|",
        ]
        lines += [
            f"| {row['tenants']:,} | {label_text(row['label'])} | {text(row['popularity'])} "
            f"| {_percentile_text(row['p50_ms'])} | {_percentile_text(row['p99_ms'])} "
            f"| {number(row['traces_per_1000'])} | {number(row['first_request_ms'])} |"
            for row in mine
        ]
    return "\n".join(lines) + "\n" + ray_serve_table(result["extra"]["ray_serve"])


def _per_added_tenant_kb(group: list[Mapping[str, Any]], key: str) -> float | None:
    """KB of ``key`` (MB) per tenant added between the group's smallest and largest number
    of tenants, each measured in a fresh interpreter: fixed costs cancel out. None for a
    group of one count."""
    low = min(group, key=lambda r: r["tenants"])
    high = max(group, key=lambda r: r["tenants"])
    added = high["tenants"] - low["tenants"]
    return (high[key] - low[key]) * 1024 / added if added else None


def tenant_memory_extra(result: Mapping[str, Any]) -> str:
    """Memory per added tenant: the difference between the largest and smallest number of
    tenants, each measured in a fresh interpreter, divided by the tenants added."""
    rows = result["extra"]["memory"]
    lines = [
        "\nResident memory added by the tenants' Keras models, and by serving each of them "
        "once, each figure in a fresh interpreter; per added tenant: the difference between "
        "the two numbers of tenants, divided by the tenants added, which leaves out fixed "
        "costs (the first trace, the first model):\n",
        "| Architecture | Served by | Tenants | Models (MB) | Serving (MB) | Traces "
        "| Weights per tenant (KB) | Model per added tenant (KB) "
        "| Serving per added tenant (KB) |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    groups: dict = {}
    for row in rows:
        groups.setdefault((row["architecture"], row["variant"]), []).append(row)
    for group in groups.values():
        high = max(group, key=lambda r: r["tenants"])
        per_model = _per_added_tenant_kb(group, "models_mb")
        per_serving = _per_added_tenant_kb(group, "serving_mb")
        for row in group:
            last = row is high
            lines.append(
                f"| {text(row['architecture'])} | {label_text(row['label'])} "
                f"| {row['tenants']:,} | {number(row['models_mb'])} "
                f"| {number(row['serving_mb'])} | {row['traces']:,} "
                f"| {number(row['weights_kb'])} "
                f"| {_optional_number(per_model) if last else ''} "
                f"| {_optional_number(per_serving) if last else ''} |"
            )
    return "\n".join(lines) + "\n"


def tenants_as_weights_extra(result: Mapping[str, Any]) -> str:
    extra = result["extra"]
    return (
        _weights_latency_table(extra["latency"])
        + _weights_memory_table(extra["memory"])
        + _weights_first_request_table(extra["first_request"])
        + _weights_ray_serve_table(extra["ray_serve"])
    )


def _weights_latency_table(rows: list[Mapping[str, Any]]) -> str:
    lines = [
        "\n**Latency as tenants grow**, one process and one predictor, at batch 1, after "
        "every tenant was served once: milliseconds with 95% intervals; traces made by the "
        "timed stream, and by the predictor in all; a new tenant's first request (median "
        "over the tenants added at that count):\n",
        "| Architecture | Tenants | Popularity | p50 (ms) | p99 (ms) | Traces in the stream "
        "| Traces in all | First request (ms) |",
        "|---|--:|---|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {text(row['architecture'])} | {row['tenants']:,} | {text(row['popularity'])} "
        f"| {_percentile_text(row['p50_ms'])} | {_percentile_text(row['p99_ms'])} "
        f"| {row['stream_traces']:,} | {row['traces']:,} | {number(row['first_request_ms'])} |"
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def _weights_memory_table(rows: list[Mapping[str, Any]]) -> str:
    """Per architecture: memory per added tenant from the smallest to the largest count,
    each count measured in a fresh interpreter, and its ratio to the weights' bytes."""
    lines = [
        "\n**Memory**, resident memory added by adding tenants as weights and serving each "
        "once, after the architecture's first tenant (each figure in a fresh interpreter); "
        "per added tenant: the difference between the two counts, divided by the tenants "
        "added:\n",
        "| Architecture | Tenants | Added (MB) | Traces | Weights per tenant (KB) "
        "| Per added tenant (KB) | Per added tenant / weights |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    groups: dict = {}
    for row in rows:
        groups.setdefault(row["architecture"], []).append(row)
    for group in groups.values():
        high = max(group, key=lambda r: r["tenants"])
        per_tenant = _per_added_tenant_kb(group, "added_mb")
        ratio = per_tenant / high["weights_kb"] if per_tenant is not None else None
        for row in group:
            last = row is high
            lines.append(
                f"| {text(row['architecture'])} | {row['tenants']:,} "
                f"| {number(row['added_mb'])} | {row['traces']:,} | {number(row['weights_kb'])} "
                f"| {_optional_number(per_tenant) if last else ''} "
                f"| {_optional_number(ratio) if last else ''} |"
            )
    return "\n".join(lines) + "\n"


def _weights_first_request_table(rows: list[Mapping[str, Any]]) -> str:
    lines = [
        "\n**A new tenant's first request from its `.weights.h5` file** (the architecture's "
        "graph traced before), against Keras loading the same file into a model of the "
        "architecture (`load_weights`) and one steady request; medians over the files:\n",
        "| Architecture | Files | `load_weights` (ms) | One request (ms) "
        "| First request from the file (ms) | First request / (load + one request) |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {text(row['architecture'])} | {row['files']:,} | {number(row['load_weights_ms'])} "
        f"| {number(row['call_ms'])} | {number(row['first_request_ms'])} "
        f"| {number(row['first_request_ms'] / (row['load_weights_ms'] + row['call_ms']), 2)} |"
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def _weights_ray_serve_table(rows: list[Mapping[str, Any]]) -> str:
    """The Ray Serve designs side by side: the timed requests' latency, traces and file
    loads, the tenants each replica held, and each replica's resident memory at the end."""
    lines = [
        "\n**Ray Serve**, each design on 2 replicas, requests over HTTP on loopback for "
        "tenants picked at random (after the warm-up: for tenants held as weights, one "
        "request per tenant); milliseconds with 95% intervals; file loads and tenants held "
        "are counted by `WeightsServer` only:\n",
        "| Design | Tenants | Warm-up requests | Timed requests | Wrong answers | p50 (ms) "
        "| p99 (ms) | Traces per 1,000 | File loads per 1,000 | Tenants held (smaller replica) "
        "| Replica memory (MB) |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        loads, held = row.get("loads_per_1000"), row.get("tenants_held_min")
        memory = f"{number(row['replica_rss_mb_min'])} to {number(row['replica_rss_mb_max'])}"
        lines.append(
            f"| {label_text(row['label'])} | {row['tenants']:,} | {row['warm_up_requests']:,} "
            f"| {row['requests']:,} | {row['wrong']} | {_percentile_text(row['p50_ms'])} "
            f"| {_percentile_text(row['p99_ms'])} | {number(row['traces_per_1000'])} "
            f"| {'' if loads is None else number(loads)} | {'' if held is None else f'{held:,}'} "
            f"| {memory} |"
        )
    return "\n".join(lines) + "\n"


RAY_SERVE_LABELS = {
    "dedicated": "a `tf.function` per model loaded",
    "shared": "one `SharedGraphPredictor` per replica",
}


def ray_serve_table(rows: list) -> str:
    lines = [
        "\n**Ray Serve**, two replicas each keeping the tenants it used last "
        "(`@serve.multiplexed`; the set-up says how many), requests over HTTP on loopback; "
        "milliseconds with 95% intervals; memory: the larger replica's resident memory at "
        "the end:\n",
        "| Tenants | Each replica serves through | Requests | Wrong answers | p50 (ms) "
        "| p99 (ms) | Traces per 1,000 requests | Replica memory (MB) |",
        "|--:|---|--:|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {row['tenants']:,} | {label_text(RAY_SERVE_LABELS[row['variant']])} "
        f"| {row['requests']:,} | {row['wrong']} | {_percentile_text(row['p50_ms'])} "
        f"| {_percentile_text(row['p99_ms'])} | {number(row['traces_per_1000'])} "
        f"| {number(row['replica_rss_mb'])} |"
        for row in rows
    ]
    return "\n".join(lines) + "\n"


EXTRA_RENDERERS = {
    "many_tenants": many_tenants_extra,
    "tenant_memory": tenant_memory_extra,
    "tenants_as_weights": tenants_as_weights_extra,
    "explainer_at_scale": explainer_at_scale_extra,
    "weight_cache": weight_cache_extra,
    "serving_architectures": serving_architectures_extra,
    "serving_without_onednn": serving_architectures_extra,
    "explainer_overhead": explainer_extra,
    "trace_memory": trace_memory_extra,
}


def device_tables(name: str, results: Mapping[str, ResultsFile]) -> str:
    """The scenario's table for every device that has results for it, CPU first."""
    parts = []
    for device in DEVICES:
        if device in results and name in results[device].scenarios:
            result = results[device].scenarios[name]
            parts.append(f"**{DEVICE_NAMES[device]}**\n\n{scenario_table(name, result)}")
    return "\n".join(parts)


def claims_table(results: Mapping[str, ResultsFile]) -> str:
    devices = [d for d in DEVICES if d in results]
    header = "| Figure | Claimed | Our scenario | " + " | ".join(
        f"Measured here ({DEVICE_NAMES[d]})" for d in devices
    )
    header += " | Comparable? |\n|---|--:|---|" + "--:|" * len(devices) + "---|\n"
    rows = []
    for claim in CLAIMS:
        cells = []
        for device in devices:
            result = results[device].scenarios.get(claim.scenario)
            cells.append(claim.measured(result) if result else "not measured")
        rows.append(
            f"| {claim.what} | {claim.claimed} | `{claim.scenario}` | "
            + " | ".join(cells)
            + f" | {claim.comparable} |"
        )
    return header + "\n".join(rows) + "\n"


def runs_table(results: Mapping[str, ResultsFile]) -> str:
    """Which run produced each scenario's figures, and the headline's interval width."""
    rows = []
    for device, loaded in sorted(results.items()):
        for name in NAMES:
            if name not in loaded.scenarios:
                continue
            result = loaded.scenarios[name]
            p = result["provenance"]
            headline = headline_ratio(result)
            rows.append(
                f"| `{name}` | {DEVICE_NAMES[device]} | {text(p['profile'])} | "
                f"{result['repetitions']} | {number(result['seconds'])} s | "
                f"±{number(100 * relative_half_width(headline), 2)}% | "
                f"{number(result['peak_rss_mb'])} | {text(p['date'])} | {code(p['git_commit'])} |"
            )
    quick = any(
        result["provenance"]["profile"] == "quick"
        for loaded in results.values()
        for result in loaded.scenarios.values()
    )
    warning = (
        '!!! warning "Some figures come from the quick profile"\n'
        "    The quick profile runs few repetitions to check that the scenarios work; its\n"
        "    intervals are wide. `make bench` runs the full profile.\n\n"
        if quick
        else ""
    )
    return warning + (
        "| Scenario | Device | Profile | Repetitions | Duration | Headline CI half-width "
        "| Peak host memory (MB) | Date | Commit |\n"
        "|---|---|---|--:|--:|--:|--:|---|---|\n" + "\n".join(rows) + "\n"
    )


def _ratio_interval(value: tuple[float, float, float]) -> str:
    """A (median, low, high) triple as ``median (low–high)``."""
    return f"{number(value[0])} ({number(value[1])}–{number(value[2])})"


def serving_goals_section(results: Mapping[str, ResultsFile]) -> str:
    """Per device with a ``serving_architectures`` result: how many architectures meet
    each speed goal (benchmarks/serving_goals.py), and every miss with its price."""
    parts = []
    for device in DEVICES:
        if device in results and "serving_architectures" in results[device].scenarios:
            rows = goal_rows(results[device].scenarios["serving_architectures"])
            parts.append(f"**{DEVICE_NAMES[device]}**\n\n{_goals_text(rows)}")
    if not parts:
        raise MarkerError("serving-goals: no results for scenario 'serving_architectures'")
    return "\n".join(parts)


def _goals_text(rows: list[dict]) -> str:
    applying = [row for row in rows if row["dispatch_met"] is not None]
    lines = [
        f"The floor (a shared call takes at most {FLOOR_LIMIT:g} of the model's own concrete "
        "function, upper end of the 95% interval) holds for "
        f"{sum(row['floor_met'] for row in rows)} of {len(rows)} architectures and batch "
        f"sizes. Where `tf.function`'s dispatch is at least {DISPATCH_SHARE:.0%} of a "
        f"dedicated call ({len(applying)} of them), the shared graph takes at most "
        f"{DISPATCH_GOAL:g} of that call in {sum(row['dispatch_met'] for row in applying)}. "
        "The dispatch share is the dedicated call's time less its concrete function's, as a "
        "share of the dedicated call: negative where the concrete function measured slower.\n",
    ]
    misses = [row for row in rows if not row["floor_met"] or row["dispatch_met"] is False]
    if misses:
        lines += [
            "| Architecture | Batch | Shared / own concrete function | Shared / dedicated "
            "`tf.function` | Dispatch share | Why the shared graph costs more |",
            "|---|--:|--:|--:|--:|---|",
        ]
        lines += [
            f"| {text(row['architecture'])} | {row['batch']} | {_ratio_interval(row['floor'])} "
            f"| {_ratio_interval(row['dispatch'])} | {row['dispatch_share']:.0%} "
            f"| {_price_text(row)} |"
            for row in misses
        ]
    return "\n".join(lines) + "\n"


def _price_text(row: dict) -> str:
    """Why a miss costs more: the known price, or, where every goal that applies holds at
    the median, that only the interval's upper end misses."""
    if row["price"]:
        return label_text(row["price"])
    dispatch_median_met = row["dispatch_met"] is None or row["dispatch"][0] <= DISPATCH_GOAL
    if row["floor"][0] <= FLOOR_LIMIT and dispatch_median_met:
        return (
            "none known: the median meets every goal that applies, only the interval's "
            "upper end does not"
        )
    return "none found yet"


def gpu_section(results: Mapping[str, ResultsFile]) -> str:
    if "gpu" not in results:
        return (
            '!!! note "No GPU run has been recorded yet"\n'
            "    Nothing on this site is a GPU measurement, and no GPU figure is estimated.\n"
            "    To record one, run `python -m benchmarks run --device gpu` on a machine where\n"
            "    TensorFlow sees a GPU (the scheduled GPU workflow does this) and commit the\n"
            "    results file it writes into `benchmarks/results/`: the site shows it here.\n"
        )
    loaded = results["gpu"]
    parts = [
        f"### {label_text(loaded.scenarios[name]['title'])}\n\n"
        f"{scenario_table(name, loaded.scenarios[name])}"
        for name in NAMES
        if name in loaded.scenarios
    ]
    return "\n".join(parts)


# --- plots ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plot:
    svg: str
    width: int  # CSS pixels
    height: int
    alt: str


def scenario_plot(result: Mapping[str, Any]) -> Plot:
    """Per-call time of each variant, cold pass and steady state, as an SVG."""
    import matplotlib.pyplot as plt

    with plt.rc_context(_style()):
        figure = plot_figure(result)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", transparent=True, metadata={"Date": None})
        width, height = (figure.get_size_inches() * 100).round().astype(int)
        plt.close(figure)
    return Plot(svg=buffer.getvalue(), width=int(width), height=int(height), alt=plot_alt(result))


def plot_figure(result: Mapping[str, Any]):
    """The bar chart: medians with interquartile whiskers, on a log scale (call in _style)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    variants = result["variants"]
    rows = range(len(variants))
    # Narrow, with large type: the plot is drawn at its natural width on a wide screen and
    # scaled down to the column on a phone, where its text must still be 11 px or more.
    figure, axes = plt.subplots(
        figsize=(PLOT_WIDTH_INCHES, 2.0 + 0.75 * len(variants)), layout="constrained"
    )
    bar = 0.38
    for offset, which, colour, name in (
        (-bar / 2, "cold_ms_per_call", COLD_COLOUR, "cold pass: fresh function, traces included"),
        (bar / 2, "steady_ms_per_call", STEADY_COLOUR, "steady state: same stream again"),
    ):
        medians = [v[which]["median"] for v in variants]
        low = [v[which]["median"] - v[which]["p25"] for v in variants]
        high = [v[which]["p75"] - v[which]["median"] for v in variants]
        axes.barh(
            [r + offset for r in rows], medians, height=bar, color=colour, label=name,
            xerr=[low, high], error_kw={"ecolor": INK, "capsize": 3, "lw": 1},
        )  # fmt: skip
    axes.set_yticks(list(rows), [_wrapped(_plain(v["label"])) for v in variants])
    axes.invert_yaxis()
    axes.set_xscale("log")
    axes.set_xlabel("milliseconds per call (median;\nwhiskers: interquartile range)")
    # Plain numbers on the log axis (1, 2, 5 in each decade), no minor labels.
    axes.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=9))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axes.xaxis.set_minor_formatter(NullFormatter())
    figure.legend(loc="outside upper left", ncols=1, frameon=False, handlelength=1.2)
    axes.grid(axis="x", which="major", color=INK, alpha=0.3, lw=0.6)
    return figure


def _plain(label: str) -> str:
    return label.replace("`", "")


def _wrapped(label: str, width: int = 16) -> str:
    """A variant label over as many lines as it needs: broken at spaces, and a word longer
    than a line after a dot or an underscore, never inside a name."""
    pieces = []  # (text, joined to the previous piece by a space)
    for word in label.split():
        parts = re.findall(r"[^._]+[._]*|[._]+", word) if len(word) > width else [word]
        pieces += [(part, index == 0) for index, part in enumerate(parts)]
    lines: list[str] = []
    for text, spaced in pieces:
        joined = (lines[-1] + (" " if spaced else "") + text) if lines else text
        if lines and len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(text)
    return "\n".join(lines)


def plot_alt(result: Mapping[str, Any]) -> str:
    """The plot's figures in words, for screen readers and when the image does not load."""
    device = DEVICE_NAMES[result["provenance"]["device"]]
    bars = ", ".join(
        f"{_plain(v['label'])} ({number(v['cold_ms_per_call']['median'])} cold, "
        f"{number(v['steady_ms_per_call']['median'])} steady)"
        for v in result["variants"]
    )
    return f"{_plain(result['title'])} on {device}: milliseconds per call of {bars}"


def _style() -> dict[str, Any]:
    return {
        "svg.hashsalt": "benchmarks",  # stable element ids: identical input, identical file
        "text.parse_math": False,  # a "$" in a label is a dollar sign, not mathtext
        "font.size": PLOT_FONT_SIZE,
        "text.color": INK,
        "axes.labelcolor": INK,
        "axes.edgecolor": INK,
        "xtick.color": INK,
        "ytick.color": INK,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "legend.labelcolor": INK,
    }


def plot_path(device: str, name: str) -> str:
    """Where a plot lives in the site, relative to the docs folder."""
    return f"assets/benchmarks/{device}-{name}.svg"


def all_plots(results: Mapping[str, ResultsFile]) -> dict[str, Plot]:
    """Every scenario's plot for every device, keyed by its path in the site."""
    return {
        plot_path(device, name): scenario_plot(result)
        for device, loaded in results.items()
        for name, result in loaded.scenarios.items()
    }


def plot_images(name: str, plots: Mapping[str, Plot], link: Callable) -> str:
    parts = []
    for device in DEVICES:
        path = plot_path(device, name)
        if path in plots:
            plot = plots[path]
            parts.append(
                f'![{text(plot.alt)}]({link(path)}){{ width="{plot.width}" height="{plot.height}" '
                'loading="lazy" }'
            )
    return "\n\n".join(parts)


# --- everything at once -----------------------------------------------------------------


def render_everything(results: Mapping[str, ResultsFile]) -> dict[str, Plot]:
    """Render every figure a page can ask for, and return the plots.

    The build calls this before it empties the site folder: validation should make every
    figure renderable, and this proves it, so that a failure leaves the earlier site
    untouched and names the results file and the figure. The tables are rendered again,
    cheaply, for each page that asks for them.
    """
    sections = {"claims table": claims_table, "runs table": runs_table, "GPU section": gpu_section}
    for what, section in sections.items():
        _rendering(
            what, ", ".join(str(loaded.path) for loaded in results.values()), section, results
        )
    plots: dict[str, Plot] = {}
    for device, loaded in results.items():
        for name, result in loaded.scenarios.items():
            _rendering(f"the table of scenarios.{name}", loaded.path, scenario_table, name, result)
            path = plot_path(device, name)
            plots[path] = _rendering(
                f"the plot of scenarios.{name}", loaded.path, scenario_plot, result
            )
    return plots


def _rendering(what: str, source: object, render: Callable, *args: Any) -> Any:
    try:
        return render(*args)
    except Exception as error:  # re-raised with what failed; never swallowed
        raise RenderError(
            f"{source}: rendering {what} failed: {type(error).__name__}: {error}"
        ) from error


# --- markers ----------------------------------------------------------------------------


def replace_markers(
    markdown: str,
    page: str,
    results: Mapping[str, ResultsFile],
    plots: Mapping[str, Plot],
    link: Callable[[str], str],
) -> str:
    """Replace every benchmark marker on a page; any marker that cannot be served fails.

    ``link`` turns a plot's site path into a URL relative to the page.
    """
    for line in LOOSE_MARKER.findall(markdown):
        if not MARKER.fullmatch(line):
            raise MarkerError(
                f"{page}: malformed benchmark marker {line.strip()!r}; expected "
                "'<!-- benchmark:table NAME -->' or '<!-- benchmark:plot NAME -->' alone on a line"
            )

    def render(match: re.Match) -> str:
        kind, name = match["kind"], match["name"]
        marker = match.group(0).strip()
        if kind in KINDS_ALONE and name is None:
            alone = {
                "claims": claims_table,
                "gpu": gpu_section,
                "runs": runs_table,
                "serving-goals": serving_goals_section,
            }
            return alone[kind](results)
        if kind not in KINDS_WITH_NAME or name is None:
            raise MarkerError(f"{page}: unknown benchmark marker {marker!r}")
        if name not in NAMES:
            raise MarkerError(
                f"{page}: marker {marker!r} names an unknown scenario {name!r} "
                f"(known: {', '.join(NAMES)})"
            )
        if not any(name in loaded.scenarios for loaded in results.values()):
            raise MarkerError(
                f"{page}: marker {marker!r}: no results for scenario {name!r} in any results "
                "file; run `python -m benchmarks run --scenario " + name + "`"
            )
        if kind == "table":
            return device_tables(name, results)
        return plot_images(name, plots, link)

    return MARKER.sub(render, markdown)
