"""What a language model receives of a paper, through the real HTTP server (tests/llm_server.py): the abstract
once, no e-mails or affiliations, exponents kept, footnote marks apart from words, every caption listed.

The paper is generated with fpdf2 as LaTeX sets one: a byline with affiliations and e-mails, an exponent and
footnote marks in smaller raised type, and a table caption the reader finds only as a caption paragraph.
"""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdf")
fpdf = pytest.importorskip("fpdf")

from llm_server import LLMServer  # noqa: E402
from test_draft import llm_settings  # noqa: E402
from papernotes.corpus.frontmatter import dump  # noqa: E402
from papernotes.intake.draft import draft  # noqa: E402
from papernotes.intake.engines._paper import captions  # noqa: E402
from papernotes.intake.paper import Paragraph, PaperText, Section, read_paper  # noqa: E402
from papernotes.intake.paper.model import Figure  # noqa: E402

TITLE = "Raised Digits: A Generated Paper for the Prompt"
ABSTRACT = ("Language models read papers as plain text. We show that exponents and footnote marks survive the "
            "reading. Our reader keeps every caption of the paper.")


def _write(path: Path) -> Path:
    pdf = fpdf.FPDF(unit="pt", format="letter")
    pdf.add_page()
    y = 80.0

    def line(parts: list[tuple[str, bool]], size: float = 10, bold: bool = False, step: float = 14) -> None:
        nonlocal y
        x = 72.0
        for text, up in parts:
            pdf.set_font("Helvetica", "B" if bold else "", 0.7 * size if up else size)
            pdf.text(x, y - (0.36 * size if up else 0), text)
            x += pdf.get_string_width(text)
        y += step

    line([(TITLE, False)], 14, True, 24)
    line([("Ada Reader", False), ("1", True), ("  Bob Parser", False), ("2", True)])
    line([("1", True), ("Example University  ", False), ("2", True), ("Institute of Reading", False)])
    line([("ada@example.org  bob@example.org", False)], step=24)
    line([("Abstract", False)], bold=True)
    for text in ("Language models read papers as plain text. We show that exponents and footnote marks survive",
                 "the reading. Our reader keeps every caption of the paper."):
        line([(text, False)])
    y += 12
    line([("1 Introduction", False)], bold=True)
    line([("Training a large model takes 1.0 · 10", False), ("20", True), (" operations, and the optimizer", False)])
    line([("uses an epsilon of 10", False), ("-9", True), (" in every run we made for this paper", False), ("5", True),
          (".", False)], step=24)
    line([("2 Experiments", False)], bold=True)
    line([("We measure how much of the text survives the reading in three settings.", False)], step=20)
    line([("Table 3: Ablations of the reader on the generated papers.", False)], step=20)
    line([("The full reader keeps every exponent in all of the settings we tried.", False)])
    y = 720
    line([("5", True), ("We used the same seed in every run.", False)], size=8)
    path.write_bytes(bytes(pdf.output()))
    return path


def test_the_model_gets_the_abstract_once_no_byline_exponents_marks_and_every_caption(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    note = corpus / "ICLR2026" / "raised.md"
    note.parent.mkdir(parents=True)
    paper = read_paper(_write(note.with_suffix(".pdf")))
    assert any(c.startswith("Table 3:") for _, c in captions(paper))
    with LLMServer() as server:
        (corpus / "papernotes.toml").write_text('language = "en"\n[llm]\n' + "\n".join(
            f"{k} = {v!r}".replace("'", '"') for k, v in llm_settings(server).items()) + "\n")
        note.write_text("---\n" + dump({"title": TITLE, "venue": "ICLR2026", "status": "stub", "abstract": ABSTRACT})
                        + "---\n", encoding="utf-8")
        result = draft(corpus, lang="en")
    assert result.drafted == ("ICLR2026/raised.md",), result.failed
    assert server.requests  # the first is the draft request (a repair request may follow)
    text = server.requests[0].user_text
    assert "Full text of the paper:" in text and "## 1 Introduction [p. 1]" in text
    assert text.count("We show that exponents and footnote marks survive") == 1  # the prompt's own abstract only
    for byline in ("@example.org", "Example University", "Institute of Reading"):
        assert byline not in text, byline
    assert "1.0 · 10²⁰ operations" in text and "10⁻⁹ in every run" in text and "1020" not in text
    assert "⁵ We used the same seed" in text and "5We" not in text
    figures = text[text.index("## Figures and tables"):]
    assert "- [p. 1] Table 3: Ablations of the reader on the generated papers." in figures


def test_a_caption_the_reader_found_only_as_a_paragraph_is_listed_too() -> None:
    figure = Figure("figure", "Figure 1", 1, 2, (0.0, 0.0, 1.0, 1.0), "Figure 1: The router.")
    body = Section("4", "Experiments", 6, 1, (Paragraph("Table 3: Variations on the router.", 6),
                                               Paragraph("Table 3 shows that every part matters.", 6)))
    paper = PaperText("ab" * 32, 9, "T", (body,), (), False, "headings", figures=(figure,))
    assert captions(paper) == [(2, "Figure 1: The router."), (6, "Table 3: Variations on the router.")]
