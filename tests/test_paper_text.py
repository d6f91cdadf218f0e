"""Reading stage, the characters: surrogate halves joined or dropped, superscripts kept apart, footnote marks split.

Generated PDFs (fpdf2): a mathematical 𝛽 (outside the BMP: pdfium gives it as two UTF-16 halves) in prose and in
a table cell; exponents and footnote marks set smaller and raised, as LaTeX sets them.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
fpdf = pytest.importorskip("fpdf")

from papernotes.cli import app  # noqa: E402
from papernotes.intake.paper import read_paper  # noqa: E402
from papernotes.intake.paper.cleanup import clean_text, separate_marks  # noqa: E402
from papernotes.intake.paper.model import well_formed  # noqa: E402

MATH_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf")
BETA = "\U0001d6fd"
runner = CliRunner()


def test_surrogate_pairs_are_joined_and_lone_halves_dropped() -> None:
    assert well_formed("a\ud835\udefdb") == f"a{BETA}b"
    assert well_formed("a\ud835b\udc00c") == "abc"
    assert clean_text("discount \ud835\udefe") == "discount \U0001d6fe"
    assert well_formed("plain") == "plain"


@pytest.mark.skipif(not MATH_FONT.is_file(), reason="DejaVu Serif Italic (fonts-dejavu) is not installed")
def test_a_table_cell_with_a_math_letter_reads_whole_and_writes_as_json(tmp_path: Path) -> None:
    pdf = fpdf.FPDF(unit="pt", format="letter")
    pdf.add_font("math", "", str(MATH_FONT))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.text(100, 80, "A Paper About Beta")
    pdf.set_font("math", "", 10)
    pdf.text(72, 150, f"The weight {BETA} is 0.25 in every run of the sweep we made.")
    y = 200
    for row in (("Setting", "A", "B", "C"), ("batch size", "128", "64", "32"), (BETA, "16", "4", "8")):
        for k, cell in enumerate(row):
            pdf.text(72 + k * 90, y, cell)
        y += 14
    pdf.text(72, y + 10, "Table 1: Hyperparameters of the runs.")
    path = tmp_path / "beta.pdf"
    path.write_bytes(bytes(pdf.output()))
    paper = read_paper(path)
    assert len(paper.tables) == 1
    assert (BETA, "16", "4", "8") in paper.tables[0].rows  # pdfium's two halves, joined
    assert f"weight {BETA} is" in paper.text()
    json.dumps(paper.to_dict(), ensure_ascii=False).encode("utf-8")  # raised UnicodeEncodeError before
    result = runner.invoke(app, ["read", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert BETA in json.loads(result.stdout)["tables"][0]["rows"][2][0]


def _raised_page(path: Path) -> Path:
    """Body text at 10 pt with 7 pt superscripts 3.6 pt up: an exponent, a negative one, footnote marks."""
    pdf = fpdf.FPDF(unit="pt", format="letter")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.text(72, 80, "Raised Digits in a Generated Paper")

    def line(y: float, parts: list[tuple[str, bool]]) -> None:
        x = 72.0
        for text, up in parts:
            pdf.set_font("Helvetica", "", 7 if up else 10)
            pdf.text(x, y - (3.6 if up else 0), text)
            x += pdf.get_string_width(text)

    line(150, [("Training took 1.0 · 10", False), ("20", True), (" floating point operations in all.", False)])
    line(164, [("We used the Adam optimizer with a tiny epsilon of 10", False), ("-9", True),
               (" and a warmup of 4000 steps.", False)])
    line(178, [("Quality drops with too many heads", False), ("5", True), (". We keep eight of them.", False)])
    line(700, [("5", True), ("We used values of 2.8, 3.7, 6.0 and 9.5 TFLOPS for the four GPUs.", False)])
    path.write_bytes(bytes(pdf.output()))
    return path


def test_exponents_and_footnote_marks_are_superscripts_apart_from_their_neighbours(tmp_path: Path) -> None:
    text = read_paper(_raised_page(tmp_path / "raised.pdf")).text()
    assert "1.0 · 10²⁰ floating" in text and "1020" not in text
    assert "epsilon of 10⁻⁹ and" in text
    assert "too many heads⁵. We keep" in text
    assert "⁵ We used values of 2.8" in text and "5We" not in text


def test_a_mark_before_a_word_is_split_off_and_nothing_else_moves() -> None:
    assert separate_marks("⁵We used") == "⁵ We used"
    assert separate_marks("⋆Core contribution; †Corresponding authors.") == "⋆ Core contribution; † Corresponding authors."
    for kept in ("heads⁴. To", "Vaswani∗", "O(n² ·d)", "10⁻⁹", "x*y"):
        assert separate_marks(kept) == kept
