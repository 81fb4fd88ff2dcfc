"""The wheel the site publishes: what it holds, its metadata, and the index that finds it."""

from __future__ import annotations

import hashlib
import re
import zipfile
from email.parser import Parser

from verification.harness.codeblocks import ROOT


def _wheel(built_site):
    (wheel,) = sorted((built_site / "downloads").glob("tf_retracing-*-py3-none-any.whl"))
    return wheel


def test_the_wheel_holds_only_the_package_and_its_licence(built_site):
    with zipfile.ZipFile(_wheel(built_site)) as archive:
        names = archive.namelist()
        metadata = Parser().parsestr(
            archive.read(next(n for n in names if n.endswith("METADATA"))).decode()
        )
        entry_points = archive.read(next(n for n in names if n.endswith("entry_points.txt")))
    top = {name.split("/")[0] for name in names}
    assert top == {"tf_retracing", next(t for t in top if t.endswith(".dist-info"))}
    assert "tf_retracing/_internals/__init__.py" in names
    assert any(name.endswith("licenses/LICENSE") for name in names)
    assert metadata["License-Expression"] == "Apache-2.0"
    # No TensorFlow of its own: any build the reader has serves. The extra gives the tested
    # range, with an upper bound; the only dependency is tomli, on Python 3.10. Ray comes
    # only with the `serve` extra, for the Ray Serve example.
    assert sorted(metadata.get_all("Requires-Dist")) == [
        "ray[serve]<3,>=2.40; extra == 'serve'",
        "tensorflow<2.22,>=2.16; extra == 'tensorflow'",
        "tomli>=1.1; python_version < '3.11'",
    ]
    assert sorted(metadata.get_all("Provides-Extra")) == ["serve", "tensorflow"]
    assert b"tf-retracing = tf_retracing.cli:main" in entry_points


def test_the_simple_index_points_at_the_wheel_with_its_hash(built_site):
    wheel = _wheel(built_site)
    page = (built_site / "simple" / "tf-retracing" / "index.html").read_text()
    (href,) = re.findall(r'href="([^"]+)"', page)
    target, digest = href.split("#sha256=")
    assert (built_site / "simple" / "tf-retracing" / target).resolve() == wheel.resolve()
    assert digest == hashlib.sha256(wheel.read_bytes()).hexdigest()


def test_the_install_page_gives_the_published_wheel(built_site):
    page = (built_site / "install" / "index.html").read_text()
    assert f"downloads/{_wheel(built_site).name}" in page
    assert "simple/ tf-retracing" in page


def test_the_version_is_written_in_one_place(built_site):
    import tomllib

    import tf_retracing
    from tf_retracing._version import __version__

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "snippets/tf_retracing/_version.py"
    assert tf_retracing.__version__ == __version__
    assert _wheel(built_site).name == f"tf_retracing-{__version__}-py3-none-any.whl"
    changelog = (ROOT / "docs" / "changelog.md").read_text()
    assert f"\n## {__version__} (" in changelog  # every version has its changelog section


def test_the_release_notes_are_the_versions_changelog_section(tmp_path):
    import subprocess
    import sys

    from tf_retracing._version import __version__

    script = ROOT / ".ci" / "changelog_section.py"
    done = subprocess.run(
        [sys.executable, str(script), __version__], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    changelog = (ROOT / "docs" / "changelog.md").read_text()
    assert done.stdout.strip() and done.stdout.strip() in changelog
    assert "\n## " not in done.stdout  # one section, not the next release's too
    missing = subprocess.run(
        [sys.executable, str(script), "0.0.1"], capture_output=True, text=True, check=False
    )
    assert missing.returncode == 1 and "no section '## 0.0.1 (...)'" in missing.stderr


def test_the_release_workflow_attaches_the_files_and_publishes_only_when_switched_on():
    import yaml

    jobs = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())["jobs"]
    build = "\n".join(step.get("run", "") for step in jobs["build"]["steps"])
    assert "twine==6.1.0 check --strict dist/*" in build
    assert ".ci/changelog_section.py" in build
    release = jobs["github-release"]
    assert release["permissions"] == {"contents": "write"}
    assert "gh release create" in release["steps"][-1]["run"]
    assert jobs["publish"]["if"] == "vars.PYPI_PUBLISH == 'true'"
    assert jobs["publish"]["permissions"] == {"id-token": "write"}
