"""The site builds strictly, shows only blocks that ran, and fails on broken links or includes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verification.harness.codeblocks import ROOT, page_blocks, site_url_path
from verification.harness.processes import build_site
from verification.site_build import command, is_shown, is_start_up_noise

RENDERED_PYTHON_BLOCK = re.compile(r'<div class="language-python highlight"')
MARKDOWN_PAGES = sorted((ROOT / "docs").rglob("*.md"))


def html_for(site_dir: Path, page: Path) -> Path:
    return site_dir / site_url_path(page).lstrip("/") / "index.html"


@pytest.mark.parametrize("page", MARKDOWN_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_rendered_python_block_was_executed(page, built_site, page_runs):
    rendered = len(RENDERED_PYTHON_BLOCK.findall(html_for(built_site, page).read_text("utf-8")))
    results = page_runs.results(page)["blocks"]
    executed = sum(r["status"] == "passed" for r in results)
    declared_not_run = sum(b.not_run_reason is not None for b in page_blocks(page))
    assert rendered == executed + declared_not_run, (
        f"{page.name}: the site shows {rendered} Python blocks but the tests executed "
        f"{executed} (and {declared_not_run} carry a visible reason not to run)"
    )


def test_site_has_pages(built_site):
    # Guards the test above from passing vacuously on an empty site.
    assert len(MARKDOWN_PAGES) >= 3
    assert all(html_for(built_site, page).exists() for page in MARKDOWN_PAGES)


def the_sites_markdown_settings() -> dict:
    """What decides how a build treats a broken link or include: the site's validation
    settings and its Markdown extensions (the headings' anchors, the snippets' base path
    and path checks), as mkdocs.yml gives them."""
    from mkdocs.utils.yaml import yaml_load

    with open(ROOT / "mkdocs.yml", encoding="utf-8") as config:
        site = yaml_load(config)
    return {key: site[key] for key in ("validation", "markdown_extensions")}


@pytest.fixture
def small_site(tmp_path) -> Path:
    """A site of two pages and an empty snippets folder, built with the site's Markdown
    settings. A copy of the whole site took 5 to 15 s to fail (every page rendered before
    MkDocs checks links); the real site's links and includes are checked on the built site
    (tests/test_site_links.py and the site build itself)."""
    settings = the_sites_markdown_settings()
    assert settings["validation"]["links"]["not_found"] == "warn"
    assert settings["validation"]["links"]["anchors"] == "warn"
    (tmp_path / "snippets").mkdir()
    (tmp_path / "docs" / "guide").mkdir(parents=True)
    (tmp_path / "docs" / "guide" / "how-tracing-works.md").write_text(
        "# How tracing works\n\n## A section\n", "utf-8"
    )
    (tmp_path / "docs" / "index.md").write_text(
        "# Home\n\nSee [the section](guide/how-tracing-works.md#a-section).\n", "utf-8"
    )
    config = {"site_name": "two pages", "docs_dir": "docs", **settings}
    (tmp_path / "mkdocs.yml").write_text(json.dumps(config), "utf-8")  # JSON is YAML
    assert build_site(tmp_path / "mkdocs.yml", tmp_path / "site").returncode == 0
    return tmp_path


def append_to_home(project: Path, text: str) -> None:
    home = project / "docs" / "index.md"
    home.write_text(home.read_text("utf-8") + "\n" + text + "\n", "utf-8")


def strict_build_errors(project: Path) -> str:
    proc = build_site(project / "mkdocs.yml", project / "site")
    assert proc.returncode != 0, "the strict build passed but should have failed"
    return proc.stderr


def test_strict_build_fails_on_a_link_to_a_missing_page_or_anchor_naming_each(small_site):
    # Both are warnings, which --strict turns into one failure at the end, naming each.
    append_to_home(small_site, "See [nowhere](guide/no-such-page.md).")
    append_to_home(small_site, "See [a section](guide/how-tracing-works.md#no-such-section).")
    errors = strict_build_errors(small_site)
    assert "guide/no-such-page.md" in errors
    assert "no-such-section" in errors
    assert "#a-section" not in errors  # the anchor that exists passed before and passes


def test_build_fails_on_include_of_missing_file(small_site):
    append_to_home(small_site, '```python\n--8<-- "no_such_file.py"\n```')
    assert "no_such_file.py" in strict_build_errors(small_site)


def test_build_fails_on_include_of_missing_section(small_site):
    (small_site / "snippets" / "present.py").write_text(
        "# --8<-- [start:here]\nx = 1\n# --8<-- [end:here]\n", "utf-8"
    )
    append_to_home(small_site, '```python\n--8<-- "present.py:elsewhere"\n```')
    assert "elsewhere" in strict_build_errors(small_site)


# --- the quiet build: only the notebook kernels' start-up log is left out -----------------


@pytest.mark.parametrize(
    "line",
    [
        "I0000 00:00:1795612959.051207   22177 port.cc:153] oneDNN custom operations are on.\n",
        "I0000 00:00:1795612959.052151   22177 cudart_stub.cc:31] Could not find cuda drivers\n",
        "E0000 00:00:1795612960.808711   22177 cuda_platform.cc:52] failed call to cuInit: X\n",
        "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n",
        "To enable the following instructions: AVX2 FMA, in other operations, rebuild\n",
        "[IPKernelApp] WARNING | Kernel is running over TCP without encryption. All ...\n",
    ],
)
def test_the_kernels_start_up_log_is_left_out(line):
    assert is_start_up_noise(line)


@pytest.mark.parametrize(
    "line",
    [
        "WARNING -  Doc file 'guide/a.md' contains a link to 'b.md', which is not found\n",
        "ERROR   -  Error reading page 'guide/a.md'\n",
        "E0000 00:00:1795612960.808711   22177 some_kernel.cc:12] an op failed: INTERNAL\n",
        "W0000 00:00:1795612960.808711   22177 op_level_cost_estimator.cc:699] a warning\n",
        "Traceback (most recent call last):\n",
        "[IPKernelApp] ERROR | Exception in message handler\n",
    ],
)
def test_every_other_line_reaches_the_terminal(line):
    assert not is_start_up_noise(line)


def test_the_quiet_build_is_strict_and_keeps_warnings():
    """--quiet would hide the warnings --strict counts: the build drops INFO lines itself."""
    assert command("build", ["--site-dir", "x"])[3:5] == ["build", "--strict"]
    assert "--quiet" not in command("build", [])
    assert not is_shown("INFO    -  Cleaning site directory\n", "build")
    assert is_shown("INFO    -  Serving on http://127.0.0.1:8000/\n", "serve")
    assert is_shown("INFO    -  Building documentation...\n", "serve")
    assert is_shown("INFO    -  [10:02:03] Detected file changes\n", "serve")
    note = "INFO    -  Formatting signatures requires either Black or Ruff to be installed.\n"
    assert not is_shown(note, "serve") and not is_shown(note, "build")
    assert is_shown("WARNING -  griffe: Unsupported item in __all__\n", "build")
