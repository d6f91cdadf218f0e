"""The Cite box in real Chromium (Debian's, driven by Playwright): without JavaScript the BibTeX is text a
click selects whole and the copy button stays hidden; with it the button copies the entry to the clipboard.
Skipped when no system Chromium is installed."""
from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from chromium import needs_chromium

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium

NOTE = "ACL2024/llm_alignment/back_to_basics_revisiting_reinforce-style_optimization_for_learning_from_human/"


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


def test_without_javascript_a_click_selects_the_whole_entry(browser, served) -> None:  # type: ignore[no-untyped-def]
    url, _ = served
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(url + NOTE)
    assert not page.is_visible("button.copy-cite")
    page.click("pre.bibtex")
    selected = page.evaluate("() => window.getSelection().toString()")
    assert selected.startswith("@inproceedings{ahmadian2024back,") and selected.rstrip().endswith("}")
    # wrapped, never wider than the phone's page
    assert page.eval_on_selector("pre.bibtex", "e => e.scrollWidth <= e.clientWidth + 1")
    context.close()


def test_the_copy_button_copies_the_bibtex(browser, served) -> None:  # type: ignore[no-untyped-def]
    url, site = served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.rstrip("/"))
    page = context.new_page()
    page.goto(url + NOTE)
    button = page.locator("button.copy-cite")
    assert button.is_visible() and button.inner_text() == "复制 BibTeX"
    button.click()
    page.wait_for_function("() => document.querySelector('button.copy-cite').textContent === '已复制'")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.inner_text("pre.bibtex")
    assert copied.startswith("@inproceedings{ahmadian2024back,") and "eprint = {2402.14740}" in copied
    context.close()
