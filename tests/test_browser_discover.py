"""Real Chromium (Debian's, via Playwright): related links, trend charts in light and dark, phone width.

Kept apart from test_browser.py (search) but built the same way: the examples served by
``papernotes serve``'s server on loopback; skipped when no system Chromium is installed.
"""
from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

import pytest
from chromium import needs_chromium

from conftest import EXAMPLES
from papernotes.site.serve import DevServer

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    base = tmp_path_factory.mktemp("browser-discover")
    shutil.copytree(EXAMPLES, base / "corpus")
    server = DevServer(base / "corpus", base / "site", port=0)
    server.start()
    yield server
    server.stop()


@pytest.fixture()
def page(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    yield page
    context.close()


def a_note(served: DevServer) -> str:
    path = sorted((served.site / "ICLR2024/model_compression").glob("*/index.html"))[0]
    return path.parent.relative_to(served.site).as_posix() + "/"


def test_related_links_lead_to_their_notes(page, served: DevServer) -> None:
    page.goto(served.url + a_note(served))
    links = page.eval_on_selector_all(".related-list a", "els => els.map(a => [a.href, a.textContent.trim()])")
    assert 0 < len(links) <= 5
    for href, title in links:
        response = page.goto(href)
        assert response is not None and response.status == 200, href
        assert page.inner_text("h1").strip() == title  # the page is the note the link names
        page.go_back()


def test_note_and_topic_pages_fit_a_phone(page, served: DevServer) -> None:
    for url in (a_note(served), "topics/llm/", "domains/optimization/", ""):
        page.goto(served.url + url)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, url
    page.goto(served.url + "topics/llm/")
    box = page.locator(".trend svg").bounding_box()
    assert box is not None and 0 < box["width"] <= 390 and box["height"] > 50


def chart_colours(page) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return page.evaluate("""() => {
        const bar = document.querySelector('.trend rect.bar'), label = document.querySelector('.trend text.value');
        return {bar: getComputedStyle(bar).fill, text: getComputedStyle(label).fill,
                background: getComputedStyle(document.body).backgroundColor};
    }""")


def test_the_chart_follows_the_light_and_dark_themes(page, served: DevServer) -> None:
    page.emulate_media(color_scheme="light")
    page.goto(served.url + "topics/llm/")
    light = chart_colours(page)
    page.emulate_media(color_scheme="dark")
    dark = chart_colours(page)
    assert light["bar"] != dark["bar"] and light["text"] != dark["text"]
    for colours in (light, dark):  # readable: neither bars nor numbers take the background's colour
        assert colours["bar"] != colours["background"] and colours["text"] != colours["background"]
        assert re.fullmatch(r"rgb\(\d+, \d+, \d+\)", colours["bar"])
    page.emulate_media(color_scheme="light")
    page.click(".theme-toggle")  # the site's own switch, not only the system's preference
    assert chart_colours(page)["bar"] == dark["bar"]
    page.screenshot(path=str(served.site.parent / "trend-dark.png"))
