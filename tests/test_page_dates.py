"""The date under each page: the last commit that changed it, or nothing where git cannot
tell (a shallow clone would date every page to its one commit)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

from verification.harness.codeblocks import ROOT
from verification.page_dates import _history_is_whole, date_note, last_changed

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def git(folder: Path, *args: str, date: str = "2026-01-02T03:04:05") -> None:
    env = {**GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(folder), *args], check=True, env=env, capture_output=True)


def test_a_page_is_dated_by_its_last_commit_and_an_uncommitted_one_not_at_all(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "b.md").write_text("# B\n")
    git(tmp_path, "add", "a.md", "b.md")
    git(tmp_path, "commit", "-q", "-m", "both", date="2026-01-02T03:04:05")
    (tmp_path / "b.md").write_text("# B, changed\n")
    git(tmp_path, "commit", "-q", "-am", "b", date="2026-03-04T05:06:07")
    (tmp_path / "c.md").write_text("# C\n")
    assert last_changed(tmp_path / "a.md", tmp_path) == "2026-01-02"
    assert last_changed(tmp_path / "b.md", tmp_path) == "2026-03-04"
    assert last_changed(tmp_path / "c.md", tmp_path) is None


def test_a_shallow_clone_or_no_git_gives_no_date(tmp_path):
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q")
    for day in ("01", "02"):
        (origin / f"{day}.md").write_text(day)
        git(origin, "add", f"{day}.md")
        git(origin, "commit", "-q", "-m", day, date=f"2026-01-{day}T00:00:00")
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(shallow)],
        check=True,
        capture_output=True,
    )
    assert last_changed(shallow / "01.md", shallow) is None  # not 2026-01-02
    assert last_changed(tmp_path / "nowhere.md", tmp_path / "nowhere") is None
    _history_is_whole.cache_clear()


def test_the_note_is_kept_out_of_the_search_index():
    note = date_note("2026-01-02", "https://example.org/history")
    assert "data-search-exclude" in note and "Last changed on 2026-01-02" in note


def test_the_pages_workflow_fetches_the_whole_history():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    checkouts = [
        step
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if step.get("uses", "").startswith("actions/checkout@")
    ]
    assert checkouts and all(step["with"]["fetch-depth"] == 0 for step in checkouts)
