"""A note page's teaser figure in real Chromium (Debian's, through Playwright): visible on a desktop and a
phone, its box reserved before the image arrives (no layout shift), named as the page's ``og:image``.

The example corpus with a generated PDF beside one note (``tests/pdfgen.py``); skipped without a system
Chromium. ``PAPERNOTES_SCREENSHOTS=DIR`` keeps the screenshots taken at each width.
"""
from __future__ import annotations

import os
import re
import time
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import needs_chromium

from conftest import EXAMPLES
from papernotes.site.serve import DevServer
from pdfgen import ABSTRACT, FIGURE_1, Figure, Para, Paper, figures_paper

playwright = pytest.importorskip("playwright.sync_api")
pytest.importorskip("pypdfium2")
pytestmark = needs_chromium

NOTE = "ICML2024/optimization/galore_memory-efficient_llm_training_by_gradient_low-rank_projection"
TALL = "ICLR2024/optimization/large_language_models_as_optimizers"
"""A note whose paper's Figure 1 is a full page high."""
WIDTHS = {1280: 800, 390: 844}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    base = tmp_path_factory.mktemp("figures")
    shutil.copytree(EXAMPLES, base / "corpus", ignore=shutil.ignore_patterns(".papernotes"))
    figures_paper(base / "corpus" / f"{NOTE}.pdf")
    tall = Paper("A Tall Figure", header="")
    tall.front("Ada Reader", ABSTRACT)
    tall.flow([Figure("Figure 1: A figure as high as a page.", "raster", 560.0), Para("The end.")], columns=1,
              new_page=True)
    tall.save(base / "corpus" / f"{TALL}.pdf")
    server = DevServer(base / "corpus", base / "site", port=0)
    server.start()
    yield server
    server.stop()


_SHIFTS = """since => new Promise(done => {
  let total = 0;
  new PerformanceObserver(list => { for (const e of list.getEntries()) if (e.startTime >= since) total += e.value; })
    .observe({type: "layout-shift", buffered: true});
  setTimeout(() => done(total), 300);
})"""
"""Layout shift from ``since`` on: what the image's arrival moved. (Formulas above the teaser, typeset by KaTeX
after load, move it too; that is the formulas' shift, not the image's, and happens before it is released.)"""
_BOX = """() => { const r = document.querySelector("figure.teaser img").getBoundingClientRect();
  return [r.left, r.top + scrollY, r.width, r.height]; }"""


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_teaser_is_visible_reserved_and_the_og_image(browser, served: DevServer, width: int,
                                                         tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": width, "height": WIDTHS[width]})
    page = context.new_page()
    held: list = []  # the image's request, answered only once its box was measured
    page.route(re.compile(r".*/figure-1\.webp$"), lambda route: held.append(route))
    try:
        page.goto(served.url + NOTE + "/")
        page.wait_for_selector("figure.teaser img", state="attached")
        page.wait_for_function("document.readyState === 'complete' || document.readyState === 'interactive'")
        before = page.evaluate(_BOX)
        page.evaluate("document.querySelector('figure.teaser').scrollIntoView({block: 'center'})")
        deadline = time.monotonic() + 10
        while not held and time.monotonic() < deadline:  # until the route handler has the request
            page.wait_for_timeout(10)
        assert len(held) == 1, "the image was not asked for once it was in view"
        released = page.evaluate("performance.now()")
        held[0].continue_()
        page.wait_for_function("document.querySelector('figure.teaser img').complete")
        after = page.evaluate(_BOX)
        assert before[2:] == after[2:] and before[2] > 0 and before[3] > 0, (before, after)  # reserved, kept
        assert page.evaluate(_SHIFTS, released) == 0
        img = page.locator("figure.teaser img")
        assert img.evaluate("i => i.naturalWidth") >= 800
        assert img.is_visible() and img.evaluate("""i => { const r = i.getBoundingClientRect();
            return r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight; }""")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert img.get_attribute("alt") == FIGURE_1
        assert page.locator("figure.teaser figcaption").inner_text() == FIGURE_1
        og = page.locator('meta[property="og:image"]').get_attribute("content")
        assert og == f"https://example.org/papernotes/{NOTE}/figure-1.webp"
        shots = Path(os.environ.get("PAPERNOTES_SCREENSHOTS") or tmp_path)
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / f"note-figure-{width}.png"))
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_tall_figure_fits_the_screen_with_its_shape_on_white(browser, served: DevServer, scheme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(served.url + TALL + "/")
        img = page.locator("figure.teaser img")
        img.scroll_into_view_if_needed()
        page.wait_for_function("document.querySelector('figure.teaser img').complete")
        natural = img.evaluate("i => [i.naturalWidth, i.naturalHeight]")
        box = img.evaluate("i => { const r = i.getBoundingClientRect(); return [r.width, r.height]; }")
        assert natural[1] > natural[0] and natural[1] > 800  # a tall picture, taller than the screen
        assert 0 < box[1] <= 0.9 * 800, box  # about one screen high at most
        assert abs(box[0] / box[1] - natural[0] / natural[1]) < 0.02, (box, natural)  # not squashed
        assert img.evaluate("i => getComputedStyle(i).backgroundColor") == "rgb(255, 255, 255)"
    finally:
        context.close()
