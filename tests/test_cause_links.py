"""Every cause identifier's link resolves to its own section of the built site."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from mkdocs.utils.yaml import yaml_load
from tf_retracing import CAUSES
from tf_retracing.explainer_types import GUIDE_URL

from verification.harness.codeblocks import ROOT

HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


class _HeadingTexts(HTMLParser):
    """id -> text of each heading that has an id, without Material's permalink sign."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: dict[str, str] = {}
        self._heading: str | None = None
        self._in_permalink = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag in HEADINGS and values.get("id"):
            self._heading = values["id"]
            self.texts[self._heading] = ""
        elif tag == "a" and "headerlink" in (values.get("class") or "").split():
            self._in_permalink = True

    def handle_endtag(self, tag):
        if tag == "a":
            self._in_permalink = False
        elif tag in HEADINGS:
            self._heading = None

    def handle_data(self, data):
        if self._heading is not None and not self._in_permalink:
            self.texts[self._heading] += data


def cause_link_problems(site_dir: Path) -> list[str]:
    """What is wrong with each cause's link on the built site (nothing, on a good build)."""
    problems = []
    for cause in CAUSES:
        if not cause.url.startswith(GUIDE_URL):
            problems.append(f"{cause.code}: {cause.url} is not under {GUIDE_URL}")
            continue
        page, _, anchor = cause.url[len(GUIDE_URL) :].partition("#")
        html = site_dir / page / "index.html"
        if not html.is_file():
            problems.append(f"{cause.code}: no page {page!r} in the built site")
            continue
        scanner = _HeadingTexts()
        scanner.feed(html.read_text("utf-8"))
        heading = scanner.texts.get(anchor)
        expected = f"{cause.code}: {cause.title}"
        if heading is None:
            problems.append(f"{cause.code}: no heading with id {anchor!r} on {page}")
        elif heading.strip() != expected:
            problems.append(f"{cause.code}: the heading says {heading.strip()!r}, not {expected!r}")
    return problems


def test_the_guide_url_is_the_sites_url(monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)  # make serve sets it to the local server
    with (ROOT / "mkdocs.yml").open(encoding="utf-8") as stream:
        assert yaml_load(stream)["site_url"] == GUIDE_URL


def test_the_check_finds_a_missing_or_mistitled_section(tmp_path):
    page = tmp_path / "guide" / "diagnosing" / "index.html"
    page.parent.mkdir(parents=True)
    first, second = CAUSES[0], CAUSES[1]
    page.write_text(
        f'<h3 id="{first.code.lower()}">{first.code}: {first.title}'
        '<a class="headerlink" href="#x">&para;</a></h3>'
        f'<h3 id="{second.code.lower()}">{second.code}: something else</h3>',
        "utf-8",
    )
    problems = cause_link_problems(tmp_path)
    assert not any(p.startswith(f"{first.code}:") for p in problems)
    assert f"{second.code}: the heading says" in problems[0]
    assert len(problems) == len(CAUSES) - 1  # the others have no heading at all
    assert cause_link_problems(tmp_path / "empty")[0].endswith("in the built site")


def test_every_cause_links_to_its_section_of_the_built_site(built_site):
    assert cause_link_problems(built_site) == []
