"""Real Chromium on the hostile site: no payload of the notes runs, loads anything or navigates anywhere.

Every payload in ``tests/hostile`` marks itself if it runs (``window.__pwned``,
``document.title``, a dialog, a request to ``evil.invalid``). Each page is
loaded from a real HTTP server on loopback, then every element gets the events
a reader's mouse and keyboard would send; afterwards nothing may be marked.
Skipped when no system Chromium is installed; Playwright never downloads one.
"""
from __future__ import annotations

import html
import re
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from chromium import needs_chromium

import hostile_corpus
from hostile_corpus import D
from papernotes.site.build import build

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium

PAGES = [
    "", "ICML2024/", D, "ICLR2024/optimization/", "domains/", "domains/optimization/", "topics/",
    "topics/optimizer/", "topics/img_srcx_onerrorwindow_pwnedtopic/",
    "search/?q=summary", "search/?q=named", "404.html",
    D + "xss_body/", D + "xss_summary/", D + "markdown_subset/", D + "other_note/", D + "linked_in/",
    "ICLR2024/optimization/tldr_section/", D + "javascript:alert(1)<!--/", D + '"><img src=x onerror=window.__pwned=1>/',
]
EVENTS = ["mouseover", "mouseenter", "mousemove", "focus", "focusin", "toggle", "animationstart", "transitionend",
          "load", "error", "pointerdown", "keydown", "input", "change", "submit", "begin"]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    layout = hostile_corpus.make(tmp_path_factory.mktemp("hostile-browser"))
    build(layout.corpus, layout.site)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(layout.site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", layout.site
    server.shutdown()
    server.server_close()


class Watched:
    """A page with everything that would show a payload ran: dialogs, requests, navigations."""

    def __init__(self, browser, origin: str) -> None:  # type: ignore[no-untyped-def]
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.origin = origin
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("popup", lambda p: self.dialogs.append(f"popup {p.url}"))

    def stranger_requests(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(self.origin)]

    def close(self) -> None:
        self.context.close()


def _url(origin: str, path: str) -> str:
    return origin + quote(path, safe="/?=&")


def _expected_title(site: Path, path: str) -> str:
    file = site / (path.split("?")[0] or "index.html")
    if file.is_dir() or path.endswith("/") or not path:
        file = site / path.split("?")[0] / "index.html"
    return html.unescape(re.search(r"<title>(.*?)</title>", file.read_text(encoding="utf-8"), re.S).group(1))


@pytest.mark.parametrize("path", PAGES)
def test_no_payload_runs_on_the_page(browser, served, path: str) -> None:  # type: ignore[no-untyped-def]
    origin, site = served
    watched = Watched(browser, origin)
    page = watched.page
    try:
        response = page.goto(_url(origin, path), wait_until="networkidle")
        assert response is not None and response.ok, path
        if path.startswith("search/"):
            page.wait_for_selector("#results dt")
        page.evaluate("""events => { for (const el of document.querySelectorAll('body *')) {
            for (const type of events) el.dispatchEvent(new Event(type, {bubbles: false}));
            if (el.tagName === 'DETAILS') el.open = !el.open;
            if (typeof el.focus === 'function') el.focus();
        } }""", EVENTS)
        page.wait_for_timeout(300)
        assert page.evaluate("typeof window.__pwned") == "undefined", path
        assert page.title() == _expected_title(site, path) and "PWNED" not in page.title()
        assert watched.dialogs == [], watched.dialogs
        assert watched.stranger_requests() == [], watched.stranger_requests()
        assert page.url.startswith(origin)
        schemes = page.eval_on_selector_all("a[href]", "links => links.map(a => a.protocol)")
        assert set(schemes) <= {"http:", "https:", "mailto:"}, schemes
        # KaTeX draws formulas with MathML, SVG and inline styles of its own, the theme draws trend charts
        # in SVG: only the rest is the notes'
        assert page.eval_on_selector_all(
            "iframe, object, embed, frame, base, form:not(.topsearch):not(.search-form), svg, math, "
            "[style]:not(th):not(td)",
            "els => els.filter(e => !e.closest('.katex, figure.trend')).map(e => e.outerHTML.slice(0, 80))") == []
    finally:
        watched.close()


def test_the_link_to_a_note_named_javascript_opens_the_note(browser, served) -> None:  # type: ignore[no-untyped-def]
    origin, _ = served
    watched = Watched(browser, origin)
    page = watched.page
    try:
        page.goto(_url(origin, D), wait_until="networkidle")
        page.click("text=Named javascript:alert(1)")
        page.wait_for_selector("article.note")
        assert "Named javascript:alert(1)" in page.inner_text("h1")
        assert unquote(page.url) == origin + D + "javascript:alert(1)<!--/"
        assert page.evaluate("typeof window.__pwned") == "undefined" and watched.dialogs == []
    finally:
        watched.close()


def test_search_results_show_hostile_titles_as_text(browser, served) -> None:  # type: ignore[no-untyped-def]
    origin, _ = served
    watched = Watched(browser, origin)
    page = watched.page
    try:
        # tag-like text is not indexed (bodies may hold raw HTML), the words around it are
        page.goto(_url(origin, "search/?q=window+title"), wait_until="networkidle")
        page.wait_for_selector("#results dt")
        assert "<script>" in page.inner_text("#results")  # the title, shown as the text it is
        page.click("#results dt a:has-text('<script>')")
        page.wait_for_selector("article.note")
        assert page.evaluate("typeof window.__pwned") == "undefined" and watched.dialogs == []
        assert watched.stranger_requests() == []
    finally:
        watched.close()


def test_a_kept_alias_redirects_to_its_note(browser, served) -> None:  # type: ignore[no-untyped-def]
    origin, _ = served
    watched = Watched(browser, origin)
    page = watched.page
    try:
        for alias in ("old/place/", "旧/page/", "legacy/markdown-subset/"):
            page.goto(_url(origin, alias))
            page.wait_for_url(_url(origin, D + "markdown_subset/"))
            assert page.evaluate("typeof window.__pwned") == "undefined"
        assert watched.dialogs == [] and watched.stranger_requests() == []
    finally:
        watched.close()
