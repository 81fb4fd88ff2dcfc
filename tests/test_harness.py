"""The harness itself: it runs what plain pytest-codeblocks would skip, and it can fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from verification.harness.codeblocks import (
    HarnessError,
    expand_includes,
    extract_python_blocks,
    output_mismatch,
    page_blocks,
    parse_fence,
)
from verification.harness.processes import nested_pytest_environment, run_page_in_subprocess

TITLED_BLOCK = """# A page

```python title="example.py" hl_lines="1"
print("ran")
```

<!--pytest-codeblocks:expected-output-->

```text
ran
```
"""


def write_page(tmp_path: Path, text: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page


def test_fence_attributes_are_parsed():
    assert parse_fence('python title="a b.py" hl_lines="2 3"') == (
        "python",
        {"title": "a b.py", "hl_lines": "2 3"},
    )
    assert parse_fence("{.python linenums='1'}") == ("python", {"linenums": "1"})


def test_block_with_attributes_runs_here_but_plain_pytest_codeblocks_skips_it(tmp_path):
    page = write_page(tmp_path, TITLED_BLOCK)
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "--codeblocks", "-p", "no:cacheprovider", str(page)],
        cwd=tmp_path,
        env=nested_pytest_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert "collected 0 items" in plain.stdout, plain.stdout
    result = run_page_in_subprocess(page)
    assert [b["status"] for b in result["blocks"]] == ["passed"]
    assert result["blocks"][0]["output"] == "ran\n"


def test_broken_block_fails_and_stops_the_page(tmp_path):
    # Four blocks, so that "stops" means every later block, not only the next one.
    ran = tmp_path / "ran.txt"
    later = f"```python\nopen({str(ran)!r}, 'a').write('ran after the failure')\n```\n\n"
    page = write_page(
        tmp_path,
        "```python\nprint(0)\n```\n\n"
        "```python\nraise RuntimeError('broken on purpose')\n```\n\n" + later * 2,
    )
    result = run_page_in_subprocess(page)
    statuses = [b["status"] for b in result["blocks"]]
    assert statuses == ["passed", "failed", "blocked", "blocked"]
    assert "broken on purpose" in result["blocks"][1]["error"]
    assert "page.md [block 2]" in result["blocks"][1]["error"]
    assert not ran.exists()  # neither later block ran


def test_blocks_run_without_the_harness_future_imports(tmp_path):
    page = write_page(
        tmp_path,
        "```python\nclass A:\n    x: int\nprint(A.__annotations__['x'] is int)\n```\n",
    )
    result = run_page_in_subprocess(page)
    assert result["blocks"][0]["output"] == "True\n", result["blocks"][0]


def test_wrong_shown_output_is_reported(tmp_path):
    page = write_page(tmp_path, TITLED_BLOCK.replace("ran\n```\n", "did not run\n```\n", 1))
    block = page_blocks(page)[0]
    assert block.expected_output == "did not run\n"
    message = output_mismatch(block, "ran\n")
    assert message is not None and "did not run" in message


def test_ellipsis_matches_only_what_varies(tmp_path):
    block = extract_python_blocks(
        "```python\nprint(object())\n```\n\n<!--pytest-codeblocks:expected-output-->\n\n"
        "```text\n<object object at 0x...>\n```\n",
        "page.md",
    )[0]
    assert output_mismatch(block, "<object object at 0x7f00aa>\n") is None
    assert output_mismatch(block, "<function f at 0x7f00aa>\n") is not None


def test_not_run_block_needs_a_visible_reason(tmp_path):
    page = write_page(tmp_path, '```python title="Not run: needs a GPU"\nimport gpu_only\n```\n')
    assert page_blocks(page)[0].not_run_reason == "needs a GPU"
    assert run_page_in_subprocess(page)["blocks"][0]["status"] == "not-run"


@pytest.mark.parametrize("fence", ["py", "python3", "pycon"])
def test_python_alias_fences_are_refused(fence):
    with pytest.raises(HarnessError, match=f"fence language '{fence}'"):
        extract_python_blocks(f"```{fence}\nprint(1)\n```\n", "page.md")


def test_hidden_skip_markers_are_refused():
    with pytest.raises(HarnessError, match="hidden skip markers"):
        extract_python_blocks("<!--pytest.mark.skip-->\n```python\nprint(1)\n```\n", "page.md")


def test_includes_are_expanded_with_named_sections(tmp_path):
    (tmp_path / "lib.py").write_text(
        "import os\n# --8<-- [start:part]\nvalue = 42\n# --8<-- [end:part]\n", "utf-8"
    )
    options = {"base_path": [str(tmp_path)], "check_paths": True}
    text = expand_includes('```python\n--8<-- "lib.py:part"\n```\n', "page.md", options)
    assert "value = 42" in text and "import os" not in text


@pytest.mark.parametrize(
    ("include", "named"), [('"missing.py"', "missing.py"), ('"lib.py:nowhere"', "nowhere")]
)
def test_missing_include_names_page_and_target(tmp_path, include, named):
    (tmp_path / "lib.py").write_text("x = 1\n", "utf-8")
    options = {"base_path": [str(tmp_path)], "check_paths": True}
    with pytest.raises(HarnessError) as error:
        expand_includes(f"```python\n--8<-- {include}\n```\n", "docs/page.md", options)
    assert "docs/page.md" in str(error.value) and named in str(error.value)
