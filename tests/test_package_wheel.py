"""The wheel the site publishes: what it holds, its metadata, and the index that finds it."""

from __future__ import annotations

import hashlib
import re
import zipfile
from email.parser import Parser

from tests.harness.codeblocks import ROOT


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
    assert "tf_retracing/_internals.py" in names
    assert any(name.endswith("licenses/LICENSE") for name in names)
    assert metadata["License-Expression"] == "Apache-2.0"
    requires = metadata.get_all("Requires-Dist")
    assert "tensorflow<2.22,>=2.16" in requires  # a supported range with an upper bound
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


def test_the_package_version_matches_its_metadata():
    import tomllib

    import tf_retracing

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert tf_retracing.__version__ == project["version"]
