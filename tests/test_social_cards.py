"""Social cards (verification/social_cards.py, docs/hooks/social_cards.py,
docs/overrides/main.html): drawn without the network, one per page, and every built page
says in its Open Graph and Twitter tags where its card is."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

from PIL import Image

from verification.harness.codeblocks import ROOT
from verification.social_cards import FOLDER, HEIGHT, WIDTH, card_meta, card_path, render_card

TAGS = ("og:image", "og:title", "og:description", "twitter:card")
META = re.compile(r'<meta (?:property|name)="([\w:]+)" content="([^"]*)">')


def test_a_card_is_a_png_of_the_size_link_previews_expect():
    long_title = "A title long enough to need several lines on the card " * 3
    for title in ("Memory kept by traces", long_title):
        image = Image.open(io.BytesIO(render_card(title, "The site")))
        assert (image.format, image.size) == ("PNG", (WIDTH, HEIGHT)) == ("PNG", (1200, 630))
        assert len(image.getcolors(maxcolors=100_000)) > 2  # text drawn on the background


def test_card_paths_and_absolute_addresses():
    assert card_path("guide/causes.md") == f"{FOLDER}/guide/causes.png"
    assert card_path("notebooks/lab.ipynb") == f"{FOLDER}/notebooks/lab.png"
    meta = card_meta("assets/social/x.png", "T", "one\n  two", "guide/x/", "https://e.org/s")
    assert meta.image == "https://e.org/s/assets/social/x.png"
    assert (meta.url, meta.description) == ("https://e.org/s/guide/x/", "one two")


def _built_pages(site: Path) -> list[Path]:
    """Every page MkDocs rendered with the theme (the wheel's simple index is not one)."""
    return [
        path
        for path in sorted(site.rglob("*.html"))
        if '<meta name="generator" content="mkdocs-' in path.read_text(encoding="utf-8")
    ]


def test_every_built_page_has_its_card_and_tags(built_site):
    pages = _built_pages(built_site)
    sources = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.ipynb")]
    assert len(pages) > len(sources) // 2 and built_site / "404.html" in pages
    images = set()
    for page in pages:
        tags = dict(META.findall(page.read_text(encoding="utf-8")))
        missing = [tag for tag in TAGS if not tags.get(tag)]
        assert not missing, f"{page.relative_to(built_site)} lacks {missing}"
        assert tags["twitter:card"] == "summary_large_image"
        image = html.unescape(tags["og:image"])
        assert image.startswith(("https://", "http://")) and f"/{FOLDER}/" in image, image
        images.add(image[image.index(f"{FOLDER}/") :])
    for image in images:
        with Image.open(built_site / image) as card:
            assert (card.format, card.size) == ("PNG", (WIDTH, HEIGHT)), image
    assert len(images) == len(pages)  # one card per page (the 404 page's is the site's)
