# Thin wrappers over the real commands. Every target installs what it needs first.
.DEFAULT_GOAL := help
PY := .venv/bin/python
SITE_DIR ?= site
# Material 9.8 prints an end-of-life banner on every build; it is not a build warning.
export NO_MKDOCS_2_WARNING := 1

.PHONY: help env docs-env serve build test test-scheduled test-pages-on-schedule test-page lint bench bench-quick matrix clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

env:  ## create or update .venv from uv.lock (installs uv into .tools/ if needed)
	@.ci/bootstrap

# The site needs only the docs group; --inexact keeps what `make test` installed beside it.
docs-env:  ## create or update .venv with what building the site needs (the docs group)
	@.ci/bootstrap --no-default-groups --group docs --inexact

# SERVE_ADDR and SERVE_OPTIONS (e.g. -f another/mkdocs.yml) let a test serve a small site on
# a free port. exec: the shell gives way to the wrapper, so make's SIGTERM reaches it.
SERVE_ADDR ?= 127.0.0.1:8000
SERVE_OPTIONS ?=
serve: docs-env  ## build the site strictly and serve it on http://127.0.0.1:8000
	@echo ">> building the site, then serving it on http://$(SERVE_ADDR) (Ctrl-C to stop)"
	@SITE_URL=http://$(SERVE_ADDR)/ exec $(PY) -m verification.site_build serve --dev-addr $(SERVE_ADDR) $(SERVE_OPTIONS)

build: docs-env  ## build the static site into ./site with --strict
	@$(PY) -m verification.site_build build --site-dir $(SITE_DIR)

test: env  ## run the test suite (executes the code blocks of every page but PAGES_ON_SCHEDULE's)
	@.ci/ensure-chromium
	@echo ">> running the test suite"
	$(PY) -m pytest

test-scheduled: env  ## the checks too long for make test (weekly in CI): reader installs, the whole explainer corpus, every generated page in the browser
	@.ci/ensure-chromium
	$(PY) -m pytest -m scheduled $(PYTEST_ARGS)

# The pages whose runs start processes of their own (PAGES_ON_SCHEDULE in tests/conftest.py),
# left out of make test: their blocks, rendered blocks and environment, as test-page checks them.
PAGES_ON_SCHEDULE_TESTS := tests/test_docs_blocks.py \
	tests/test_site_build.py::test_every_rendered_python_block_was_executed \
	tests/test_fresh_install.py::test_every_page_ran_in_the_reader_environment
test-pages-on-schedule: env  ## run the pages left out of make test (a Ray cluster, fresh interpreters)
	$(PY) -m pytest -m scheduled $(PAGES_ON_SCHEDULE_TESTS)

# The checks about one page: its blocks run as a reader would with their shown output, its
# continuation labels and verified-versions note, the guide's lint expectations, and the
# built site's links. PAGE is a path from the repository root.
PAGE_TESTS := tests/test_docs_blocks.py tests/test_docs_continuations.py \
	tests/test_hooks_verified_versions.py \
	tests/test_retracing_lint.py::test_the_guide_examples_give_exactly_the_known_findings \
	tests/test_site_links.py::test_the_built_site_has_no_broken_internal_link_or_anchor
test-page: env  ## check one page (make test-page PAGE=docs/guide/causes.md) in under a minute
	@test -n "$(PAGE)" || { echo "usage: make test-page PAGE=docs/guide/causes.md" >&2; exit 2; }
	$(PY) -m pytest --page "$(PAGE)" $(PAGE_TESTS)

# Lint needs ruff only: its own environment with the locked ruff, without TensorFlow.
LINT_ENV := .tools/lint
lint:  ## ruff over the Python code (installs ruff only, not TensorFlow)
	@UV_PROJECT_ENVIRONMENT=$(LINT_ENV) .ci/bootstrap --only-group lint
	$(LINT_ENV)/bin/ruff check .
	$(LINT_ENV)/bin/ruff format --check .

bench: env  ## run every benchmark scenario (full profile) and update benchmarks/results/
	$(PY) -m benchmarks run

bench-quick: env  ## a short benchmark run (few repetitions), to try a change
	$(PY) -m benchmarks run --quick

# MATRIX_ARGS passes options through, e.g. MATRIX_ARGS="--only tf2.16 --jobs 2".
matrix: env  ## run every page and the package tests on each TensorFlow of the version matrix
	$(PY) -m verification.matrix run $(MATRIX_ARGS)

clean:  ## remove the built site and the environments
	rm -rf site .venv .tools .pytest_cache
