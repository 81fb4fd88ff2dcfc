"""When each page last changed, from git: the date under every page of the site.

A shallow clone knows only its newest commit, so every page would seem to have changed
on that day: there, and outside a git checkout, no date is given (the Pages workflow
fetches the whole history). A page with uncommitted changes shows its last commit's date.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

from verification.search_index import out_of_search


@functools.cache
def _history_is_whole(root: Path) -> bool:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--is-shallow-repository"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0 and done.stdout.strip() == "false"


def last_changed(path: Path, root: Path) -> str | None:
    """The date (YYYY-MM-DD) of the last commit that changed ``path``, or None where git
    cannot tell (no checkout, a shallow one, a file never committed)."""
    if not _history_is_whole(root):
        return None
    done = subprocess.run(
        ["git", "-C", str(root), "log", "-1", "--format=%cs", "--", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    date = done.stdout.strip()
    return date if done.returncode == 0 and date else None


def date_note(date: str, history_url: str) -> str:
    """The line under a page, kept out of the search index."""
    line = f"Last changed on {date} ([history]({history_url}))."
    return f"\n\n{out_of_search(line, css_class='page-date')}\n"
