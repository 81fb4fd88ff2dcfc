"""MkDocs hook: a social card per page, drawn at build time without the network, and what
the Open Graph and Twitter tags of docs/overrides/main.html say (the drawing and the tags'
values are in ``verification.social_cards``)."""

from __future__ import annotations

from pathlib import Path

from verification.social_cards import SITE_CARD, card_meta, card_path, render_card

_cards: dict[str, str] = {}  # card path -> the title drawn on it


def _description(config, page=None) -> str:
    described = page.meta.get("description") if page is not None else None
    return described or config["site_description"] or config["site_name"]


def on_page_context(context, page, config, **_):
    title = config["site_name"] if page.is_homepage else page.title
    path = card_path(page.file.src_uri)
    _cards[path] = title
    context["social_card"] = card_meta(
        path, title, _description(config, page), page.url, config["site_url"] or "/"
    )
    return context


def on_template_context(context, template_name, config, **_):
    """The pages made from a template alone (404.html) get the site's card."""
    _cards[SITE_CARD] = config["site_name"]
    context["social_card"] = card_meta(
        SITE_CARD,
        config["site_name"],
        _description(config),
        template_name,
        config["site_url"] or "/",
    )
    return context


def on_post_build(config, **_):
    for path, title in _cards.items():
        out = Path(config["site_dir"]) / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(render_card(title, config["site_name"]))
    _cards.clear()
