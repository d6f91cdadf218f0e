"""Figure captions in every form and figures in every position, on generated PDFs (``tests/pdfgen.py``, fpdf2):
label forms, look-alike labels, side-by-side captions on one line, a teaser above the abstract, a full-width
figure at the top of a two-column page; and the renderer's limits (pixel cap, degenerate boxes)."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("fpdf")
pytest.importorskip("PIL")

from fpdf import FPDF  # noqa: E402

import pdfgen  # noqa: E402
from papernotes.intake.paper.figures import Figure, find_figures, render_picture  # noqa: E402
from papernotes.intake.paper.model import PaperError  # noqa: E402
from papernotes.intake.paper.picture import MAX_PIXELS  # noqa: E402

TOLERANCE = 4.0


@pytest.mark.parametrize("caption", ["Figure 1: Overview of the method.", "Figure 1. Overview of the method.",
                                     "Figure 1 Overview of the method", "Fig. 1. Overview of the method.",
                                     "FIGURE 1 Overview of the method."])
@pytest.mark.parametrize("kind", ["vector", "raster"])
def test_every_label_form_finds_figure_1(tmp_path: Path, caption: str, kind: str) -> None:
    paper = pdfgen.Paper("Labels", header="")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    paper.flow([pdfgen.Para(pdfgen.FILLER), pdfgen.Figure(caption, kind), pdfgen.Para(pdfgen.FILLER)], columns=2)
    pdf = paper.save(tmp_path / "p.pdf")
    figures, _ = find_figures(str(pdf), pdf.read_bytes())
    assert [(f.label, f.caption) for f in figures] == [("Figure 1", caption)]
    assert all(abs(a - b) <= TOLERANCE for a, b in zip(figures[0].bbox, paper.drawn[0].bbox)), figures[0].bbox


def test_look_alike_labels_are_not_figure_1_or_3(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Look-alikes", header="")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    paper.flow([pdfgen.Lines(("Figure A1: An appendix figure.", "Figure S1: A supplementary figure.",
                              "Figure 3a: A panel.")), pdfgen.Para(pdfgen.FILLER),
                pdfgen.Figure("Figure 2: The real one.", "vector"), pdfgen.Para(pdfgen.FILLER)], columns=1)
    pdf = paper.save(tmp_path / "p.pdf")
    figures, _ = find_figures(str(pdf), pdf.read_bytes())
    assert [f.label for f in figures] == ["Figure 2"]


def _page(path: Path, draw) -> Path:  # type: ignore[no-untyped-def]
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    draw(pdf)
    path.write_bytes(bytes(pdf.output()))
    return path


def _prose(pdf: FPDF, x: float, y: float, width: float, lines: int) -> None:
    words = (pdfgen.FILLER + " ") * 4
    for k in range(lines):
        line = ""
        for word in words.split()[k * 9:]:
            if pdf.get_string_width(f"{line} {word}") > width:
                break
            line = f"{line} {word}".strip()
        pdf.text(x, y + 12 * k, line)


def test_side_by_side_captions_on_one_line_are_both_found(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        pdf.set_fill_color(120, 160, 220)
        pdf.rect(70, 100, 200, 120, style="DF")  # fpdf2: top-left origin
        pdf.rect(330, 100, 200, 120, style="DF")
        pdf.set_font("Helvetica", "", 9)
        pdf.text(70, 240, "Figure 1. The left estimator's bias.")
        pdf.text(330, 240, "Figure 2. The right estimator's bias.")
        pdf.set_font("Helvetica", "", 10)
        _prose(pdf, 54, 270, 240, 20)
        _prose(pdf, 318, 270, 240, 20)

    pdf = _page(tmp_path / "p.pdf", draw)
    figures, _ = find_figures(str(pdf), pdf.read_bytes())
    assert [f.label for f in figures] == ["Figure 1", "Figure 2"]
    assert figures[0].caption == "Figure 1. The left estimator's bias."
    for got, x0 in zip(figures, (70, 330)):
        want = (x0, 792 - 220, x0 + 200, 792 - 100)
        assert all(abs(a - b) <= TOLERANCE for a, b in zip(got.bbox, want)), (got.bbox, want)


def test_a_teaser_above_the_abstract_and_a_full_width_figure_atop_two_columns(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        pdf.set_font("Helvetica", "B", 16)
        pdf.text(150, 80, "A Paper With a Teaser")
        pdf.set_font("Helvetica", "", 10)
        pdf.text(240, 100, "Ada Reader, Bob Parser")
        pdf.set_fill_color(200, 80, 60)
        pdf.rect(90, 120, 430, 150, style="DF")
        pdf.set_font("Helvetica", "B", 9)
        pdf.text(90, 290, "Figure 1")
        pdf.set_font("Helvetica", "", 9)
        pdf.text(90 + pdf.get_string_width("Figure 1 "), 290, "Our reader in one picture.")
        pdf.set_font("Helvetica", "B", 12)
        pdf.text(280, 320, "Abstract")
        pdf.set_font("Helvetica", "", 10)
        _prose(pdf, 90, 340, 430, 5)
        pdf.add_page()
        pdf.set_fill_color(60, 160, 80)
        pdf.rect(54, 72, 504, 180, style="DF")
        pdf.set_font("Helvetica", "", 9)
        pdf.text(200, 270, "Figure 2: A figure as wide as the page.")
        pdf.set_font("Helvetica", "", 10)
        _prose(pdf, 54, 300, 240, 30)
        _prose(pdf, 318, 300, 240, 30)

    pdf = _page(tmp_path / "p.pdf", draw)
    figures, _ = find_figures(str(pdf), pdf.read_bytes())
    assert [(f.label, f.page) for f in figures] == [("Figure 1", 1), ("Figure 2", 2)]
    assert figures[0].caption == "Figure 1 Our reader in one picture."  # a bold label, no punctuation
    for got, want in zip(figures, ((90, 792 - 270, 520, 792 - 120), (54, 792 - 252, 558, 792 - 72))):
        assert all(abs(a - b) <= TOLERANCE for a, b in zip(got.bbox, want)), (got.bbox, want)


def test_rendering_is_capped_and_degenerate_boxes_are_refused(tmp_path: Path) -> None:
    pdf, _ = pdfgen.figures_paper(tmp_path / "p.pdf")
    data = pdf.read_bytes()
    figures, _ = find_figures(str(pdf), data)
    huge = render_picture(data, figures[0], min_width=100_000)
    assert huge.width * huge.height <= MAX_PIXELS * 1.01
    assert abs(huge.width / huge.height - (figures[0].bbox[2] - figures[0].bbox[0])
               / (figures[0].bbox[3] - figures[0].bbox[1])) < 0.05  # the same shape, fewer pixels
    thin = Figure("figure", "Figure 9", 9, 1, (100.0, 100.0, 500.0, 100.7), "Figure 9: a rule.")
    with pytest.raises(PaperError) as caught:
        render_picture(data, thin, path="paper.pdf")
    assert str(caught.value).startswith("paper.pdf: page 1: Figure 9: ")
    gone = Figure("figure", "Figure 9", 9, 99, (100.0, 100.0, 500.0, 300.0), "Figure 9: elsewhere.")
    with pytest.raises(PaperError, match="page 99"):
        render_picture(data, gone, path="paper.pdf")
