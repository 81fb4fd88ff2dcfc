"""The tally on the page that checks articles' claims is counted from its table."""

from __future__ import annotations

import pytest

from verification.article_tally import MARKER, TallyError, render, replace_marker, verdicts
from verification.harness.codeblocks import ROOT

PAGE = ROOT / "docs" / "guide" / "claims-checked.md"
TABLE = """\
| # | Claim | Source | Verdict | Evidence |
|---|---|---|---|---|
| 1 | A | post | holds[[proof: "x | y"]] | [s](#s) |
| 2 | B | post | holds only when a tensor | [s](#s) |
| 3 | C | post | wrong: one trace | [s](#s) |
| 4 | D | post | holds: it fails there | [s](#s) |
"""


def test_each_verdict_is_counted_under_the_first_kind_it_starts_with():
    assert verdicts(TABLE) == {1: "holds", 2: "holds only when", 3: "wrong", 4: "holds"}
    table = render(verdicts(TABLE))
    assert "Tally of the 4 claims:" in table
    assert "| holds | 1, 4 | 2 |" in table
    assert "| holds only when ... | 2 | 1 |" in table
    assert "| wrong | 3 | 1 |" in table


def test_a_verdict_of_no_known_kind_or_a_number_used_twice_is_refused():
    with pytest.raises(TallyError, match="claim 5: verdict 'maybe'"):
        verdicts("| 5 | E | post | maybe | x |\n")
    with pytest.raises(TallyError, match="claim 1 appears twice"):
        verdicts(TABLE + "| 1 | A | post | holds | x |\n")


def test_the_page_has_its_marker_and_counts_every_claim():
    text = PAGE.read_text(encoding="utf-8")
    assert MARKER in text
    rendered = replace_marker(text)
    assert MARKER not in rendered
    assert f"Tally of the {len(verdicts(text))} claims:" in rendered
