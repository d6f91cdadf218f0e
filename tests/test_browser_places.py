"""A number's place in the paper in real Chromium (Debian's, through Playwright): shown on keyboard focus with
and without JavaScript, and on a tap, which does not follow the link until the second tap.

A generated paper drafted offline (``test_places.drafted_corpus``), built once; skipped without a system
Chromium. ``PAPERNOTES_SCREENSHOTS=DIR`` keeps screenshots of the focused number at each width and scheme.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from chromium import needs_chromium

from papernotes.corpus.frontmatter import update
from papernotes.site.build import build
from test_places import drafted_corpus, only_note

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium


@pytest.fixture(scope="module")
def note_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    base = tmp_path_factory.mktemp("browser-places")
    corpus = drafted_corpus(base)
    note = only_note(corpus)
    note.write_text(update(note.read_text(encoding="utf-8"), {"links": {"arxiv": "2401.01234"}}), encoding="utf-8")
    assert not build(corpus, base / "site", workers=1).errors
    (page,) = (base / "site").glob(f"ICLR2024/*/{note.stem}/index.html")
    return page.as_uri()


_AFTER = "el => getComputedStyle(el, '::after').content"


def _tab_to_number(page) -> str:  # type: ignore[no-untyped-def]
    """Press Tab until a number has the focus; its title."""
    for _ in range(80):
        page.keyboard.press("Tab")
        title = page.evaluate("() => document.activeElement.matches('.place') ? document.activeElement.title : ''")
        if title:
            return title
    raise AssertionError("no number took the keyboard focus")


@pytest.mark.parametrize("javascript", [True, False])
def test_keyboard_focus_shows_the_place(browser, note_url: str, javascript: bool) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, java_script_enabled=javascript)
    page = context.new_page()
    try:
        page.goto(note_url)
        first = page.locator(".place").first
        assert first.evaluate(_AFTER) == "none"  # nothing shown before
        title = _tab_to_number(page)
        assert title.startswith("p. ")
        focused = page.locator(":focus")
        assert focused.evaluate(_AFTER) == f'"{title}"'
        assert focused.get_attribute("href").startswith("https://arxiv.org/pdf/2401.01234#page=")
        if shots := os.environ.get("PAPERNOTES_SCREENSHOTS"):
            for scheme in ("light", "dark"):
                for width in (1280, 390):
                    page.emulate_media(color_scheme=scheme)
                    page.set_viewport_size({"width": width, "height": 800})
                    focused.scroll_into_view_if_needed()
                    focused.focus()
                    page.screenshot(path=str(Path(shots) / f"places-{width}-{scheme}-js{int(javascript)}.png"))
    finally:
        context.close()


def test_a_tap_shows_the_place_and_a_second_tap_follows_the_link(browser, note_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(note_url)
        number = page.locator("td .place").first
        number.scroll_into_view_if_needed()
        number.tap()
        assert page.url == note_url and number.evaluate("el => el.classList.contains('open')")
        assert number.evaluate(_AFTER).startswith('"p. ')
        page.locator("h1").tap()  # a tap elsewhere closes it
        assert not number.evaluate("el => el.classList.contains('open')")
        number.tap()
        with page.expect_request(lambda r: r.url.startswith("https://arxiv.org/pdf/2401.01234")) as sent:
            page.route("https://arxiv.org/**", lambda route: route.fulfill(status=200, body="%PDF-1.4"))
            number.tap()
        assert "#page=" in sent.value.url or sent.value.url.startswith("https://arxiv.org/pdf/2401.01234")
    finally:
        context.close()


AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"


@pytest.mark.parametrize("width", [1280, 390])
def test_a_page_of_placed_numbers_has_no_serious_axe_violation(browser, note_url: str, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(note_url)
        assert page.locator(".place").count() >= 10
        page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
        violations = page.evaluate("""() => axe.run(document, {resultTypes: ['violations']}).then(r =>
            r.violations.map(v => [v.id, v.impact, v.nodes.slice(0, 3).map(n => n.target.join(' '))]))""")
    finally:
        context.close()
    assert [v for v in violations if v[1] in ("serious", "critical")] == []
