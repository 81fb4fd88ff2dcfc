"""The built site in a real browser: every page loads cleanly, offline and accessibly.

Chromium is the system's (Debian's `chromium`), driven by Playwright; `.ci/run` installs
it when it is missing. The site is the one the `built_site` fixture built with --strict.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from benchmarks.results_pages import results_page_paths
from verification.harness.codeblocks import ROOT, site_url_path
from verification.search_rank import rank

BLOCKING_IMPACTS = {"serious", "critical"}
FIXTURES = Path(__file__).parent / "fixtures"


def chromium_path() -> str:
    path = (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if not path:
        pytest.fail(
            "Chromium not found: install Debian's `chromium` (.ci/run does) or set CHROMIUM"
        )
    return path


def site_pages(site: Path) -> list[str]:
    """URL paths of every HTML page of the site except the 404 page and the package index
    (``simple/``: pages for pip, checked by tests/test_package_wheel.py)."""
    pages = []
    for html in sorted(site.rglob("index.html")):
        relative = html.parent.relative_to(site).as_posix()
        if relative == "simple" or relative.startswith("simple/"):
            continue
        pages.append("/" if relative == "." else f"/{relative}/")
    return pages


@pytest.fixture(scope="session")
def site_url(built_site) -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


# axe-core, served beside the site (never part of it) so that each page loads it as a script
# the browser has cached and compiled: about 0.07 CPU-s a page less than sending its source
# into every page.
AXE_PATH = "/__tests__/axe.min.js"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        if self.path != AXE_PATH:
            super().do_GET()
            return
        body = AXE_SCRIPT.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=86400")
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


class PageVisit:
    """A browser tab that records every request and console error while it is open.

    The tab opens in a context of its own, or in ``context`` when given: tabs of one context
    share its cache and storage, as a reader's tabs do.
    """

    def __init__(self, browser: Browser, site_url: str, context: BrowserContext | None = None):
        self._owns_context = context is None
        self.context = context or browser.new_context(
            permissions=["clipboard-read", "clipboard-write"]
        )
        self.page: Page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        self.site_url = site_url
        # Text looks (colours, font, backdrop) whose contrast was found sufficient on an
        # earlier page in this tab: see colour_violations.
        self.checked_looks: set[str] = set()

    def _on_console(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def start_again(self) -> None:
        """Before a reused tab opens another page: no recorded request or error, a wide
        window and the system's default colour scheme, as in a new tab."""
        self.requests.clear()
        self.errors.clear()
        self.page.set_viewport_size({"width": WIDE, "height": SCREEN_HEIGHT})
        self.page.emulate_media(color_scheme="null")

    def open(self, path: str, wait_until: str = "networkidle"):
        response = self.page.goto(urljoin(self.site_url, path), wait_until=wait_until)
        assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
        return response

    def outside_requests(self) -> list[str]:
        return [
            url
            for url in self.requests
            if urlparse(url).scheme not in {"data", "blob"}
            and urlparse(url).hostname != "127.0.0.1"
        ]

    def close(self) -> None:
        if self._owns_context:
            self.context.close()
        else:
            self.page.close()


@pytest.fixture(scope="session")
def reading_tab(browser, site_url) -> Iterator[PageVisit]:
    """One tab for the page checks, which only read, reused from page to page: each page
    then loads with the site's scripts and styles already cached, as a reader's second
    page does, and in the renderer process the previous page used. A new tab per page cost
    this machine about 0.9 CPU-seconds more per page (a renderer started and torn down);
    a new context per page, 1.3 more. What a page leaves behind is reset before the next
    (``PageVisit.start_again``); nothing these checks do is stored by the site."""
    context = browser.new_context()
    context.route("**/search/search_index.json", an_empty_search_index())
    tab = PageVisit(browser, site_url, context)
    yield tab
    context.close()


def an_empty_search_index():
    """A route handler that serves the site's search index with its configuration and no
    documents. The theme's search worker fetches the index and builds it on every page
    load: about 0.4 CPU-seconds a page for this site's index, the same work on each page.
    The page checks still load the worker, which builds an index of the same form, and any
    error it raises is reported; the search tests build the real index (``visit`` tabs,
    which are not routed)."""
    empty = {}

    def serve(route) -> None:
        if not empty:
            empty.update(config=route.fetch().json()["config"], docs=[])
        route.fulfill(json=empty)

    return serve


@pytest.fixture
def visit(browser, site_url) -> Iterator[PageVisit]:
    tab = PageVisit(browser, site_url)
    yield tab
    tab.close()


def pages_of_built_site() -> list[str]:
    # Parametrised from the pages the docs define, so that the ids are stable; the test
    # below checks that this matches what was built.
    written = [
        site_url_path(source)
        for source in sorted((ROOT / "docs").rglob("*"))
        if source.suffix in {".md", ".ipynb"} and "hooks" not in source.parts
    ]
    return written + GENERATED_PAGES


# The results pages the build generates, one per scenario (benchmarks.results_pages).
GENERATED_PAGES = [site_url_path(ROOT / "docs" / path) for path in results_page_paths(ROOT)]
PAGES = pages_of_built_site()
# Pages written by one renderer from data, each a page of the same template: the results
# pages (benchmarks.results_pages) and the version matrix's setup pages (one marker each,
# verification.matrix.render). make test checks the longest page of each template
# (test_the_longest_page_of_each_template_in_the_browser); every one of them is checked by
# the Scheduled checks workflow (make test-scheduled), about 1.7 CPU-seconds a page.
ONE_TEMPLATE = {
    "results": GENERATED_PAGES,
    "version setups": [
        site_url_path(source)
        for source in sorted((ROOT / "docs" / "versions").glob("*.md"))
        if source.name != "index.md"
    ],
}


def page_params() -> list:
    of_a_template = {page for pages in ONE_TEMPLATE.values() for page in pages}
    return [
        pytest.param(page, marks=pytest.mark.scheduled) if page in of_a_template else page
        for page in PAGES
    ]


def longest_page(site: Path, pages: list[str]) -> str:
    """The page whose built HTML is longest: the most a template's data makes it hold."""
    return max(pages, key=lambda page: (site / page.strip("/") / "index.html").stat().st_size)


def test_every_built_page_is_checked(built_site):
    assert sorted(site_pages(built_site)) == sorted(PAGES)


# The axe-core rules whose result depends on colours. The two schemes share one DOM (the
# palette only switches an attribute on <body>), so every other rule gives in the dark
# scheme what it gave in the light one.
# axe preloads the page's style sheets for one rule only, css-orientation-lock, which is
# not a colour rule, and is experimental in axe 4, so a run that does not name it leaves it
# out: neither the colour run nor the run of every rule needs the preloading (about 0.15
# CPU-s a page; test_the_style_sheet_rule_is_left_out_of_a_run_of_every_rule keeps this
# true).
COLOUR_RULES = {
    "runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]},
    "preload": False,
}
EVERY_RULE = {"preload": False}
# axe's contrast rule finds each text's background from the elements drawn under it, which
# on a page of highlighted code is three quarters of axe's time (thousands of tokens). Text
# inside <pre> is drawn on its code block's own background, so CODE_TEXT_CONTRAST checks it
# from computed styles instead; outside code, the colour rules check one text per look
# (MARK_ONE_TEXT_PER_LOOK), each rule's selector narrowed to the marked texts, so that one
# axe run per page covers every rule (each run costs a walk of the whole page).
SAMPLE_ATTRIBUTE = "data-contrast-sample"
SAMPLED_COLOUR_RULES = {
    "rules": [
        {"id": "color-contrast", "selector": f"[{SAMPLE_ATTRIBUTE}]"},
        # axe's own selector for this rule is "a[href], [role=link]".
        {
            "id": "link-in-text-block",
            "selector": f"a[href][{SAMPLE_ATTRIBUTE}], [role=link][{SAMPLE_ATTRIBUTE}]",
        },
    ]
}
AXE_SCRIPT = Axe().axe_script


def blocking_violations(
    page: Page, options: dict | None = None, context: dict | None = None
) -> list[str]:
    """axe-core's serious and critical findings on the page (or ``context``) as it is now."""
    if not page.evaluate("typeof window.axe === 'object'"):  # once per loaded page
        if urlparse(page.url).scheme == "http":  # a page of the site's server
            page.add_script_tag(url=urljoin(page.url, AXE_PATH))
        else:
            page.evaluate(AXE_SCRIPT)
        page.evaluate("(rules) => axe.configure(rules)", SAMPLED_COLOUR_RULES)
    found = page.evaluate(
        "([context, options]) => axe.run(context || document, options)",
        [context, {"resultTypes": ["violations"], **(options or {})}],
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found["violations"]
        if v["impact"] in BLOCKING_IMPACTS
    ]


# WCAG 2 contrast (what axe's color-contrast rule applies) of every element inside a <pre>
# that holds text of its own: its colour, with its and its ancestors' opacity, over the
# background its ancestors paint (semi-transparent layers blended down to the first opaque
# one). A colour this cannot read, or a background image, is reported rather than passed.
CODE_TEXT_CONTRAST = """() => {
  const parse = text => {
    const m = text.match(/^rgba?\\(([\\d.]+), ([\\d.]+), ([\\d.]+)(?:, ([\\d.]+))?\\)$/);
    return m && [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
  };
  const over = (top, below) => [0, 1, 2].map(i => top[i] * top[3] + below[i] * (1 - top[3]));
  const luminance = rgb => {
    const linear = v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    const [r, g, b] = rgb.map(linear);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const backdrop = element => {
    const layers = [];
    for (let node = element; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.backgroundImage !== 'none') return `a background image on <${node.localName}>`;
      const colour = parse(style.backgroundColor);
      if (!colour) return `background ${style.backgroundColor}`;
      if (colour[3] > 0) layers.push(colour);
      if (colour[3] === 1) break;
    }
    return layers.reverse().reduce((below, layer) => over(layer, below), [255, 255, 255]);
  };
  const opacity = element => {
    let value = 1;
    for (let node = element; node; node = node.parentElement) {
      value *= +getComputedStyle(node).opacity;
    }
    return value;
  };
  const failures = [];
  for (const element of document.querySelectorAll('pre, pre *')) {
    const text = [...element.childNodes].filter(node => node.nodeType === Node.TEXT_NODE)
      .map(node => node.data).join('').trim();
    if (!text) continue;
    const style = getComputedStyle(element);
    const colour = parse(style.color), below = backdrop(element), where = text.slice(0, 40);
    if (!colour || typeof below === 'string') {
      failures.push(`${JSON.stringify(where)}: cannot tell (${colour ? below : style.color})`);
      continue;
    }
    const shown = over([...colour.slice(0, 3), colour[3] * opacity(element)], below);
    const [high, low] = [luminance(shown), luminance(below)].sort((a, b) => b - a);
    const ratio = (high + 0.05) / (low + 0.05);
    const size = parseFloat(style.fontSize), bold = +style.fontWeight >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < needed) {
      const found = `${style.color} contrast ${ratio.toFixed(2)} < ${needed}`;
      failures.push(`${JSON.stringify(where)}: ${found}`);
    }
  }
  return failures;
}"""


# axe's colour rules cost about a second per page in the thousands of texts a long page
# holds (table cells, list items), most of them styled alike: two visible texts with the
# same look get the same answer from those rules. A look is what the rules read: the colour,
# large text or not (as axe rounds sizes), shadow, opacity and backdrop (the backgrounds the
# ancestors paint down to the first opaque one; a clear one paints nothing); for a link, also
# what tells it apart from the text around it (that text's colour, its weight and decoration).
# So axe runs them on one visible element per look, marked with SAMPLE_ATTRIBUTE; code blocks
# are left to CODE_TEXT_CONTRAST as before. test_a_text_styled_apart_is_found_among_many and
# test_a_small_text_is_checked_apart_from_a_large_one_of_its_colour keep the sample honest.
# (Looks keyed by exact size and weight, and by every clear ancestor, were 198 over the 65
# pages in one tab, against 64; with 64, 10 pages need an axe run in the dark scheme.)
MARK_ONE_TEXT_PER_LOOK = """([attribute, checkedLooks]) => {
  for (const old of document.querySelectorAll(`[${attribute}]`)) old.removeAttribute(attribute);
  const backdrop = element => {
    const layers = [];
    for (let node = element; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      const colour = style.backgroundColor, image = style.backgroundImage;
      if (colour !== 'rgba(0, 0, 0, 0)' || image !== 'none') layers.push(colour, image);
      if (image === 'none' && colour.startsWith('rgb(')) break;
    }
    return layers.join(' ');
  };
  const opacity = element => {
    let value = 1;
    for (let node = element; node; node = node.parentElement) {
      value *= +getComputedStyle(node).opacity;
    }
    return value;
  };
  const seen = new Set(checkedLooks), marked = [];
  for (const element of document.body.querySelectorAll('*')) {
    if (element.closest('pre')) continue;
    const ownText = [...element.childNodes].some(
      node => node.nodeType === Node.TEXT_NODE && node.data.trim());
    if (!ownText || !element.checkVisibility({visibilityProperty: true})) continue;
    const style = getComputedStyle(element);
    // What the contrast rule reads of a text's size: large or not, rounded as axe rounds.
    const points = Math.ceil(parseFloat(style.fontSize) * 72) / 96;
    const large = +style.fontWeight >= 700 ? points >= 14 : points >= 18;
    const shared = [style.color, large, style.textShadow, opacity(element), backdrop(element)];
    // A link is also told apart from the text around it (link-in-text-block).
    const parent = element.parentElement ? getComputedStyle(element.parentElement).color : '';
    const look = (element.localName === 'a'
      ? ['a', ...shared, parent, style.fontWeight, style.textDecorationLine]
      : ['text', ...shared]).join('|');
    if (seen.has(look)) continue;
    seen.add(look);
    element.setAttribute(attribute, '');
    marked.push(look);
  }
  return marked;
}"""


def colour_violations(
    page: Page, options: dict | None = COLOUR_RULES, checked_looks: set[str] | None = None
) -> list[str]:
    """axe's findings for ``options`` (its colour rules, or every rule: EVERY_RULE), its colour
    rules on one text per look outside code blocks (MARK_ONE_TEXT_PER_LOOK), and
    CODE_TEXT_CONTRAST inside them.

    ``checked_looks`` carries the looks already found clean on earlier pages of the session:
    a look gets the same answer from the colour rules wherever it appears, so only new looks
    are checked again, and a colour-only run with no new look is not run at all. The looks
    of a clean run are added to it."""
    code = page.evaluate(CODE_TEXT_CONTRAST)
    checked = checked_looks if checked_looks is not None else set()
    new_looks = page.evaluate(MARK_ONE_TEXT_PER_LOOK, [SAMPLE_ATTRIBUTE, sorted(checked)])
    found = [] if options is COLOUR_RULES and not new_looks else blocking_violations(page, options)
    if code:
        found.append(f"code text contrast ({len(code)} elements): {code[:3]}")
    if not found:
        checked.update(new_looks)
    return found


SAMPLING_SPECIMEN = """<!doctype html><html lang="en"><title>t</title><body>
<main><h1>Specimen</h1>{rows}<p class="pale" style="color:#bbb">Pale text, once.</p>
<div style="background:#333"><span class="dim" style="color:#444">Dark on dark</span></div>
</main>"""


def test_a_text_styled_apart_is_found_among_many(visit):
    """The sampled colour check finds each text whose look is its own (a pale paragraph, a
    dark span on a dark box) among a thousand ordinary ones, and samples few of those."""
    rows = "".join(f"<p>Text {k}, <a href='#{k}'>a link</a>.</p>" for k in range(500))
    visit.page.set_content(SAMPLING_SPECIMEN.format(rows=rows))
    found = colour_violations(visit.page)
    assert len(found) == 1 and "color-contrast" in found[0], found
    assert "pale" in found[0] and "span" in found[0], found
    marked = visit.page.evaluate(f"document.querySelectorAll('[{SAMPLE_ATTRIBUTE}]').length")
    assert marked < 10, f"{marked} texts sampled of about 1,000 styled alike"


def test_a_small_text_is_checked_apart_from_a_large_one_of_its_colour(visit):
    """The contrast rule asks large text for 3:1 and other text for 4.5:1: #888 on white
    (3.5:1) passes as a heading and fails as a paragraph, which the look tells apart."""
    plain = "<!doctype html><html lang='en'><title>t</title><main>{}</main>"
    body = "<h1 style='color:#888'>Large</h1><div><div><p style='color:#888'>Small</p></div></div>"
    visit.page.set_content(plain.format(body))
    found = colour_violations(visit.page)
    assert len(found) == 1 and "color-contrast" in found[0] and "p" in found[0], found


COUNT_AXE_RUNS = """() => {
  window.axeRuns = 0;
  const run = axe.run.bind(axe);
  axe.run = (...args) => { window.axeRuns += 1; return run(...args); };
}"""


def test_a_look_checked_on_an_earlier_page_is_not_checked_again_but_a_new_one_is(visit):
    checked: set[str] = set()
    plain = "<!doctype html><html lang='en'><title>t</title><main><h1>A</h1>{}</main>"
    visit.page.set_content(plain.format("<p>Plain text, <a href='#x'>a link</a>.</p>"))
    assert colour_violations(visit.page, checked_looks=checked) == [] and checked
    looks = set(checked)
    visit.page.set_content(plain.format("<p>Other text, <a href='#y'>another link</a>.</p>"))
    # The window, and axe in it, outlive set_content: count its runs from here on.
    visit.page.evaluate(COUNT_AXE_RUNS)
    assert colour_violations(visit.page, checked_looks=checked) == [] and checked == looks
    assert visit.page.evaluate("window.axeRuns") == 0
    pale = "<p>Text.</p><p style='color:#bbb'>Pale text.</p>"
    visit.page.set_content(plain.format(pale))
    found = colour_violations(visit.page, checked_looks=checked)
    assert len(found) == 1 and "color-contrast" in found[0], found
    assert visit.page.evaluate("window.axeRuns") == 1


def test_the_style_sheet_rule_is_left_out_of_a_run_of_every_rule(visit):
    """What EVERY_RULE relies on: a page locked to an orientation passes a run of every
    rule, and fails a run of css-orientation-lock, the one rule that reads style sheets."""
    locked = "@media (orientation: portrait) { html { transform: rotate(90deg) } }"
    visit.page.set_content(
        f"<!doctype html><html lang='en'><title>t</title><style>{locked}</style>"
        "<main><h1>Locked</h1></main>"
    )
    assert blocking_violations(visit.page) == []
    found = blocking_violations(visit.page, {"runOnly": ["css-orientation-lock"]})
    assert len(found) == 1 and found[0].startswith("css-orientation-lock"), found


# From one page, every page its navigation links to, and on: each page's HTML fetched and
# parsed by the browser (the navigation is in the HTML; nothing else needs to load). A page
# that does not answer 200 is an error, named.
NAVIGATION_CLOSURE = """async (start) => {
  const links = 'nav.md-nav a.md-nav__link[href], nav.md-tabs a[href]';
  const seen = new Set(), queue = [start];
  while (queue.length) {
    const path = queue.pop();
    if (seen.has(path)) continue;
    seen.add(path);
    const response = await fetch(path, {cache: 'no-store'});
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    const page = new URL(path, location.origin);
    const html = new DOMParser().parseFromString(await response.text(), 'text/html');
    for (const link of html.querySelectorAll(links)) {
      const url = new URL(link.getAttribute('href'), page);
      if (url.hostname === location.hostname) queue.push(url.pathname);
    }
  }
  return [...seen];
}"""


@pytest.mark.slow  # seconds long: run first in its group (tests/conftest.py)
def test_navigation_reaches_every_page(visit):
    """Every written page is reachable from the navigation. The results pages the build
    generates (benchmarks.results_pages) are outside it by design: a reader reaches them
    from the figure links of the claims, which tests/test_results_pages.py checks land."""
    visit.open("/", wait_until="domcontentloaded")
    seen = set(visit.page.evaluate(NAVIGATION_CLOSURE, "/"))
    written = set(PAGES) - set(GENERATED_PAGES)
    assert GENERATED_PAGES and written < set(PAGES)
    assert seen >= written, f"not reachable from the navigation: {written - seen}"


@pytest.mark.slow  # seconds long: run first in its group (tests/conftest.py)
def test_search_finds_input_signature_and_lands_on_the_section(visit):
    visit.open("/")
    visit.page.locator("input.md-search__input").click()
    visit.page.locator("input.md-search__input").press_sequentially("input_signature")
    visit.page.locator("li.md-search-result__item a").first.wait_for(timeout=15_000)
    visit.page.wait_for_timeout(300)  # results are replaced as the query completes
    # Results are grouped by page; the entries inside a group point at sections. The first
    # group is the Input signatures page; its sections may be folded under "more".
    group = visit.page.locator("li.md-search-result__item").first
    more = group.locator("details summary")
    if more.count():
        more.first.click()
    sections = group.locator("a[href*='#']:visible")
    assert sections.count() > 0, "no search result points at a section"
    href = sections.first.get_attribute("href")
    sections.first.click()
    visit.page.wait_for_load_state("networkidle")
    fragment = urlparse(visit.page.url).fragment
    assert fragment, f"search result {href} does not point at a section"
    target = visit.page.locator(f"[id='{fragment}']")
    assert target.count() == 1, f"{href}: no element with id {fragment!r}"
    assert target.is_visible()
    assert target.evaluate(SECTION_TEXT).count("input_signature"), f"{href}: wrong section"


# The text of the section a heading opens: what follows it up to the next heading.
SECTION_TEXT = """heading => {
  let text = heading.textContent, node = heading;
  for (let depth = 0; depth < 3 && node; depth++, node = node.parentElement) {
    for (let next = node.nextElementSibling; next; next = next.nextElementSibling) {
      if (/^H[1-6]$/.test(next.tagName) || next.querySelector("h1, h2, h3")) return text;
      text += next.textContent;
    }
  }
  return text;
}"""


def test_copy_button_copies_the_code(visit):
    visit.open("/guide/how-tracing-works/")
    block = visit.page.locator("div.language-python.highlight").first
    code = block.locator("code").evaluate("element => element.textContent")
    block.hover()
    block.locator("button[data-md-type='copy']").click()
    copied = visit.page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == code.strip()
    assert "import tensorflow as tf" in copied


def test_dark_mode_toggle_switches_the_scheme(visit):
    visit.open("/")

    def scheme() -> str:
        return visit.page.evaluate("document.body.getAttribute('data-md-color-scheme')")

    seen = {scheme()}
    for _ in range(3):  # auto -> light -> dark (or the order the palette defines)
        visit.page.locator("form[data-md-component='palette'] label:visible").first.click()
        seen.add(scheme())
    assert {"default", "slate"} <= seen, seen


def check_benchmark_plots_are_visible(path: str, page: Page) -> None:
    plots = page.locator(BENCHMARK_PLOTS)
    for index in range(plots.count()):
        plot = plots.nth(index)
        plot.scroll_into_view_if_needed()
        box = plot.bounding_box()
        # Plots load lazily: wait until this one is decoded, then read its real width.
        loaded = plot.evaluate("img => img.decode().then(() => img.naturalWidth > 0)")
        assert plot.is_visible() and loaded, f"{path}: plot {index} did not load"
        assert box and box["width"] > 0 and box["height"] > 0, f"{path}: plot {index} {box}"
        assert plot.get_attribute("alt"), f"{path}: plot {index} has no alt text"


# --- Reading on a wide screen and on a phone -------------------------------------------

WIDE, PHONE = 1400, 390
MIN_PLOT_TEXT_PX = 11
BENCHMARK_PLOTS = "article img[src*='assets/benchmarks/']"


def load_every_image(page: Page) -> None:
    """Plots load lazily: load them all, so that each has its real size. An image that
    fails to load is left to the plot checks, which name it."""
    page.evaluate(
        """() => Promise.all([...document.images].map(image => {
             image.loading = 'eager';
             return image.decode().catch(() => null);
           }))"""
    )


# Code blocks (Markdown and notebook cells) and table frames whose content is wider than
# their box, with what overflows.
OVERFLOWING = """() => {
  const boxes = [
    ...document.querySelectorAll('article pre > code, .jupyter-wrapper pre'),
    ...document.querySelectorAll('article .md-typeset__scrollwrap'),
  ];
  return boxes.filter(box => box.scrollWidth > box.clientWidth + 1).map(box => ({
    kind: box.matches('code, pre') ? 'code' : 'table',
    over: box.scrollWidth - box.clientWidth,
    text: box.textContent.trim().slice(0, 60),
  }));
}"""


def check_nothing_overflows_its_column(path: str, page: Page) -> None:
    overflowing = page.evaluate(OVERFLOWING)
    assert not overflowing, f"{path} at {WIDE} px: " + "\n".join(map(str, overflowing))


# For each code block that is wider than its box at this width: whether it scrolls inside
# itself, and whether its longest line, in the block's own font, is wider than the box.
# A block whose lines all fit but which still overflows is a layout fault, not long code.
CODE_OVERFLOW_CAUSES = """() => {
  const result = [];
  const boxes = document.querySelectorAll(
    'article pre > code, .jupyter-wrapper .highlight-ipynb pre, '
    + '.jupyter-wrapper .jp-OutputArea pre');
  for (const box of boxes) {
    if (box.scrollWidth <= box.clientWidth + 1) continue;
    const style = getComputedStyle(box);
    const probe = document.createElement('span');
    probe.style.whiteSpace = 'pre';
    probe.style.font = style.font;
    const longest = box.textContent.split('\\n')
      .reduce((a, b) => (b.length > a.length ? b : a), '');
    probe.textContent = longest;
    document.body.appendChild(probe);
    const lineWidth = probe.getBoundingClientRect().width;
    probe.remove();
    const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    result.push({
      scrolls: ['auto', 'scroll'].includes(style.overflowX),
      lineTooLong: lineWidth > room,
      text: longest.slice(0, 60),
    });
  }
  return result;
}"""

# Each table frame that scrolls: after scrolling it to the end, is the first column still
# at the frame's left edge; and, before scrolling, are its headline (bold) figures visible.
TABLE_PHONE_CHECKS = """() => [...document.querySelectorAll('article .md-typeset__scrollwrap')]
  .filter(wrap => wrap.scrollWidth > wrap.clientWidth + 1)
  .map(wrap => {
    const frame = wrap.getBoundingClientRect();
    wrap.scrollLeft = 0;
    const hidden = [...wrap.querySelectorAll('td strong')].filter(cell => {
      const box = cell.getBoundingClientRect();
      return box.left < frame.left - 1 || box.right > frame.right + 1;
    }).map(cell => cell.textContent);
    wrap.scrollLeft = wrap.scrollWidth;
    const first = wrap.querySelector('tbody tr td:first-child').getBoundingClientRect();
    const pinned = Math.abs(first.left - frame.left) <= 2;
    wrap.scrollLeft = 0;
    return {pinned, hidden, text: wrap.textContent.trim().slice(0, 40)};
  })"""


def check_page_reads_on_a_phone(path: str, page: Page) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{path} at {PHONE} px scrolls sideways: {width}"
    # Prose and plots fit the screen.
    outside = page.evaluate(
        """() => [...document.querySelectorAll('article p, article li, article img')]
          .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
          .map(e => e.outerHTML.slice(0, 80))"""
    )
    assert not outside, f"{path}: wider than the screen: {outside}"
    for block in page.evaluate(CODE_OVERFLOW_CAUSES):
        assert block["scrolls"], f"{path}: a code block overflows the page: {block}"
        assert block["lineTooLong"], f"{path}: a code block overflows with lines that fit: {block}"
    for table in page.evaluate(TABLE_PHONE_CHECKS):
        assert table["pinned"], f"{path}: a scrolling table loses its first column: {table}"
        assert not table["hidden"], f"{path}: headline figures out of view: {table}"


def check_shows_no_start_up_log_and_no_tag_chips(path: str, page: Page) -> None:
    text = page.locator("article").inner_text()
    for noise in ("absl::InitializeLog", "cuInit", "cpu_feature_guard", "hide-output"):
        assert noise not in text, f"{path} shows {noise!r}"
    assert page.locator(".celltoolbar, .tags_button_container").count() == 0


def check_loads_with_a_title_and_accessibly(path: str, page: Page, checked: set[str]) -> None:
    heading = page.locator("article h1").first
    assert heading.is_visible() and heading.inner_text().strip(), f"{path}: no visible title"
    assert page.title().endswith("TensorFlow Retracing Guide"), page.title()
    violations = colour_violations(page, EVERY_RULE, checked)  # every rule, in one run
    assert not violations, f"{path}: accessibility violations:\n" + "\n".join(violations)


# The theme fades colours in over a quarter of a second: waiting for the fades cost this
# machine about 0.5 s and 0.15 CPU-s a page. The checks read the colours once settled,
# which are the same with the fades skipped.
NO_FADES = "*, *::before, *::after { transition: none !important; animation: none !important }"


def switch_to_the_dark_scheme(page: Page) -> None:
    """The system's scheme turned dark, as the site sees it once its colours have settled."""
    page.add_style_tag(content=NO_FADES)
    page.emulate_media(color_scheme="dark")
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'", timeout=5_000)
    # Measured mid-fade, a tab's text is neither scheme's: none may still be running.
    page.wait_for_function(
        "document.getAnimations().every(a => a.playState !== 'running')", timeout=5_000
    )


def check_accessible_in_the_dark_scheme(path: str, page: Page, checked: set[str]) -> None:
    violations = colour_violations(page, checked_looks=checked)
    assert not violations, f"{path} (dark): accessibility violations:\n" + "\n".join(violations)


def smallest_text_px(svg: str, shown_width: float) -> float:
    """The smallest text of a Matplotlib SVG, in CSS pixels, when it is drawn
    ``shown_width`` pixels wide. Matplotlib draws glyphs as paths scaled by
    ``scale(size/100)`` in the units of the viewBox."""
    import re

    view_box_width = float(re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+)', svg)[1])
    sizes = [100 * float(s) for s in re.findall(r"scale\(([\d.]+) -[\d.]+\)", svg)]
    assert sizes, "no text found in the plot"
    return min(sizes) * shown_width / view_box_width


PLOTS = f"{BENCHMARK_PLOTS}, .jupyter-wrapper .jp-OutputArea-output img"
# The pages that must show plots (so that the plot checks cannot pass on none).
PAGES_WITH_PLOTS = {
    "/benchmarks/calls-and-inputs/",
    "/benchmarks/serving-and-memory/",
    "/notebooks/diagnose-serving-loop/",
    "/notebooks/dynamic-shapes-lab/",
}


def check_plot_text_is_readable(path: str, page: Page) -> None:
    import base64
    from urllib.parse import unquote

    plots = page.locator(PLOTS)
    if path in PAGES_WITH_PLOTS:
        assert plots.count() > 0, f"{path}: no plot"
    for index in range(plots.count()):
        plot = plots.nth(index)
        plot.scroll_into_view_if_needed()
        plot.evaluate("img => img.decode()")
        src = plot.evaluate("img => img.src")
        if src.startswith("data:image/svg+xml;base64,"):
            svg = base64.b64decode(src.split(",", 1)[1]).decode()
        elif src.startswith("data:image/svg+xml"):
            svg = unquote(src.split(",", 1)[1])
        else:
            svg = page.request.get(src).text()
        shown = plot.bounding_box()["width"]
        size = smallest_text_px(svg, shown)
        assert size >= MIN_PLOT_TEXT_PX, f"{path}: plot {index} text is {size:.1f} px"
        assert plot.get_attribute("alt") and "No description" not in plot.get_attribute("alt")


# A page is at most this many screens high at 1400 x 900: a longer page keeps its main
# path and moves its detail (tables, reference sections, case lists) to pages one click away.
MAX_SCREENS = 12
SCREEN_HEIGHT = 900


def check_page_is_at_most_max_screens(path: str, page: Page) -> None:
    screens = page.evaluate("document.documentElement.scrollHeight") / SCREEN_HEIGHT
    assert screens <= MAX_SCREENS, (
        f"{path} is {screens:.1f} screens at {WIDE} x {SCREEN_HEIGHT}, more than "
        f"{MAX_SCREENS}: move its detail to pages linked from it"
    )


@pytest.mark.parametrize("path", page_params())
def test_page_in_the_browser(path, reading_tab, subtests):
    """Every page as readers meet it: offline, titled and accessible; at most 12 screens
    high and nothing wider than its column at 1400 px, its plots loaded and no log noise;
    readable on a 390 px phone, plot text included; accessible in the dark scheme, where a
    pinned table column takes the page's background at both widths.

    The page is loaded once (about 0.8 CPU-s on this machine in the reused tab) and then
    changed as a reader changes it: the window narrowed to a phone's width, the system's
    colour scheme switched to dark, which the site follows while open.
    """
    check_page_in_the_browser(path, reading_tab, subtests)


def test_every_page_of_a_template_is_a_page_of_the_per_page_checks():
    """So that the scheduled run checks each of them (and make test the longest)."""
    for template, pages in ONE_TEMPLATE.items():
        assert len(pages) >= 2, template
        assert set(pages) <= set(PAGES), template
    assert "/versions/" not in ONE_TEMPLATE["version setups"]  # the index is no setup page


@pytest.mark.slow  # seconds long: run first in its group (tests/conftest.py)
@pytest.mark.parametrize("template", list(ONE_TEMPLATE))
def test_the_longest_page_of_each_template_in_the_browser(
    template, built_site, reading_tab, subtests
):
    """The per-page checks on the longest page of each template, in make test; the
    scheduled run checks every page of it."""
    check_page_in_the_browser(
        longest_page(built_site, ONE_TEMPLATE[template]), reading_tab, subtests
    )


def check_page_in_the_browser(path: str, tab: PageVisit, subtests) -> None:
    tab.start_again()
    # At "load" the page's own scripts have run; its images are awaited explicitly, and
    # what it still fetches afterwards (the search index) is awaited before the offline
    # check at the end, so no idle half-second is spent on each of the waits in between.
    tab.open(path, wait_until="load")
    load_every_image(tab.page)
    with subtests.test(f"at most {MAX_SCREENS} screens at {WIDE} x {SCREEN_HEIGHT}"):
        check_page_is_at_most_max_screens(path, tab.page)
    with subtests.test("loads with a title and accessibly"):
        check_loads_with_a_title_and_accessibly(path, tab.page, tab.checked_looks)
    with subtests.test(f"nothing overflows its column at {WIDE} px"):
        check_nothing_overflows_its_column(path, tab.page)
    with subtests.test("benchmark plots load, with alt text"):
        check_benchmark_plots_are_visible(path, tab.page)
    with subtests.test("no start-up log and no notebook tag chips"):
        check_shows_no_start_up_log_and_no_tag_chips(path, tab.page)
    tab.page.set_viewport_size({"width": PHONE, "height": SCREEN_HEIGHT})
    with subtests.test(f"reads on a {PHONE} px phone"):
        check_page_reads_on_a_phone(path, tab.page)
    with subtests.test(f"plot text readable at {PHONE} px"):
        check_plot_text_is_readable(path, tab.page)
    # Wide again before the scheme changes: in the one run (under load) that switched it at a
    # phone's width and widened the page after, a page's code text was read in the dark
    # colour on the light background.
    tab.page.set_viewport_size({"width": WIDE, "height": SCREEN_HEIGHT})
    switch_to_the_dark_scheme(tab.page)
    with subtests.test("accessible in the dark scheme"):
        check_accessible_in_the_dark_scheme(path, tab.page, tab.checked_looks)
    for width in (WIDE, PHONE):
        tab.page.set_viewport_size({"width": width, "height": SCREEN_HEIGHT})
        with subtests.test(f"pinned table columns take the dark background at {width} px"):
            check_pinned_column_takes_the_page_background(path, tab.page, width)
    with subtests.test("offline and without errors throughout"):
        tab.page.wait_for_load_state("networkidle")
        assert not tab.outside_requests(), f"{path}: requests left 127.0.0.1"
        assert not tab.errors, f"{path}: " + "\n".join(tab.errors)


@pytest.mark.slow  # seconds long: run first in its group (tests/conftest.py)
@pytest.mark.parametrize("path", ["/", "/guide/retracing-warning/"])
def test_home_and_warning_page_link_to_diagnosing(path, visit):
    visit.open(path)
    links = visit.page.locator("article a[href*='diagnosing/']")
    assert links.count() > 0, f"{path} has no link to Diagnosing retracing"
    links.first.click()
    visit.page.wait_for_load_state("networkidle")
    assert urlparse(visit.page.url).path.endswith("/guide/diagnosing/")


# Symptom queries from real reports and the messages users paste, each with the page that
# answers it (tests/fixtures/search/queries.toml); the misses are named. These are the
# queries the search was once tuned on (headings and boosts chosen while looking at their
# misses), where it reached 90 %; the machinery that now does better on queries nobody
# tuned on (verification/search_heldout_results.json, issue 51) puts 73 of these 84 first.
# SEARCH_FLOOR guards that figure against regressions; it is not the goal, which is 90 %
# on the held-out queries and is not met.
SEARCH_QUERIES = Path(__file__).parent / "fixtures" / "search" / "queries.toml"
SEARCH_FLOOR = 73 / 84
MIN_SEARCH_QUERIES = 40


def search_queries() -> list[dict]:
    import tomllib

    queries = tomllib.loads(SEARCH_QUERIES.read_text(encoding="utf-8"))["query"]
    for query in queries:
        assert {"text", "page", "source"} <= query.keys(), query
        assert query["source"].startswith("https://github.com/"), query
    return queries


def first_result(page: Page, query: str, expected: str) -> str | None:
    """The path of the first search result for ``query``, typed into the real search box:
    as soon as it is ``expected``, or what it is once the results have settled."""
    box = page.locator("input.md-search__input")
    results = page.locator("li.md-search-result__item > a")
    box.fill("")
    results.first.wait_for(state="detached", timeout=15_000)
    box.fill(query)
    box.dispatch_event("keyup")  # the theme searches on the keys a reader types
    try:
        results.first.wait_for(timeout=15_000)
    except PlaywrightTimeout:
        return None
    for _ in range(6):  # results are replaced as the query completes
        found = urlparse(results.first.get_attribute("href")).path
        if found.endswith(expected):
            return found
        page.wait_for_timeout(100)
    return urlparse(results.first.get_attribute("href")).path


def test_search_puts_the_answering_page_first_for_symptom_queries(built_site):
    """Ranked by the search worker the built site's pages name, run under Node
    (verification.search_rank), which answers as the search box does:
    test_the_search_box_answers_as_the_worker_under_node checks that on a sample."""
    queries = search_queries()
    assert len(queries) >= MIN_SEARCH_QUERIES
    for path in {query["page"] for query in queries}:  # every expected page exists
        assert (built_site / path.strip("/") / "index.html").is_file(), path
    firsts = rank(built_site, [query["text"] for query in queries], top=1)
    misses = []
    for query, first in zip(queries, firsts, strict=True):
        found = "/" + first[0]["page"] if first else None
        if found is None or not found.endswith(query["page"]):
            misses.append(f"{query['text']!r}: first is {found}, not {query['page']}")
    top1 = 1 - len(misses) / len(queries)
    print(f"search: answering page first for {top1:.0%} of {len(queries)} queries")
    assert top1 >= SEARCH_FLOOR, f"{top1:.0%} first; misses:\n" + "\n".join(misses)


# Every SEARCH_SAMPLE_STRIDE-th query, typed into the real search box (about 0.25 CPU-s each
# in the browser, against a few milliseconds under Node for all of them).
SEARCH_SAMPLE_STRIDE = 8


@pytest.mark.slow  # seconds long: run first in its group (tests/conftest.py)
def test_the_search_box_answers_as_the_worker_under_node(visit, built_site):
    sample = [query["text"] for query in search_queries()[::SEARCH_SAMPLE_STRIDE]]
    expected = ["/" + first[0]["page"] if first else None for first in rank(built_site, sample, 1)]
    visit.open("/")  # one page and one search index for every query
    visit.page.locator("input.md-search__input").click()
    for text, node_first in zip(sample, expected, strict=True):
        found = first_result(visit.page, text, node_first or "")
        assert found == node_first, f"{text!r}: the search box put {found} first, Node {node_first}"


def test_search_index_holds_no_copy_button_text_or_start_up_log(built_site):
    import json

    index = json.loads((built_site / "search" / "search_index.json").read_text("utf-8"))
    for doc in index["docs"]:
        for noise in ("Copied!", "absl::InitializeLog", "cuInit"):
            assert noise not in doc["text"], f"{doc['location']}: {noise!r} is in the index"


# --- Tables with a pinned first column, in the dark scheme ------------------------------

# For each table whose first column is pinned (position: sticky): the page's background,
# and each first-column cell whose computed background differs from it. A pinned cell
# must be opaque and the colour of the page, or the columns scrolled under it show through
# (transparent) or it stands out as a light bar on a dark page (a fixed light colour).
PINNED_CELLS_OFF_BACKGROUND = """() => {
  const page = getComputedStyle(document.body).backgroundColor;
  const cells = [...document.querySelectorAll(
    'article table:not([class]) tr > :first-child')]
    .filter(cell => getComputedStyle(cell).position === 'sticky');
  return {
    page,
    pinned: cells.length,
    off: cells.filter(cell => getComputedStyle(cell).backgroundColor !== page)
      .map(cell => [cell.textContent.trim().slice(0, 30), getComputedStyle(cell).backgroundColor]),
  };
}"""


# The pages whose tables have a pinned first column (so that the check cannot pass on none).
PAGES_WITH_PINNED_TABLES = {"/benchmarks/", "/versions/", "/guide/claims-checked/"}


def check_pinned_column_takes_the_page_background(path: str, page: Page, width: int) -> None:
    found = page.evaluate(PINNED_CELLS_OFF_BACKGROUND)
    if path in PAGES_WITH_PINNED_TABLES:
        assert found["pinned"] > 0, f"{path}: no table with a pinned first column"
    assert found["page"] not in {"rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"}, found["page"]
    off = found["off"][:5]
    assert not off, f"{path} (dark, {width} px): pinned cells {off}"


def test_the_explain_html_report_never_scrolls_sideways_on_a_phone(browser):
    """A long value in a retrace's message wraps instead of widening the page (the report
    of ``python -m tf_retracing.explain --html``; no site needed)."""
    from tf_retracing.html_report import render_html

    report = json.loads((FIXTURES / "explain" / "backticks-and-a-long-value.json").read_text())
    page = browser.new_page(viewport={"width": 360, "height": 640})
    try:
        page.set_content(render_html(report))
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
    finally:
        page.close()
    assert widths[0] <= widths[1]


def test_claim_numbers_are_tap_targets_and_a_figure_link_lands_on_its_figure(visit):
    """At a phone's width every claim number of Serving at scale is at least 24 x 24 px
    (WCAG 2.2 target size); a results-figure number opens the scenario's results page
    with its figure in view and highlighted."""
    visit.page.set_viewport_size({"width": PHONE, "height": 900})
    visit.open("/guide/serving-at-scale/")
    boxes = visit.page.evaluate(
        """() => [...document.querySelectorAll('sup.claim-ref a')].map(a => {
            const r = a.getBoundingClientRect();
            return [a.textContent, r.width, r.height, a.getAttribute('href')];
        })"""
    )
    assert len(boxes) >= 30
    small = [box for box in boxes if box[1] < 24 or box[2] < 24]
    assert not small, small[:5]
    figure = next(href for *_, href in boxes if "/benchmarks/results/" in href)
    visit.page.click(f'sup.claim-ref a[href="{figure}"]')
    visit.page.wait_for_load_state("load")
    anchor = figure.split("#")[1]
    assert visit.page.url.endswith(f"#{anchor}")
    target = visit.page.evaluate(
        """(id) => {
            const figure = document.getElementById(id);
            const r = figure.getBoundingClientRect();
            return [r.top, r.bottom, innerHeight, getComputedStyle(figure).outlineStyle,
                    document.documentElement.scrollWidth, innerWidth];
        }""",
        anchor,
    )
    top, bottom, height, outline, scroll_width, width = target
    assert top >= 0 and bottom <= height, target  # in view, below the header
    assert outline == "solid"  # highlighted as the reached figure
    assert scroll_width <= width  # no sideways scrolling on the phone
