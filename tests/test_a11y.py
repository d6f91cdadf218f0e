"""Accessibility and the phone layout of the built examples, in real Chromium (Debian's, driven by Playwright).

axe-core (vendored, tests/vendor/README.md) runs over every page kind of both editions at 1280 and 390 px and
finds no serious or critical violation; at 390 px the trend chart's labels are at least 11 px, a hot topic
and its count share a line, the breadcrumbs end with a link, and the search placeholders fit their boxes.
Highlights (the grounding line's numbers, ``⚠`` marks, search terms) pass axe in the light and the dark
scheme, asked for by the system or by the site's toggle, and the paper's figures keep their white background.
Skipped when no system Chromium is installed; Playwright never downloads a browser here.
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from chromium import needs_chromium

from drafted import NOTE, drafted_site

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
WIDTHS = (1280, 390)
EDITIONS = ("", "en/")
SETTLED = """() => {
  const results = document.querySelector('#results');
  if (results && !results.hasAttribute('data-done')) return false;
  return [...document.querySelectorAll('.math')].every(m => m.querySelector('.katex') || m.classList.contains('math-error'));
}"""
"""True once a page's script work is done: search results shown, every formula rendered (or kept as TeX)."""


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def served(example_site) -> Iterator[tuple[str, Path]]:  # type: ignore[no-untyped-def]
    site = example_site[0]
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/", site
    server.shutdown()
    server.server_close()


def page_kinds(site: Path) -> dict[str, str]:
    """One page of each kind (zh edition paths); the note is the one with the most boxes that may scroll."""
    def boxes(path: Path) -> int:
        text = path.read_text(encoding="utf-8")
        return sum(text.count(mark) for mark in ("<pre", "table-wrap", "math-display"))

    notes = sorted(site.glob("ICML2024/*/*/index.html")) + sorted(site.glob("NeurIPS2023/*/*/index.html"))
    note = max(notes, key=boxes).parent.relative_to(site).as_posix() + "/"
    topic = sorted(p.parent.name for p in site.glob("topics/*/index.html"))[0]
    kinds = {"home": "", "venue": "ICML2024/", "venue_domain": "ICML2024/optimization/", "note": note,
             "domains": "domains/", "domain": "domains/optimization/", "topics": "topics/",
             "topic": f"topics/{topic}/", "search": "search/?q=optimization", "404": "404.html"}
    for kind, url in kinds.items():
        assert (site / url.split("?")[0]).exists() or (site / url / "index.html").exists(), (kind, url)
    return kinds


def open_page(browser, width: int):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": width, "height": 900})
    return context, context.new_page()


def settle(page, url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_function(SETTLED)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_serious_or_critical_axe_violation_on_any_page_kind(browser, served, width: int) -> None:  # type: ignore[no-untyped-def]
    base, site = served
    axe = AXE.read_text(encoding="utf-8")
    found = []
    context, page = open_page(browser, width)
    try:
        for edition in EDITIONS:
            for kind, path in page_kinds(site).items():
                settle(page, base + edition + path)
                page.add_script_tag(content=axe)
                violations = page.evaluate("""() => axe.run(document, {resultTypes: ['violations']}).then(r =>
                    r.violations.map(v => [v.id, v.impact, v.nodes.slice(0, 3).map(n => n.target.join(' '))]))""")
                found += [f"{width}px {edition or 'zh/'}{kind}: {rule} ({impact}) {targets}"
                          for rule, impact, targets in violations if impact in ("serious", "critical")]
    finally:
        context.close()
    assert found == [], "\n".join(found)


def test_phone_layout_of_charts_topics_breadcrumbs_and_placeholders(browser, served) -> None:  # type: ignore[no-untyped-def]
    base, _ = served
    context, page = open_page(browser, 390)
    try:
        for edition in EDITIONS:
            settle(page, base + edition + "domains/optimization/")  # a trend chart
            sizes = page.eval_on_selector_all(".trend svg text", """texts => texts.map(t => {
                const svg = t.ownerSVGElement;
                return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            })""")
            assert sizes and min(sizes) >= 11, sizes
            lefts = page.eval_on_selector_all(".trend text.label", "ts => ts.map(t => t.getBoundingClientRect().left)")
            assert min(lefts) >= 0, lefts  # the first rotated label is not cut off

            settle(page, base + edition + "ICLR2024/")  # hot topics
            lines = page.eval_on_selector_all(".hot a", "links => links.map(a => [a.textContent, a.getClientRects().length])")
            assert len(lines) > 3 and all(n == 1 for _, n in lines), lines

            settle(page, base + edition + "ICLR2024/optimization/")  # two breadcrumbs
            last = page.eval_on_selector("nav.crumbs", "nav => [nav.lastElementChild.tagName, nav.textContent.trim()]")
            assert last[0] == "A" and not last[1].endswith("›"), last

            settle(page, base + edition + "search/")  # both search boxes
            fits = page.eval_on_selector_all(".topsearch input, #q", """inputs => inputs.map(input => {
                const style = getComputedStyle(input);
                const ctx = document.createElement('canvas').getContext('2d');
                ctx.font = [style.fontStyle, style.fontWeight, style.fontSize, style.fontFamily].join(' ');
                const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
                return [input.placeholder, ctx.measureText(input.placeholder).width, room];
            })""")
            assert len(fits) == 2 and all(width <= room for _, width, room in fits), fits
    finally:
        context.close()


SCHEMES = {"light": ("light", False), "dark": ("dark", False), "toggled dark": ("light", True),
           "toggled light": ("dark", True)}
"""Scheme -> (what the system prefers, whether the site's toggle is pressed once)."""


@pytest.fixture(scope="module")
def drafted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    _, site = drafted_site(tmp_path_factory)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_highlights_and_figures_read_in_both_colour_schemes(browser, drafted: str, scheme: str) -> None:  # type: ignore[no-untyped-def]
    prefers, toggle = SCHEMES[scheme]
    dark = scheme.endswith("dark")
    axe = AXE.read_text(encoding="utf-8")
    found = []
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=prefers)
    page = context.new_page()
    try:
        for path, marks in ((NOTE + "/", "mark"), ("en/" + NOTE + "/", "mark"), ("search/?q=LoRA", "#results mark"),
                            ("en/search/?q=LoRA", "#results mark")):
            settle(page, drafted + path)
            if toggle and not page.evaluate("document.documentElement.dataset.theme"):
                page.click(".theme-toggle")  # once: the next pages take the choice it stored
            assert page.evaluate("getComputedStyle(document.body).colorScheme") == ("dark" if dark else "light")
            assert page.locator(marks).count() >= 4, path  # highlights to read: grounding line, ⚠ marks, terms
            if "search" not in path:  # the paper's Figure 1 stays on white, whatever the scheme
                teaser = page.locator("figure.teaser img")
                assert teaser.count() == 1 and teaser.evaluate("i => getComputedStyle(i).backgroundColor") == "rgb(255, 255, 255)"
            page.add_script_tag(content=axe)
            violations = page.evaluate("""() => axe.run(document, {resultTypes: ['violations']}).then(r =>
                r.violations.map(v => [v.id, v.impact, v.nodes.length, v.nodes.slice(0, 3).map(n => n.target.join(' '))]))""")
            found += [f"{scheme} {path}: {rule} ({impact}) on {n} nodes {targets}"
                      for rule, impact, n, targets in violations if impact in ("serious", "critical")]
    finally:
        context.close()
    assert found == [], "\n".join(found)
