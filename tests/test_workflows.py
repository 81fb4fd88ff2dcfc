"""The GitHub workflows: zizmor finds nothing, they are well formed, and the GPU runner is
reachable only from the schedule or by hand, never from a pull request.

Workflow validity is checked structurally here (YAML parse plus the rules below):
actionlint's PyPI wrapper builds by downloading a binary, which cannot happen offline.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from verification.harness.codeblocks import ROOT

GITHUB = ROOT / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
GPU_WORKFLOW = GITHUB / "workflows" / "gpu-benchmark.yml"
PAGES_WORKFLOW = GITHUB / "workflows" / "pages.yml"
MATRIX_WORKFLOW = GITHUB / "workflows" / "version-matrix.yml"
REPOSITORY = "tf-retracing-guide/tf-retracing-guide"
GPU_LABELS = ["self-hosted", "linux", "x64", "gpu"]
PINNED_USES = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+){0,2}$")
ZIZMOR = Path(sys.executable).with_name("zizmor")


def load(path: Path) -> dict:
    workflow = yaml.safe_load(path.read_text("utf-8"))
    # YAML 1.1 reads the key `on` as the boolean True.
    if True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def triggers(workflow: dict) -> set[str]:
    on = workflow["on"]
    return {on} if isinstance(on, str) else set(on)


def all_steps(workflow: dict):
    for job_name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, step


def uses_lines(path: Path) -> list[str]:
    """Every `uses:` value with its trailing comment, as written in the file."""
    return [
        line.split("uses:", 1)[1].strip()
        for line in path.read_text("utf-8").splitlines()
        if re.match(r"^\s*(- )?uses:", line)
    ]


def command(run: str, env: dict[str, str]) -> list[str]:
    """A one-line `run:` script as the shell would split it, with $VARIABLES expanded."""
    words = shlex.split(run)
    return [re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m[1], m[0]), word) for word in words]


def runs_a_strict_build(run: str) -> bool:
    """Whether a `run:` script builds the site with --strict, asking make what it runs."""
    for part in run.split("&&"):
        words = shlex.split(part)
        if words[:1] == ["make"]:
            proc = subprocess.run(
                ["make", "-n", *words[1:]],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            )
            part = proc.stdout
        # verification.site_build always passes --strict (tests/test_site_build.py)
        if "mkdocs build --strict" in part or "-m verification.site_build build" in part:
            return True
    return False


def run_zizmor(target: Path) -> subprocess.CompletedProcess:
    """zizmor over `target` without network access; paths are reported relative to it."""
    return subprocess.run(
        [str(ZIZMOR), "--offline", "--persona=pedantic", "--no-progress", ".github"],
        cwd=target.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# --- zizmor ---------------------------------------------------------------------------


def test_zizmor_finds_nothing_in_github_folder():
    proc = run_zizmor(GITHUB)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout
    for name in [*(p.relative_to(ROOT).as_posix() for p in WORKFLOWS), ".github/dependabot.yml"]:
        assert f"completed {name}" in proc.stderr, f"zizmor did not audit {name}"


def test_zizmor_catches_an_unsafe_workflow(tmp_path):
    # Proves the test above could fail: an unpinned action, a default token and a
    # template expanded inside a shell script.
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "bad.yml").write_text(
        "on: pull_request_target\n"
        "jobs:\n"
        "  x:\n"
        "    runs-on: ubuntu-24.04\n"
        "    steps:\n"
        "      - uses: actions/checkout@v4\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n",
        "utf-8",
    )
    proc = run_zizmor(tmp_path / ".github")
    assert proc.returncode != 0
    for audit in ("unpinned-uses", "template-injection", "artipacked"):
        assert audit in proc.stdout


# --- every workflow -------------------------------------------------------------------


def test_the_expected_workflows_exist():
    assert [p.name for p in WORKFLOWS] == [
        "checks.yml",
        "gpu-benchmark.yml",
        "pages.yml",
        "release.yml",
        "scheduled-checks.yml",
        "version-matrix.yml",
    ]


SCHEDULED_WORKFLOW = GITHUB / "workflows" / "scheduled-checks.yml"


def test_checks_moved_out_of_make_test_run_weekly_and_are_named_in_contributing():
    """A test marked `scheduled` is left out of make test (pyproject's addopts) and run by
    the Scheduled checks workflow, on a schedule only, through make test-scheduled; each file
    holding such tests is named in CONTRIBUTING.md, so that none is forgotten."""
    workflow = load(SCHEDULED_WORKFLOW)
    assert triggers(workflow) == {"schedule", "workflow_dispatch"}
    runs = [step.get("run", "") for _, step in all_steps(workflow)]
    assert any(run.startswith("make test-scheduled") for run in runs), runs
    marked = sorted(
        path.name
        for path in (ROOT / "tests").glob("test_*.py")
        if "pytest.mark.scheduled" in path.read_text("utf-8")
    )
    assert marked, "no test is marked scheduled: remove the workflow instead"
    contributing = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
    assert "Scheduled checks" in contributing
    assert [name for name in marked if f"tests/{name}" not in contributing] == []


def test_the_scheduled_checks_run_the_stale_benchmark_scenarios_again(tmp_path, monkeypatch):
    """A job of the scheduled checks runs `python -m benchmarks stale --rerun`, which runs
    again every stale scenario of the CPU results file; it writes outside
    benchmarks/results, can only read the repository, and uploads what it wrote. The
    command is parsed by the benchmarks CLI itself, and run with the measuring stubbed: it
    asks for exactly the scenarios the results file has as stale."""
    from benchmarks import cli
    from benchmarks.code_hash import freshness

    workflow = load(SCHEDULED_WORKFLOW)
    [(job_name, step)] = [
        (name, step)
        for name, step in all_steps(workflow)
        if "-m benchmarks stale" in step.get("run", "")
    ]
    job = workflow["jobs"][job_name]
    assert job["permissions"] == {"contents": "read"}
    assert job["runs-on"] == "ubuntu-24.04"  # a hosted runner, never the GPU machine
    words = command(step["run"], {"RUNNER_TEMP": str(tmp_path)})
    assert words[:3] == [".venv/bin/python", "-m", "benchmarks"]
    args = cli.parse_args(words[3:])
    assert args.command == "stale" and args.rerun and not args.quick
    assert args.results == cli.RESULTS_DIR / "cpu.json" and args.device == "cpu"
    assert not args.out.resolve().is_relative_to(cli.RESULTS_DIR.resolve())
    steps = job["steps"]
    installs = [i for i, s in enumerate(steps) if s.get("run") == "make env"]
    assert installs and installs[0] < steps.index(step)
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    uploaded = upload["with"]["path"].replace("${{ runner.temp }}", str(tmp_path))
    assert Path(uploaded).resolve() == args.out.parent.resolve()

    asked: list[list[str]] = []
    monkeypatch.setattr(cli, "run", lambda a: asked.append(list(a.scenario)))
    assert cli.report_stale(args) == 0
    document = json.loads(args.results.read_text("utf-8"))
    stale = [n for n, r in document["scenarios"].items() if freshness(r) is not None]
    runnable = set(cli.runnable())
    assert asked == ([[n for n in stale if n in runnable]] if stale else [])


def test_release_publishes_with_trusted_publishing_from_a_tag_only():
    path = GITHUB / "workflows" / "release.yml"
    workflow = load(path)
    assert triggers(workflow) == {"push"}
    assert workflow["on"]["push"] == {"tags": ["v*"]}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    assert build["permissions"] == {"contents": "read"}
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["needs"] == "build"
    uses = [step.get("uses", "") for step in publish["steps"]]
    assert any(u.startswith("pypa/gh-action-pypi-publish@") for u in uses)
    assert "secrets." not in path.read_text()
    runs = " ".join(step.get("run", "") for step in build["steps"])
    assert "uv build" in runs and "twine" in runs and "check" in runs


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_is_well_formed(path):
    workflow = load(path)
    assert isinstance(workflow.get("name"), str)
    assert triggers(workflow), "no trigger"
    assert workflow["jobs"], "no job"
    for job_name, job in workflow["jobs"].items():
        assert "runs-on" in job, f"{job_name}: no runs-on"
        assert isinstance(job.get("timeout-minutes"), int), f"{job_name}: no timeout"
        assert job.get("steps"), f"{job_name}: no steps"
        for need in [job["needs"]] if isinstance(job.get("needs"), str) else job.get("needs", []):
            assert need in workflow["jobs"], f"{job_name} needs unknown job {need}"
    for job_name, step in all_steps(workflow):
        assert ("uses" in step) != ("run" in step), f"{job_name}: step needs uses or run"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_permissions_are_empty_at_the_top_and_granted_per_job(path):
    workflow = load(path)
    assert workflow["permissions"] == {}
    for job_name, job in workflow["jobs"].items():
        assert isinstance(job.get("permissions"), dict), f"{job_name}: permissions not set"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_by_commit_with_the_version_as_comment(path):
    lines = uses_lines(path)
    assert lines
    for line in lines:
        assert PINNED_USES.match(line), f"not pinned as '<action>@<sha> # vX.Y.Z': {line}"


def test_one_action_is_pinned_to_one_commit_everywhere():
    pins: dict[str, set[str]] = {}
    for path in WORKFLOWS:
        for line in uses_lines(path):
            action, rest = line.split("@", 1)
            pins.setdefault(action, set()).add(rest)
    assert {action: refs for action, refs in pins.items() if len(refs) > 1} == {}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_checkouts_do_not_keep_credentials(path):
    for job_name, step in all_steps(load(path)):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, job_name


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_expression_is_expanded_inside_a_shell_script(path):
    for job_name, step in all_steps(load(path)):
        assert "${{" not in step.get("run", ""), f"{job_name}: use env: for values in run:"


# --- the GPU workflow -----------------------------------------------------------------


def test_gpu_workflow_runs_only_on_schedule_or_by_hand():
    workflow = load(GPU_WORKFLOW)
    assert triggers(workflow) == {"schedule", "workflow_dispatch"}


def test_gpu_workflow_uses_no_secrets():
    text = GPU_WORKFLOW.read_text("utf-8")
    assert "secrets." not in text
    assert "secrets:" not in text


def test_only_the_guarded_benchmark_job_runs_on_the_gpu_runner():
    jobs = load(GPU_WORKFLOW)["jobs"]
    self_hosted = {name for name, job in jobs.items() if "self-hosted" in job["runs-on"]}
    assert self_hosted == {"benchmark"}
    benchmark = jobs["benchmark"]
    assert benchmark["runs-on"] == GPU_LABELS
    guard = benchmark["if"].replace(" ", "")
    assert f"github.repository=='{REPOSITORY}'" in guard
    assert "github.ref=='refs/heads/main'" in guard
    assert "||" not in guard, "the guard must require both conditions"
    assert benchmark["permissions"] == {"contents": "read"}


def test_gpu_workflow_runs_the_benchmark_on_the_gpu_and_uploads_the_results():
    """The benchmark step, read by the CLI's own parser, measures the GPU and writes the
    file the site build renders for it; that file is what the job uploads."""
    from benchmarks.cli import parse_args
    from benchmarks.schema import RESULTS_DIR

    workflow = load(GPU_WORKFLOW)
    steps = workflow["jobs"]["benchmark"]["steps"]
    runs = [command(step["run"], workflow["env"]) for step in steps if "run" in step]
    assert [".ci/bootstrap", "--group", "gpu"] in runs  # TensorFlow with its CUDA libraries
    [benchmark] = [run for run in runs if run[1:4] == ["-m", "benchmarks", "run"]]
    args = parse_args(benchmark[3:])
    assert args.device == "gpu"
    assert (ROOT / args.out).resolve() == RESULTS_DIR.resolve() / "gpu.json"
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    path = upload["with"]["path"].replace(
        "${{ env.RESULTS_FILE }}", workflow["env"]["RESULTS_FILE"]
    )
    assert ROOT / path == ROOT / args.out


def test_gpu_results_are_validated_and_proposed_for_review_never_deployed():
    """The runner's results reach readers only through a reviewed pull request: the
    workflow builds the site with them on a GitHub-hosted machine and uploads it for the
    reviewer, opens the pull request, and deploys nothing."""
    workflow = load(GPU_WORKFLOW)
    jobs = workflow["jobs"]
    assert set(jobs) == {"benchmark", "validate", "propose"}
    for job_name, job in jobs.items():
        assert not {"pages", "id-token"} & set(job["permissions"]), job_name
    for job_name, step in all_steps(workflow):
        uses = step.get("uses", "")
        assert not uses.startswith(("actions/deploy-pages@", "actions/upload-pages-a")), job_name
    validate = jobs["validate"]
    assert validate["runs-on"] == "ubuntu-24.04"
    assert validate["needs"] == "benchmark"
    runs = [step["run"] for step in validate["steps"] if "run" in step]
    [accept] = [command(r, {}) for r in runs if ".ci/accept_gpu_results.py" in r]
    assert (ROOT / accept[-1]).resolve() == (ROOT / "benchmarks" / "results").resolve()
    assert any(runs_a_strict_build(run) for run in runs)
    uploads = [s for s in validate["steps"] if s.get("uses", "").startswith("actions/upload-art")]
    assert [u["with"]["path"] for u in uploads] == ["site/"]
    propose = jobs["propose"]
    assert propose["needs"] == "validate"
    assert "gh pr create" in propose["steps"][-1]["run"]


# --- the version matrix ---------------------------------------------------------------


def test_matrix_workflow_runs_weekly_and_by_hand_only():
    workflow = load(MATRIX_WORKFLOW)
    assert triggers(workflow) == {"schedule", "workflow_dispatch"}
    [schedule] = workflow["on"]["schedule"]
    _minute, _hour, day, month, weekday = schedule["cron"].split()
    assert (day, month) == ("*", "*") and weekday.isdigit()  # once a week


def test_matrix_workflow_runs_every_declared_entry_as_a_hosted_job():
    from verification.matrix.entries import ENTRIES

    run = load(MATRIX_WORKFLOW)["jobs"]["run"]
    assert run["runs-on"] == "ubuntu-24.04"
    assert run["strategy"]["fail-fast"] is False
    assert run["strategy"]["matrix"]["entry"] == [entry.id for entry in ENTRIES]
    assert "github.ref=='refs/heads/main'" in run["if"].replace(" ", "")
    for entry in ENTRIES:  # each job runs exactly its own entry
        env = {"ENTRY": entry.id, "RUNNER_TEMP": "/tmp"}
        commands = [command(step["run"], env) for step in run["steps"] if "run" in step]
        [matrix] = [c for c in commands if c[1:4] == ["-m", "verification.matrix", "run"]]
        assert matrix[matrix.index("--only") + 1] == entry.id
    workflow = load(MATRIX_WORKFLOW)
    merge = workflow["jobs"]["merge"]
    commands = [step.get("run", "") for step in merge["steps"]]
    [merging] = [c for c in commands if "python -m verification.matrix merge" in c]
    out = command(merging.split("&&")[-1], workflow["env"])
    assert out[out.index("--out") + 1] == workflow["env"]["RESULTS_FILE"]
    assert any(runs_a_strict_build(c) for c in commands)


def test_only_the_propose_job_of_the_matrix_writes_and_it_runs_no_repository_code():
    workflow = load(MATRIX_WORKFLOW)
    assert workflow["env"]["RESULTS_FILE"] == "verification/matrix/results.json"
    jobs = workflow["jobs"]
    for name in ("run", "merge"):
        assert jobs[name]["permissions"] == {"contents": "read"}, name
    propose = jobs["propose"]
    assert propose["needs"] == "merge"
    assert propose["permissions"] == {"contents": "write", "pull-requests": "write"}
    uses = [step.get("uses", "") for step in propose["steps"]]
    assert not any(u.startswith("actions/checkout@") for u in uses)
    text = MATRIX_WORKFLOW.read_text("utf-8")
    assert "secrets." not in text and "secrets:" not in text


def test_pull_request_checks_never_run_the_matrix():
    for path in [*WORKFLOWS, ROOT / ".ci" / "run"]:
        if path == MATRIX_WORKFLOW:
            continue
        text = path.read_text("utf-8")
        assert "make matrix" not in text and "verification.matrix run" not in text, path.name


# --- Pages ----------------------------------------------------------------------------


def test_only_the_pages_workflow_deploys_and_only_its_deploy_job_may_write_to_pages():
    for path in WORKFLOWS:
        if path == PAGES_WORKFLOW:
            continue
        for job_name, step in all_steps(load(path)):
            assert not step.get("uses", "").startswith("actions/deploy-pages@"), path.name
            assert "pages" not in load(path)["jobs"][job_name]["permissions"], path.name
    workflow = load(PAGES_WORKFLOW)
    for job_name, job in workflow["jobs"].items():
        writes = {scope for scope, level in job["permissions"].items() if level == "write"}
        if job_name == "deploy":
            assert job["permissions"] == {"pages": "write", "id-token": "write"}
            assert job["environment"]["name"] == "github-pages"
        else:
            assert not writes & {"pages", "id-token"}, job_name
    concurrency = workflow["jobs"]["deploy"].get("concurrency") or workflow["concurrency"]
    assert concurrency == {"group": "pages", "cancel-in-progress": False}


def test_pages_build_job_only_reads():
    assert load(PAGES_WORKFLOW)["jobs"]["build"]["permissions"] == {"contents": "read"}


def test_pages_deploys_only_from_main():
    on = load(PAGES_WORKFLOW)["on"]
    assert set(on) == {"push", "workflow_dispatch"}
    assert on["push"] == {"branches": ["main"]}


def test_checks_run_the_readme_test_command_once_and_upload_the_site_it_built():
    """The README's test command runs ruff, the strict build and the link check; the
    checks run it once, repeat none of it, and upload the site the suite built. Beside it,
    one job runs the pages left out of make test (tests/test_pages_on_schedule.py)."""
    workflow = load(GITHUB / "workflows" / "checks.yml")
    assert set(workflow["on"]) == {"pull_request", "push"}
    by_job = {
        name: [step["run"] for step in job["steps"] if "run" in step]
        for name, job in workflow["jobs"].items()
    }
    assert by_job == {"test": [".ci/run"], "pages-on-schedule": ["make test-pages-on-schedule"]}
    steps = workflow["jobs"]["test"]["steps"]
    runs = [step for step in steps if "run" in step]
    assert "make test" in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    suite = {
        "tests/test_lint.py": "def test_ruff_check_passes(",
        "tests/test_site_links.py": "def test_the_built_site_has_no_broken_internal_link_or_a",
        "tests/test_site_build.py": "(built_site",
    }
    for path, test in suite.items():
        assert test in (ROOT / path).read_text("utf-8"), path
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    kept = runs[0]["env"]["TEST_SITE_DIR"]
    assert upload["with"]["path"].rstrip("/") == kept


def test_the_suite_keeps_its_built_site_where_told(monkeypatch):
    from tests.conftest import SiteBuild, shared_folder

    monkeypatch.setenv("TEST_SITE_DIR", "site")
    assert SiteBuild().site_dir == ROOT / "site"
    monkeypatch.delenv("TEST_SITE_DIR")
    assert SiteBuild().site_dir == shared_folder("site-build") / "site"


# --- Dependabot -----------------------------------------------------------------------


def test_dependabot_updates_the_lock_file_and_the_actions_grouped_with_a_cooldown():
    config = yaml.safe_load((GITHUB / "dependabot.yml").read_text("utf-8"))
    updates = {update["package-ecosystem"]: update for update in config["updates"]}
    assert set(updates) == {"uv", "github-actions"}
    for update in updates.values():
        assert update["groups"], "updates must be grouped"
        assert update["cooldown"]["default-days"] >= 3


# --- issue and pull-request templates -------------------------------------------------

ISSUE_FORMS = sorted((GITHUB / "ISSUE_TEMPLATE").glob("*.yml"))


def test_issue_forms_cover_the_three_kinds_of_report():
    forms = [p.name for p in ISSUE_FORMS if p.name != "config.yml"]
    assert forms == ["broken-snippet.yml", "new-retracing-cause.yml", "wrong-claim.yml"]
    config = yaml.safe_load((GITHUB / "ISSUE_TEMPLATE" / "config.yml").read_text("utf-8"))
    assert config["blank_issues_enabled"] is False


@pytest.mark.parametrize(
    "path", [p for p in ISSUE_FORMS if p.name != "config.yml"], ids=lambda p: p.name
)
def test_issue_form_is_well_formed(path):
    form = yaml.safe_load(path.read_text("utf-8"))
    assert form["name"] and form["description"]
    ids = [field["id"] for field in form["body"]]
    assert len(ids) == len(set(ids)), "field ids must be unique"
    for field in form["body"]:
        assert field["type"] in {"input", "textarea", "dropdown", "checkboxes", "markdown"}
        assert field["attributes"]["label"]
    assert "versions" in ids, "every report needs the versions it was seen on"
    assert any(f.get("validations", {}).get("required") for f in form["body"])


def test_pull_request_template_asks_for_the_suite_and_lint():
    text = (GITHUB / "pull_request_template.md").read_text("utf-8")
    assert "- [ ] `make test` passes locally." in text
    assert "- [ ] `make lint` passes." in text
