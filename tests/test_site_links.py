"""The offline link checker: it finds broken links and anchors, and the real site has none."""

from __future__ import annotations

from pathlib import Path

import pytest

from verification.harness.site_links import (
    base_path_from_config,
    broken_links,
    count_internal_links,
    main,
)

BASE = "/guide-base/"


def write_page(site: Path, relative: str, body: str) -> None:
    path = site / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<!doctype html><html><body>{body}</body></html>", "utf-8")


@pytest.fixture
def small_site(tmp_path) -> Path:
    """A site whose links all resolve: relative, absolute under the base, and anchors."""
    write_page(
        tmp_path,
        "index.html",
        '<h1 id="top">Home</h1><a href="guide/page/#fix">fix</a><a href="#top">top</a>'
        '<a href="https://example.org/missing/">external</a><img src="assets/logo.png">',
    )
    write_page(
        tmp_path,
        "guide/page/index.html",
        '<h2 id="fix">Fix</h2><a href="../../">home</a><a href="/guide-base/#top">abs</a>'
        '<a href="../other/">other</a><a href=".">self</a>',
    )
    write_page(tmp_path, "guide/other/index.html", '<a name="legacy"></a>')
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "logo.png").write_bytes(b"png")
    return tmp_path


def test_a_site_whose_links_resolve_has_no_broken_link(small_site):
    assert broken_links(small_site, BASE) == []
    assert count_internal_links(small_site) == 7


@pytest.mark.parametrize(
    ("link", "reason"),
    [
        ("../guide/missing/", "no such file"),
        ("../guide/page/#no-such-section", "no such anchor"),
        ("#nowhere", "no such anchor"),
        ("/guide-base/guide/other/#gone", "no such anchor"),
        ("/elsewhere/page/", "outside the site base /guide-base/"),
        ("../assets/missing.css", "no such file"),
    ],
)
def test_each_kind_of_broken_link_is_reported(small_site, link, reason):
    write_page(small_site, "broken/index.html", f'<a href="{link}">x</a>')
    found = broken_links(small_site, BASE)
    assert [(b.page, b.link, b.reason) for b in found] == [("broken/index.html", link, reason)]


def test_an_anchor_defined_by_name_counts(small_site):
    write_page(small_site, "named/index.html", '<a href="../guide/other/#legacy">x</a>')
    assert broken_links(small_site, BASE) == []


def test_command_line_exit_status(small_site, capsys):
    assert main([str(small_site), "--base-path", BASE]) == 0
    write_page(small_site, "broken/index.html", '<a href="../nowhere/">x</a>')
    assert main([str(small_site), "--base-path", BASE]) == 1
    assert "broken/index.html: ../nowhere/ (no such file)" in capsys.readouterr().out


def test_command_line_refuses_a_folder_that_is_not_a_site(tmp_path):
    with pytest.raises(SystemExit) as raised:
        main([str(tmp_path)])
    assert raised.value.code == 2


def test_base_path_comes_from_site_url(tmp_path, monkeypatch):
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nsite_url: https://example.org/docs\n", "utf-8")
    assert base_path_from_config(config) == "/docs/"
    config.write_text('site_url: !ENV [SITE_URL, "https://example.org/guide/"]\n', "utf-8")
    monkeypatch.delenv("SITE_URL", raising=False)
    assert base_path_from_config(config) == "/guide/"
    monkeypatch.setenv("SITE_URL", "http://127.0.0.1:8000/")
    assert base_path_from_config(config) == "/"


def test_the_built_site_has_no_broken_internal_link_or_anchor(built_site):
    broken = broken_links(built_site, base_path_from_config())
    assert not broken, "\n".join(map(str, broken))
    # Guards against passing on an empty or unparsed site.
    assert count_internal_links(built_site) > 50
