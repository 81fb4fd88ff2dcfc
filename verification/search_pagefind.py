"""Pagefind, ranked on a built site: see verification.search_heldout."""
