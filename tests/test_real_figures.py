"""Figures and tables of real papers (``../shared/papers``, read by a person): Figure 1's and Table 1's pages
for every paper, and crops that hold a picture (not a rule, not a running header, not a caption's sliver).

Skipped when the folder is absent. No per-file numbers: every check is a rule that holds for any paper.
"""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")

from papertruth import PAPERS, load_truth  # noqa: E402
from papernotes.intake.paper.figures import find_figures  # noqa: E402

pytestmark = pytest.mark.skipif(not (PAPERS / "truth.json").is_file(), reason=f"{PAPERS} absent")


@pytest.fixture(scope="module")
def found() -> dict[str, tuple]:
    truths = load_truth(PAPERS / "truth.json")
    return {t["file"]: (t, *find_figures(t["file"], (PAPERS / t["file"]).read_bytes())) for t in truths}


def test_figure_1_and_table_1_are_on_the_pages_a_person_read(found: dict[str, tuple]) -> None:
    assert len(found) >= 16
    wrong = []
    for name, (truth, figures, tables) in found.items():
        fig1 = next((f for f in figures if f.label == "Figure 1"), None)
        if fig1 is None or fig1.page != truth["fig1_page"] or not fig1.located:
            wrong.append((name, "Figure 1", fig1 and (fig1.page, fig1.located), truth["fig1_page"]))
        table1 = next((t for t in tables if t.label == "Table 1"), None)
        if (table1.page if table1 is not None else None) != truth["first_table_page"]:
            wrong.append((name, "Table 1", table1 and table1.page, truth["first_table_page"]))
    assert not wrong


def test_captions_start_as_the_person_read_them(found: dict[str, tuple]) -> None:
    checked = 0
    for truth, figures, tables in found.values():
        for key, label, items in (("fig1_caption_start", "Figure 1", figures),
                                  ("first_table_caption_start", "Table 1", tables)):
            if truth.get(key):
                got = next(f for f in items if f.label == label)
                assert "".join(got.caption.split()).startswith("".join(truth[key].split())[:25]), (got, truth[key])
                checked += 1
    assert checked >= 16


def test_crops_hold_a_picture_and_nothing_of_the_page_around_it(found: dict[str, tuple]) -> None:
    """Every located box is a picture's: not a hairline, not the page; a figure's box stays clear of the running
    header (the page's topmost line of text) and of its own caption's first line."""
    boxes = 0
    for name, (truth, figures, tables) in found.items():
        for item in (*figures, *tables):
            if not item.located:
                continue
            boxes += 1
            x0, y0, x1, y1 = item.bbox
            assert x1 - x0 >= 12 and y1 - y0 >= 12, (name, item.label, item.bbox)  # no rule, no sliver
            assert (x1 - x0) * (y1 - y0) < 0.8 * 612 * 842, (name, item.label)  # not the page
    assert boxes >= 100


def test_no_figure_box_reaches_its_caption_or_the_running_header(found: dict[str, tuple]) -> None:
    """The caption's first line is outside its figure's box; a running header (the topmost line of text when
    several pages have the same one) and the rule under it are above every box."""
    import pypdfium2 as pdfium

    checked = headed = 0
    for name, (truth, figures, _) in found.items():
        doc = pdfium.PdfDocument((PAPERS / name).read_bytes())
        try:
            tops = []
            for page in doc:
                textpage = page.get_textpage()
                rects = [textpage.get_rect(i) for i in range(textpage.count_rects())]
                top = max(rects, key=lambda r: r[3]) if rects else None
                tops.append((" ".join(textpage.get_text_bounded(*top).split()), top) if top else ("", None))
            repeated = {text for text, _ in tops if text and sum(t == text for t, _ in tops) >= 3}
            for figure in figures:
                if not figure.located:
                    continue
                textpage = doc[figure.page - 1].get_textpage()
                word, number = figure.caption.split()[0], str(figure.number)
                caption, searcher = [], textpage.search(word, match_case=True)
                while (hit := searcher.get_next()) is not None:
                    after = textpage.get_text_range(hit[0] + len(word), 5).strip()
                    if after.startswith(number) and not after[len(number):len(number) + 1].isdigit():
                        caption.append(textpage.get_charbox(hit[0]))  # the label's first letter
                assert caption, (name, figure.label)
                x0, y0, x1, y1 = figure.bbox
                for r in caption:  # the caption's first line is outside the box
                    inside = x0 - 1 <= r[0] and r[2] <= x1 + 1 and y0 - 1 <= r[1] and r[3] <= y1 + 1
                    assert not inside, (name, figure.label, figure.bbox, r)
                text, top = tops[figure.page - 1]
                if text in repeated:
                    assert y1 < top[1] - 1.5, (name, figure.label, figure.bbox, text)
                    headed += 1
                checked += 1
        finally:
            doc.close()
    assert checked >= 60 and headed >= 10
