"""A social card per page: the image a link preview shows (Open Graph, Twitter), drawn at
build time without the network.

Material's ``social`` plugin fetches its fonts from Google Fonts while it builds, which
cannot happen where the site is built. These cards are drawn with Pillow in DejaVu Sans,
the font Matplotlib ships inside its package (both are in the docs environment): the
page's title and the site's name on the site's primary colour, 1200 x 630 pixels, the
size Open Graph and Twitter's large card expect. The tags themselves are written by
``docs/overrides/main.html`` from ``card_meta``.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import posixpath
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageColor, ImageDraw, ImageFont

WIDTH, HEIGHT = 1200, 630
BACKGROUND = "#a8370c"  # --md-primary-fg-color of docs/assets/theme.css
FOREGROUND = "#ffffff"
MUTED = 200  # of 255: the site's name, between the background and white
MARGIN = 80
FOLDER = "assets/social"
SITE_CARD = f"{FOLDER}/site.png"  # for the pages that have no page of their own (404)


@dataclass(frozen=True)
class CardMeta:
    """What the template writes into a page's head."""

    image: str  # absolute URL of the card
    title: str
    description: str
    url: str  # the page's own absolute URL
    width: int = WIDTH
    height: int = HEIGHT


@functools.cache
def _font(bold: bool, size: int) -> ImageFont.FreeTypeFont:
    spec = importlib.util.find_spec("matplotlib")  # its folder only: nothing is imported
    if spec is None or spec.origin is None:
        raise RuntimeError("social cards need Matplotlib's fonts: matplotlib is not installed")
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(Path(spec.origin).parent / "mpl-data/fonts/ttf" / name), size)


def _wrap(draw: ImageDraw.ImageDraw, text: str, font, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=font) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def _fitted_title(draw: ImageDraw.ImageDraw, title: str) -> tuple[list[str], object, int]:
    """The title in the largest size, from 72 px down, that fits four lines."""
    for size in (72, 64, 56, 48, 42):
        font = _font(True, size)
        lines = _wrap(draw, title, font, WIDTH - 2 * MARGIN)
        if len(lines) <= 4 and all(
            draw.textlength(line, font=font) <= WIDTH - 2 * MARGIN for line in lines
        ):
            return lines, font, size
    return lines[:4], font, size


@functools.cache
def _palette() -> list[int]:
    """The blend from the background (index 0) to the text's colour (255): the card is drawn
    as one channel of blend and saved with this palette, three times less to compress than
    RGB (most of a card's time is its PNG compression)."""
    colours = zip(ImageColor.getrgb(BACKGROUND), ImageColor.getrgb(FOREGROUND), strict=True)
    ends = list(colours)
    return [round(b + (f - b) * i / 255) for i in range(256) for b, f in ends]


def render_card(title: str, site_name: str) -> bytes:
    """A PNG of ``title`` above ``site_name``."""
    blend = Image.new("L", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(blend)
    lines, font, size = _fitted_title(draw, title)
    line_height = round(size * 1.2)
    top = (HEIGHT - 120 - line_height * len(lines)) // 2
    for index, line in enumerate(lines):
        draw.text((MARGIN, top + index * line_height), line, font=font, fill=255)
    draw.rectangle((MARGIN, HEIGHT - 130, MARGIN + 120, HEIGHT - 124), fill=MUTED)
    draw.text((MARGIN, HEIGHT - 105), site_name, font=_font(False, 36), fill=MUTED)
    image = Image.frombytes("P", blend.size, blend.tobytes())
    image.putpalette(_palette())
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def card_path(page_uri: str) -> str:
    """Where a page's card is served: guide/causes.md -> assets/social/guide/causes.png."""
    return f"{FOLDER}/{posixpath.splitext(page_uri)[0]}.png"


def card_meta(
    image_path: str, title: str, description: str, page_url: str, site_url: str
) -> CardMeta:
    base = site_url.rstrip("/") + "/"
    return CardMeta(
        image=base + image_path,
        title=title,
        description=" ".join(description.split()),
        url=base + page_url.lstrip("/"),
    )
