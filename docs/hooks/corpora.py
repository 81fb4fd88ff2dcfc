"""MkDocs hook: the explainer's, the linter's and the serving predictor's scores on their
corpora, and the search's on its held-out query sets, rendered at build time where a page
has ``<!-- explainer-corpus -->``, ``<!-- lint-corpus -->``, ``<!-- lint-blind-corpus -->``,
``<!-- lint-split-corpora -->``, ``<!-- serving-corpus -->`` or
``<!-- search-held-out -->``, from the results files that
``python -m verification.{explainer,lint,serving}_corpus run`` (``lint_corpus blind`` for
the blind corpora, ``search_heldout score`` for search) write, and where it has
``<!-- search-marker-agreement -->``, from the held-out sets' two blind markings. A missing
or malformed file fails the build, naming the file and the field; the logic lives in
``verification``."""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from verification import search_agreement, search_scores
from verification.corpus_results import ResultsError, render_on_page
from verification.explainer_corpus import render as explainer_render
from verification.explainer_corpus.results import read_results as explainer_results
from verification.lint_corpus import blind as lint_blind
from verification.lint_corpus import render as lint_render
from verification.lint_corpus import split_scores as lint_split
from verification.lint_corpus.results import read_results as lint_results
from verification.serving_corpus import render as serving_render
from verification.serving_corpus.results import read_results as serving_results

CORPORA = (
    ("explainer corpus", explainer_render, explainer_results),
    ("linter corpus", lint_render, lint_results),
    ("serving corpus", serving_render, serving_results),
    ("linter blind corpus", lint_blind, lint_blind.read_results),
    ("linter split blind corpora", lint_split, lint_split.read_results),
    ("held-out search sets", search_scores, search_scores.read_results),
    ("second blind markings", search_agreement, search_agreement.read_results),
)


def on_page_markdown(markdown, page, config, **_):
    for label, render, read in CORPORA:
        try:
            markdown = render_on_page(
                markdown, render.MARKER, read, render.replace_marker, label, config["repo_url"]
            )
        except ResultsError as error:
            raise PluginError(str(error)) from error
    return markdown
