"""The tables of tenants_as_weights and of the XLA choice in serving_architectures, from
hand-made results: what each figure is computed from."""

from __future__ import annotations

from benchmarks.render import _xla_choice_table, tenants_as_weights_extra


def percentile(value):
    return {"value": value, "ci_low": value * 0.9, "ci_high": value * 1.1}


RESULT = {
    "extra": {
        "latency": [
            {
                "architecture": "MLP",
                "tenants": 10_000,
                "popularity": "Zipf",
                "requests": 2000,
                "weights_kb": 29.25,
                "p50_ms": percentile(0.25),
                "p99_ms": percentile(0.5),
                "stream_traces": 0,
                "traces": 1,
                "first_request_ms": 3.5,
            }
        ],
        "memory": [
            {
                "architecture": "MLP",
                "tenants": 1000,
                "traces": 1,
                "weights_kb": 30.0,
                "added_mb": 30.0,
            },
            {
                "architecture": "MLP",
                "tenants": 3000,
                "traces": 1,
                "weights_kb": 30.0,
                "added_mb": 100.0,
            },
        ],
        "first_request": [
            {
                "architecture": "MLP",
                "files": 30,
                "traces": 1,
                "load_weights_ms": 8.0,
                "call_ms": 2.0,
                "first_request_ms": 5.0,
            }
        ],
        "ray_serve": [
            {
                "design": design,
                "label": f"`{design}` way",
                "tenants": 10_000,
                "warm_up_requests": warm_up,
                "requests": 1000,
                "wrong": 0,
                "replicas": 2,
                "p50_ms": percentile(p50),
                "p99_ms": percentile(p50 * 2),
                "traces_per_1000": traces,
                "replica_rss_mb_min": 700.0,
                "replica_rss_mb_max": 750.5,
                **extra,
            }
            for design, warm_up, p50, traces, extra in (
                ("function_per_model", 8, 120.0, 990.0, {}),
                ("weights", 10_000, 20.0, 0.0, {"loads_per_1000": 0.0, "tenants_held_min": 4990}),
            )
        ],
    }
}


def test_memory_per_added_tenant_is_the_difference_between_counts_over_the_weights():
    table = tenants_as_weights_extra(RESULT)
    # (100 - 30) MB over 2,000 tenants = 35.84 KB, 1.19 times 30 KB.
    assert "| MLP | 3,000 | 100 | 1 | 30.0 | 35.8 | 1.19 |" in table
    assert "| MLP | 1,000 | 30.0 | 1 | 30.0 |  |  |" in table


def test_first_request_is_compared_with_load_plus_one_call():
    assert "| MLP | 30 | 8.00 | 2.00 | 5.00 | 0.50 |" in tenants_as_weights_extra(RESULT)


def test_latency_rows_show_intervals_and_traces():
    table = tenants_as_weights_extra(RESULT)
    assert (
        "| MLP | 10,000 | Zipf | 0.250 (0.225–0.275) | 0.500 (0.450–0.550) | 0 | 1 | 3.50 |"
        in table
    )


def test_the_xla_table_appears_only_for_results_that_have_the_choice():
    row = {"architecture": "BiGRU", "batch": 1, "shared_us": 100.0}
    assert _xla_choice_table([row]) == ""
    row.update(
        xla_choice="XLA",
        xla_trial_plain_us=700.0,
        xla_trial_xla_us=100.0,
        shared_xla_us=90.0,
        xla_speedup_median=7.0,
        xla_speedup_ci_low=6.5,
        xla_speedup_ci_high=7.5,
    )
    table = _xla_choice_table([row])
    assert "| BiGRU | 1 | XLA | 700 | 100 | 90.0 | 7.00 (6.50–7.50) | not measured |" in table


def speedup(prefix: str, median: float, low: float, high: float) -> dict:
    """A row's speedup fields as serving_architectures records them."""
    return {
        f"{prefix}speedup_median": median,
        f"{prefix}speedup_ci_low": low,
        f"{prefix}speedup_ci_high": high,
    }


def test_the_xla_table_shows_the_aa_comparison_where_the_run_made_it():
    row = {
        "architecture": "ResNet50",
        "batch": 32,
        "xla_choice": "plain",
        "shared_xla_us": 900.0,
        **speedup("xla_", 1.01, 0.99, 1.03),
        **speedup("aa_", 0.99, 0.97, 1.02),
    }
    assert _xla_choice_table([row]).rstrip().endswith("| 1.01 (0.990–1.03) | 0.990 (0.970–1.02) |")


def test_the_ray_serve_table_shows_loads_and_tenants_only_where_counted():
    table = tenants_as_weights_extra(RESULT)
    rows = [line for line in table.splitlines() if "way |" in line]
    assert len(rows) == 2
    function_row, weights_row = rows
    assert "| 10,000 | 8 | 1,000 | 0 |" in function_row
    assert function_row.endswith("| 990 |  |  | 700 to 750 |"), function_row
    assert weights_row.endswith("| 0 | 0 | 4,990 | 700 to 750 |"), weights_row
