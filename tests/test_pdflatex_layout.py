"""Reading stage on PDFs drawn the way pdflatex draws them (generated with fpdf2, so these run on any machine).

pdflatex splits a line into many short runs (math, superscripts, font changes), draws a table row as one run
whose cells are kerned apart, floats figures and tables to the top of the columns under a full-width title, and
spells OT1 accents as two glyphs. Each test here failed before the reader learnt that.
"""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")

import pdfgen  # noqa: E402
from papernotes.intake.paper import PaperText, read_paper  # noqa: E402
from papernotes.intake.paper.cleanup import clean_text  # noqa: E402
from papernotes.intake.paper.extract import Fragment, RawPage, extract_document  # noqa: E402
from papernotes.intake.paper.layout import find_gutter, reading_order  # noqa: E402
from papernotes.intake.results import results_table  # noqa: E402


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def latexish(tmp_path_factory: pytest.TempPathFactory) -> Path:
    paper = pdfgen.Paper("Gutter Networks: Reading Two-Column Papers in Order", pdflatex=True)
    paper.front("Ada Reader, Bob Parser", pdfgen.ABSTRACT)
    paper.flow(pdfgen.sample_blocks(), columns=2)
    return paper.save(tmp_path_factory.mktemp("latexish") / "paper.pdf")


@pytest.fixture(scope="module")
def latexish_paper(latexish: Path) -> PaperText:
    return read_paper(latexish)


def test_lines_in_short_runs_are_read_column_by_column(latexish: Path, latexish_paper: PaperText) -> None:
    page = extract_document(str(latexish), latexish.read_bytes()).pages[0]
    assert sorted(len(f.text) for f in page.fragments)[len(page.fragments) // 2] < 12  # the runs are short
    assert find_gutter(page) is not None
    text = flat(latexish_paper.text())
    assert pdfgen.INTRO in text and pdfgen.LIMITS in text  # each sentence whole: the columns do not interleave


def test_a_kerned_table_row_keeps_its_cells(latexish: Path, latexish_paper: PaperText) -> None:
    page = extract_document(str(latexish), latexish.read_bytes()).pages[0]
    assert {"PlainReader", "0.3925", "0.4410", "8.1"} <= {f.text for f in page.fragments}
    assert "PlainReader  0.3925  0.4410  8.1" in latexish_paper.text()
    table = results_table(latexish_paper, "Gutter Networks")
    assert table is not None and table.header == ("Method", "Hard", "Easy", "Latency")
    assert table.rows[-1] == ("Ours", "0.4642", "0.5131", "12.5")


def test_floats_over_the_abstract_are_not_authors(tmp_path: Path) -> None:
    pdf = pdfgen.front_page(tmp_path / "icml.pdf", ("Gutter Networks for", "Two-Column Papers"),
                            ("Ada Reader^{1}  Bob Parser^{2}", "Tom\u00b4as Ortega^{1}"), pdfgen.ABSTRACT,
                            affiliations=("^{1}Gutter University ^{2}Column Institute",), venue="ICML", columns=2,
                            floats=True)
    paper = read_paper(pdf)
    assert paper.authors == ("Ada Reader", "Bob Parser", "Tom\u00e1s Ortega")  # no table header, the accent on its a
    assert paper.abstract == pdfgen.ABSTRACT
    assert paper.venue_text.startswith("Proceedings of the 43rd International Conference on Machine Learning")


def test_a_short_right_column_is_still_a_column(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Short Columns")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    conclusion = ("Reading order is solved for two columns. Three columns and scanned pages remain, and so do pages "
                  "whose columns have different widths.")
    paper.flow([pdfgen.Heading("4", "Limitations"), *[pdfgen.Para(pdfgen.FILLER)] * 5, pdfgen.Para(pdfgen.LIMITS),
                pdfgen.ColumnBreak(), pdfgen.Heading("5", "Conclusion"), pdfgen.Para(conclusion)],
               columns=2, new_page=True)
    pdf = paper.save(tmp_path / "short.pdf")
    page = extract_document(str(pdf), pdf.read_bytes()).pages[1]
    assert find_gutter(page) is not None
    read = read_paper(pdf)
    assert pdfgen.LIMITS in flat(read.text())
    assert [p.text for s in read.sections if s.title == "Conclusion" for p in s.paragraphs] == [conclusion]


def test_table_rows_come_from_their_cells(tmp_path: Path) -> None:
    pdf, _ = pdfgen.figures_paper(tmp_path / "figures.pdf", pdflatex=True)
    paper = read_paper(pdf)
    assert [t.rows for t in paper.tables] == [pdfgen.RESULTS_ROWS]
    table = results_table(paper, "Gutter Networks")
    assert table is not None and table.header == pdfgen.RESULTS_ROWS[0] and table.rows == pdfgen.RESULTS_ROWS[1:]


def test_a_running_header_on_both_pages_of_a_short_paper_is_dropped(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Gutter Networks", header="Gutter Networks Preprint 2026")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    paper.flow(pdfgen.sample_blocks(), columns=2)
    pdf = paper.save(tmp_path / "two.pdf")
    read = read_paper(pdf)
    assert read.pages == 2 and "Preprint" not in read.text()


def test_a_centred_line_across_the_gutter_is_one_line(tmp_path: Path) -> None:
    pdf = pdfgen.front_page(tmp_path / "centred.pdf", ("Gutter Networks",), ("Ada Reader^{1}",), pdfgen.ABSTRACT,
                            affiliations=("^{1}Department of Reading, Gutter University of Column Studies",),
                            columns=2)
    page = extract_document(str(pdf), pdf.read_bytes()).pages[0]
    assert find_gutter(page) is not None
    line = [line for line in reading_order(page) if "Gutter University" in line.text]
    assert len(line) == 1 and line[0].column == 0 and "Department of Reading" in line[0].text


def test_accents_drawn_apart_go_back_on_their_letter() -> None:
    assert clean_text("Tom\u00b4as Ortega and J. M\u00a8uller") == "Tom\u00e1s Ortega and J. M\u00fcller"


def test_a_superscript_does_not_push_the_subscripts_off_their_line() -> None:
    """``a score s_{ij} = w^\\top x``: the raised ⊤ is met first (top to bottom), the lowered ij last."""
    frags = (Fragment("mean pooling and a score", 54.0, 257.4, 101.8, 10.0, False),
             Fragment(" s", 163.0, 257.4, 5.0, 10.0, False), Fragment("ij", 168.0, 255.9, 6.1, 7.0, False),
             Fragment(" = w", 175.0, 257.4, 18.0, 10.0, False), Fragment("⊤", 193.0, 261.0, 6.0, 7.0, False),
             Fragment("x, where the gate", 200.0, 257.4, 70.0, 10.0, False),
             Fragment("is the GELU function.", 54.0, 245.4, 90.0, 10.0, False))
    lines = reading_order(RawPage(1, 612.0, 792.0, frags))
    assert [line.text for line in lines] == ["mean pooling and a score sij = w⊤x, where the gate", "is the GELU function."]


def test_labels_inside_a_figure_stay_out_of_the_text(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Figures With Labels", header="")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    paper.flow([pdfgen.Heading("1", "Introduction"), pdfgen.Para(pdfgen.INTRO),
                pdfgen.Figure(pdfgen.FIGURE_1, "vector", inside=("Gutter", "Bands", "Lines")),
                pdfgen.Para(pdfgen.LIMITS)], columns=1)
    pdf = paper.save(tmp_path / "labels.pdf")
    assert "Bands" in extract_document(str(pdf), pdf.read_bytes()).pages[0].fragments.__repr__()
    read = read_paper(pdf)
    assert [f.label for f in read.figures] == ["Figure 1"]
    text = read.text()
    assert "Bands" not in text and pdfgen.INTRO in flat(text) and pdfgen.LIMITS in flat(text)
    assert flat(pdfgen.FIGURE_1) in flat(text)  # the caption stays


def test_a_justified_sentence_end_is_not_a_cell_gap(tmp_path: Path) -> None:
    """Kerns of an em between sentences of a stretched line stay inside the run; a column's gap splits it."""
    pdf = pdfgen.FPDF(unit="pt", format="letter")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    words, x, cells = "The gate is trained. We keep the local block too.".split(), 54.0, []
    for word in words:
        cells.append((x, word))
        x += pdf.get_string_width(word) + (10.5 if word.endswith(".") else 5.2)  # a line TeX stretched hard
    pdfgen.kerned_row(pdf, cells, 100.0)
    pdfgen.kerned_row(pdf, [(54.0, "Dense"), (150.0, "92.4"), (200.0, "45.1")], 120.0)
    path = tmp_path / "kerns.pdf"
    path.write_bytes(bytes(pdf.output()))
    texts = [f.text.strip() for f in extract_document(str(path), path.read_bytes()).pages[0].fragments]
    assert texts == ["The gate is trained. We keep the local block too.", "Dense", "92.4", "45.1"]


def test_a_header_over_several_columns_names_them(tmp_path: Path) -> None:
    rows = (("Method", "4K", "32K", "Speed"), ("Dense", "91.0", "88.2", "1.0"), ("Ours", "90.7", "87.9", "3.1"))
    paper = pdfgen.Paper("Spanning Headers", header="")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    paper.flow([pdfgen.Heading("1", "Experiments"), pdfgen.Para(pdfgen.RESULTS),
                pdfgen.RuledTable(rows, "Table 1: Accuracy by context length.", spans=(("RULER", 1, 2),)),
                pdfgen.Para(pdfgen.LIMITS)], columns=1)
    read = read_paper(paper.save(tmp_path / "spans.pdf"))
    assert [t.rows for t in read.tables] == [(("Method", "RULER 4K", "RULER 32K", "Speed"), *rows[1:])]
    table = results_table(read, "Ours")
    assert table is not None and table.header == ("Method", "RULER 4K", "RULER 32K", "Speed")
