"""Tables fit a phone, in real Chromium (Debian's, driven by Playwright).

At 390 px, in every table of a page, no cell of numbers (``85.3``, ``0.8 / 50 / 0``, ``61.9 ± 0.3``…) spans two
lines and no number breaks inside a cell of words; the page itself never scrolls sideways: a wide table
scrolls inside its own box, a region named after its caption or ``表格 n`` / ``Table n`` that a keyboard can
focus and scroll. Checked on a drafted note with a wide results table (``drafted.py``), on a trend chart's data
table, and, when the reference snapshot is there, on the three imported reference notes with the most cells of
numbers. Screenshots at 1280 and 390 px, light and dark, go to ``PAPERNOTES_SCREENSHOTS`` when it is set.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from chromium import needs_chromium

from conftest import SHARED
from drafted import CAPTION, NOTE, NUMBER_CELLS, TABLES, drafted_site
from papernotes.migrate.tree import import_tree
from papernotes.site.build import build

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium

DOCS = Path(os.environ.get("PAPERNOTES_REFERENCE_DOCS") or SHARED / "corpus" / "paper-notes" / "docs")
PHONE = {"width": 390, "height": 844}

MEASURE = r"""() => {
  // A cell of numbers: once every number (with a unit glued to it) is taken out, only signs and spaces remain.
  const NUMBER = /\d[\d.,]*(?:e-?\d+)?(?:pp|ms|[kKMBGTsxh%×])?/g;
  const SIGNS = /^[\s.,%±+\-−–~≈<>≤≥/×()\[\]↑↓→*⚠$:]*$/;
  function lines(rects) {  // rectangles that do not overlap vertically are on different lines
    const boxes = [...rects].filter(r => r.width > 0 && r.height > 0).sort((a, b) => a.top - b.top);
    let n = 0, bottom = -Infinity;
    for (const r of boxes) { if (r.top >= bottom - 1) { n++; bottom = r.bottom; } else bottom = Math.max(bottom, r.bottom); }
    return n;
  }
  for (const d of document.querySelectorAll("details")) d.open = true;
  const cells = [...document.querySelectorAll("table td, table th")];
  const numbers = cells.filter(c => { const t = c.textContent.trim();
    return t.length <= 40 && /\d/.test(t) && SIGNS.test(t.replace(NUMBER, "")); });
  const wrapped = numbers.filter(c => { const r = document.createRange(); r.selectNodeContents(c);
    return lines(r.getClientRects()) !== 1; }).map(c => c.textContent.trim());
  let tokens = 0;
  const broken = [];
  for (const cell of cells) {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      for (const m of node.data.matchAll(/\d[\d.,]*\d|\d/g)) {
        tokens++;
        const r = document.createRange();
        r.setStart(node, m.index);
        r.setEnd(node, m.index + m[0].length);
        if (lines(r.getClientRects()) !== 1) broken.push(m[0]);
      }
    }
  }
  const boxes = [...document.querySelectorAll(".table-wrap")].map(b => ({
    role: b.tagName === "SECTION" ? "region" : b.getAttribute("role"), tabindex: b.getAttribute("tabindex"), label: b.getAttribute("aria-label"),
    attributes: b.getAttributeNames().sort(), scrolls: b.scrollWidth > b.clientWidth + 1}));
  return {tables: document.querySelectorAll("table").length, numbers: numbers.length, wrapped, tokens, broken,
          boxes, pageWidth: document.scrollingElement.scrollWidth, innerWidth};
}"""
"""What a page's tables look like: its cells of numbers, those on more than one line, the numbers broken across
lines anywhere in a table, its scrolling boxes, and how wide the page scrolls (``<details>`` opened first)."""


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def serve(site: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


@pytest.fixture(scope="module")
def drafted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    _, site = drafted_site(tmp_path_factory)
    server, base = serve(site)
    yield base, site
    server.shutdown()
    server.server_close()


def measure(browser, url: str) -> dict:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("load")
        return page.evaluate(MEASURE)
    finally:
        context.close()


def assert_fits(found: dict) -> None:
    assert found["wrapped"] == [], f"{len(found['wrapped'])} cells of numbers on more than one line"
    assert found["broken"] == [], f"{len(found['broken'])} of {found['tokens']} numbers broken across lines"
    assert found["pageWidth"] <= found["innerWidth"], "the page scrolls sideways"
    for box in found["boxes"]:
        assert box["role"] == "region" and box["tabindex"] == "0" and box["label"], box  # a named <section>


def test_a_wide_results_table_scrolls_in_its_box_and_no_number_wraps(browser, drafted) -> None:  # type: ignore[no-untyped-def]
    base, _ = drafted
    for edition, label in (("", "表格 1"), ("en/", "Table 1")):
        found = measure(browser, base + edition + NOTE + "/")
        assert found["tables"] == TABLES and found["numbers"] == NUMBER_CELLS, found
        assert found["tokens"] >= NUMBER_CELLS
        assert_fits(found)
        assert [b["label"] for b in found["boxes"]] == [label, CAPTION]
        assert found["boxes"][0]["scrolls"]  # the results table is wider than a phone
        # the page's own attributes only: the note's onfocus, role and tabindex were dropped by the allow-list
        assert all(b["attributes"] == ["aria-label", "class", "tabindex"] for b in found["boxes"])


def test_the_box_is_reached_and_scrolled_by_keyboard(browser, drafted) -> None:  # type: ignore[no-untyped-def]
    base, site = drafted
    html = (site / NOTE / "index.html").read_text(encoding="utf-8")
    assert html.count('tabindex="0"') == TABLES and "onfocus" not in html and "injected" not in html
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(base + NOTE + "/")
        box = page.locator(".table-wrap").first
        for _ in range(100):  # Tab from the top of the page until the box has the focus
            page.keyboard.press("Tab")
            if box.evaluate("b => document.activeElement === b"):
                break
        else:
            pytest.fail("Tab never reached the table's box")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("b => b.scrollLeft > 0", arg=box.element_handle())
    finally:
        context.close()


def test_a_trend_charts_data_table_fits_a_phone(browser, drafted) -> None:  # type: ignore[no-untyped-def]
    base, _ = drafted
    found = measure(browser, base + "domains/optimization/")
    assert found["tables"] >= 1 and found["numbers"] >= 4, found  # counts and shares of at least two venues
    assert_fits(found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
def test_screenshots_of_the_wide_table(browser, drafted, width: int, scheme: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base, _ = drafted
    context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(base + NOTE + "/")
        page.wait_for_load_state("load")
        page.locator(".table-wrap").first.scroll_into_view_if_needed()
        assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
        shots = Path(os.environ.get("PAPERNOTES_SCREENSHOTS") or tmp_path)
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / f"wide-table-{width}-{scheme}.png"))
    finally:
        context.close()


# ---------------------------------------------------------------- imported reference notes

_ROW = re.compile(r"^\|(.+)\|\s*$", re.M)
_NUMBERS_ONLY = re.compile(r"[\d.,%±+\-/×* ()~]*\d[\d.,%±+\-/×* ()~]*")


def number_cells(path: Path) -> int:
    """Cells of numbers in a note's Markdown tables, roughly (to pick the notes with the most)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return sum(1 for row in _ROW.findall(text) for cell in row.split("|") if _NUMBERS_ONLY.fullmatch(cell.strip()))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """The three reference notes with the most cells of numbers, imported (``import-mkdocs``) and built."""
    if not DOCS.is_dir():
        pytest.skip(f"reference snapshot not found at {DOCS} (set PAPERNOTES_REFERENCE_DOCS)")
    notes = sorted((p for p in DOCS.glob("*/*/*.md") if p.name.lower() != "index.md"), key=number_cells)[-3:]
    assert len(notes) == 3 and number_cells(notes[0]) >= 50
    base = tmp_path_factory.mktemp("reference-tables")
    for note in notes:  # a tree of only those notes, read from the snapshot at run time
        (base / "docs" / note.relative_to(DOCS)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(note, base / "docs" / note.relative_to(DOCS))
    import_tree(base / "docs", base / "corpus")
    result = build(base / "corpus", base / "site")
    assert not result.errors, result.errors
    server, url = serve(base / "site")
    yield url, [note.relative_to(DOCS).with_suffix("").as_posix() + "/" for note in notes]
    server.shutdown()
    server.server_close()


def test_imported_reference_notes_with_wide_tables_fit_a_phone(browser, reference) -> None:  # type: ignore[no-untyped-def]
    base, paths = reference
    assert len(paths) == 3
    for path in paths:
        found = measure(browser, base + path)
        assert found["tables"] >= 1 and found["numbers"] >= 50, (path, found["numbers"])
        assert_fits(found)
        assert any(box["scrolls"] for box in found["boxes"]), path
