"""Offline check of a built site: every internal link and anchor must resolve.

Reads only the built HTML. A link is internal when it has no scheme and no host; an
absolute path ("/tf-retracing-guide/page/") counts as internal when it starts with the
path of `site_url`, as Material writes on its 404 page. External links are not fetched.

    python -m verification.harness.site_links SITE_DIR [--base-path /tf-retracing-guide/]

prints each broken link and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from mkdocs.utils.yaml import yaml_load

from verification.harness.codeblocks import ROOT

LINK_ATTRIBUTES = {"a": "href", "link": "href", "img": "src", "script": "src", "source": "src"}


@dataclass(frozen=True)
class BrokenLink:
    page: str
    link: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.link} ({self.reason})"


class _PageScanner(HTMLParser):
    """Collects the ids a page defines and the links it makes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value for name, value in attrs if value is not None}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "name" in values:
            self.ids.add(values["name"])
        attribute = LINK_ATTRIBUTES.get(tag)
        if attribute and attribute in values:
            self.links.append(values[attribute])


def base_path_from_config(config: Path = ROOT / "mkdocs.yml") -> str:
    """The path part of `site_url` in mkdocs.yml ("/" when it has none).

    Read with MkDocs' own YAML loader, so `!ENV [SITE_URL, ...]` resolves as in the build.
    """
    with config.open(encoding="utf-8") as stream:
        site_url = yaml_load(stream).get("site_url") or "/"
    path = urlsplit(site_url).path or "/"
    return path if path.endswith("/") else path + "/"


def _scan(html_file: Path) -> _PageScanner:
    scanner = _PageScanner()
    scanner.feed(html_file.read_text("utf-8"))
    return scanner


def _page_url(site_dir: Path, html_file: Path, base_path: str) -> str:
    """The absolute URL path a page is served at, e.g. /base/guide/page/index.html."""
    return base_path + html_file.relative_to(site_dir).as_posix()


def _resolve(link_path: str, page_url: str) -> str:
    """Resolve a relative or absolute URL path against the page's URL path."""
    if link_path.startswith("/"):
        joined = link_path
    else:
        joined = page_url.rsplit("/", 1)[0] + "/" + link_path
    parts: list[str] = []
    for part in joined.split("/")[1:]:
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    trailing_slash = joined.endswith("/") or joined.endswith("/.") or joined.endswith("/..")
    return "/" + "/".join(parts) + ("/" if trailing_slash and parts else "")


def _target_file(site_dir: Path, url_path: str, base_path: str) -> Path | None:
    """The file a URL path is served from, or None when it lies outside the site."""
    if url_path + "/" == base_path:
        url_path = base_path
    if not url_path.startswith(base_path):
        return None
    relative = unquote(url_path[len(base_path) :])
    target = site_dir / relative
    if url_path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target


def _is_external(link: str) -> bool:
    parts = urlsplit(link)
    return bool(parts.scheme or parts.netloc)


def broken_links(site_dir: Path, base_path: str = "/") -> list[BrokenLink]:
    """Every internal link or anchor of the built site that does not resolve."""
    site_dir = site_dir.resolve()
    pages = {path: _scan(path) for path in sorted(site_dir.rglob("*.html"))}
    broken: list[BrokenLink] = []
    for page, scanner in pages.items():
        page_name = page.relative_to(site_dir).as_posix()
        page_url = _page_url(site_dir, page, base_path)
        for link in scanner.links:
            if _is_external(link):
                continue
            parts = urlsplit(link)
            target_url = _resolve(parts.path, page_url) if parts.path else page_url
            target = _target_file(site_dir, target_url, base_path)
            if target is None:
                broken.append(BrokenLink(page_name, link, f"outside the site base {base_path}"))
            elif not target.is_file():
                broken.append(BrokenLink(page_name, link, "no such file"))
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target.resolve()].ids if target.resolve() in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(BrokenLink(page_name, link, "no such anchor"))
    return broken


def count_internal_links(site_dir: Path) -> int:
    """How many internal links the site has (guards a check from passing on nothing)."""
    return sum(
        not _is_external(link) for page in site_dir.rglob("*.html") for link in _scan(page).links
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site_dir", type=Path, help="the built site (mkdocs build -d ...)")
    parser.add_argument(
        "--base-path",
        default=None,
        help="URL path the site is served under (default: the path of site_url in mkdocs.yml)",
    )
    args = parser.parse_args(argv)
    if not (args.site_dir / "index.html").is_file():
        parser.error(f"{args.site_dir} is not a built site: it has no index.html")
    base_path = args.base_path or base_path_from_config()
    broken = broken_links(args.site_dir, base_path)
    for each in broken:
        print(each)
    checked = count_internal_links(args.site_dir)
    print(f"{len(broken)} broken of {checked} internal links in {args.site_dir}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
