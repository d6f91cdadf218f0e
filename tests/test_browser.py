"""Real Chromium (Debian's, driven by Playwright): math, offline assets, phone layout, theme, search.

Skipped when no system Chromium is installed (``apt-get install chromium``);
Playwright never downloads a browser here.
"""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import needs_chromium

from conftest import EXAMPLES
from papernotes.site.serve import DevServer

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    base = tmp_path_factory.mktemp("browser")
    shutil.copytree(EXAMPLES, base / "corpus")
    server = DevServer(base / "corpus", base / "site", port=0)
    server.start()
    yield server
    server.stop()


@pytest.fixture()
def page(browser, served):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    page.requests = []
    page.on("request", lambda request: page.requests.append(request.url))
    yield page
    context.close()


def note_with_math(served: DevServer) -> str:
    for path in sorted((served.site / "ICML2024/optimization").glob("*/index.html")):
        if "math-display" in path.read_text(encoding="utf-8"):
            return path.parent.relative_to(served.site).as_posix() + "/"
    raise AssertionError("no note with display math in the examples")


def test_math_renders_offline_with_the_shipped_katex(page, served: DevServer, tmp_path: Path) -> None:
    page.goto(served.url + note_with_math(served))
    page.wait_for_function("""(() => { const all = [...document.querySelectorAll('.math')];
        return all.length > 0 && all.every(e => e.querySelector('.katex') || e.classList.contains('math-error')); })()""")
    total = page.eval_on_selector_all(".math", "els => els.length")
    rendered = page.eval_on_selector_all(".math .katex", "els => els.length")
    assert total > 3 and rendered == total
    assert page.eval_on_selector_all(".math-error", "els => els.length") == 0
    assert all(url.startswith(served.url) for url in page.requests), page.requests
    page.screenshot(path=str(tmp_path / "note.png"), full_page=False)


def test_broken_formula_shows_its_tex_source(page, served: DevServer) -> None:
    page.goto(served.url + "search/")
    page.set_content('<span class="math math-inline">\\(\\frac{a}{b}^^2\\)</span>')
    page.add_script_tag(url=served.url + "assets/katex/katex.min.js")
    page.add_script_tag(url=served.url + "assets/math.js")
    page.wait_for_selector(".math-error")
    assert "\\frac{a}{b}^^2" in page.inner_text(".math-error")


def test_phone_layout_has_no_horizontal_scroll(page, served: DevServer) -> None:
    for url in ("", "ICML2024/optimization/", note_with_math(served), "topics/", "search/?q=LLM"):
        page.goto(served.url + url)
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (url, width)


def test_dark_theme_toggle_is_remembered(page, served: DevServer) -> None:
    page.goto(served.url)
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.click(".theme-toggle")
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark" and dark != light
    page.goto(served.url + "ICML2024/")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"


def test_search_finds_chinese_and_english_and_filters_by_venue(page, served: DevServer) -> None:
    page.goto(served.url + "search/?q=GaLore")
    page.wait_for_selector("#results dt")
    assert "GaLore" in page.inner_text("#results")
    page.fill("#q", "量化")
    page.wait_for_selector('#results[data-done="量化"]', state="attached")  # the page's own "done" signal
    page.wait_for_function("document.querySelectorAll('#results dt').length > 1")
    every = page.eval_on_selector_all("#results dt", "els => els.length")
    page.select_option("#f-venue", "ICLR2024")
    page.wait_for_function(f"document.querySelectorAll('#results dt').length < {every}")
    assert "venue=ICLR2024" in page.url
    for where in page.eval_on_selector_all("#results .where", "els => els.map(e => e.textContent)"):
        assert "ICLR2024" in where
    page.click("#results dt a")
    page.wait_for_selector("article.note")


LORA = "ICML2024/optimization/lora_efficient_low_rank_adaptation_of_large_models/"


def test_the_language_switch_lands_on_the_same_paper(page, served: DevServer) -> None:
    page.goto(served.url + LORA)
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    page.click(".langswitch a[hreflang=en]")
    page.wait_for_url(served.url + "en/" + LORA)
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.inner_text("article.note h1").startswith("LoRA+")
    assert "TL;DR" in page.inner_text("article.note") and "Venue" in page.inner_text("article.note .meta")
    page.click(".langswitch a[hreflang=zh]")
    page.wait_for_url(served.url + LORA)
    assert "一句话总结" in page.inner_text("article.note")


def test_the_english_edition_searches_english_text_and_stays_english(page, served: DevServer) -> None:
    page.goto(served.url + "en/search/?q=learning%20rate")
    page.wait_for_selector("#results dt")
    assert page.inner_text("h1") == "Search"
    page.click("#results dt a")
    page.wait_for_selector("article.note")
    english = page.url
    assert english.startswith(served.url + "en/") and page.evaluate("document.documentElement.lang") == "en"
    page.click(".langswitch a[hreflang=zh]")
    page.wait_for_url(served.url + english.removeprefix(served.url + "en/"))
