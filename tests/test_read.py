"""Reading stage: generated PDFs (pdfgen) read into sections in reading order; damaged files give clear errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")

import pdfgen  # noqa: E402
from papernotes.cli import app  # noqa: E402
from papernotes.intake.paper import PaperError, PaperText, cache_dir, read_paper  # noqa: E402
from papernotes.intake.paper.cache import load as load_cached  # noqa: E402
from papernotes.intake.paper.cleanup import strip_base64  # noqa: E402
from papernotes.intake.paper.extract import Fragment, RawPage  # noqa: E402
from papernotes.intake.paper.layout import reading_order  # noqa: E402

runner = CliRunner()


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pdfgen.sample_paper(tmp_path_factory.mktemp("read") / "paper.pdf")


@pytest.fixture(scope="module")
def paper(sample: Path) -> PaperText:
    return read_paper(sample)


def section(paper: PaperText, heading: str) -> str:
    found = [s for s in (*paper.sections, *paper.appendix) if s.heading == heading]
    assert found, [s.heading for s in paper.sections]
    return "\n".join(p.text for p in found[0].paragraphs)


def test_two_columns_come_out_in_reading_order(sample: Path, paper: PaperText) -> None:
    from pypdf import PdfReader

    drawn = flat(PdfReader(str(sample)).pages[0].extract_text())
    assert pdfgen.INTRO not in drawn  # the drawing order interleaves the columns: the test means something
    assert pdfgen.INTRO in flat(section(paper, "1 Introduction"))
    assert pdfgen.LIMITS in flat(section(paper, "4 Limitations"))  # the right column, after the left one
    assert pdfgen.ABSTRACT in flat(paper.sections[0].paragraphs[-1].text)  # the full-width block stays first
    assert paper.title == "Gutter Networks: Reading Two-Column Papers in Order"


def test_sections_from_outline_and_from_numbered_headings(tmp_path: Path, paper: PaperText) -> None:
    expected = ["", "1 Introduction", "2 Method", "2.1 Band Splitting", "3 Experiments", "3.1 Ablations",
                "4 Limitations"]
    assert [s.heading for s in paper.sections] == expected
    assert paper.outline_source == "outline"
    assert [s.level for s in paper.sections] == [0, 1, 1, 2, 1, 2, 1]
    plain = read_paper(pdfgen.sample_paper(tmp_path / "plain.pdf", outline=False))
    assert plain.outline_source == "headings"
    assert [s.heading for s in plain.sections] == expected
    assert [s.heading for s in plain.appendix] == ["A Hyper-parameters"]


def test_single_column_pages_read_top_to_bottom(tmp_path: Path) -> None:
    paper = read_paper(pdfgen.sample_paper(tmp_path / "one.pdf", columns=1))
    assert pdfgen.INTRO in flat(section(paper, "1 Introduction"))
    assert pdfgen.METHOD in flat(section(paper, "2 Method"))


def test_table_rows_stay_on_one_line_with_numbers_verbatim(paper: PaperText) -> None:
    rows = [line for line in section(paper, "3 Experiments").split("\n") if line.startswith(("Ours", "PlainReader"))]
    assert [r.split() for r in rows] == [["PlainReader", "0.3925", "0.4410", "8.1"], ["Ours", "0.4642", "0.5131", "12.5"]]


def test_cleanup_joins_hyphens_drops_base64_headers_and_page_numbers(paper: PaperText) -> None:
    text = paper.text()
    assert "light-weight component that runs" in text  # a break joined, a real hyphen kept
    assert "compo-" not in text
    assert "iVBORw0KGgo" not in text and "bnVtYmVycw" not in text
    assert "Generated Paper 2026" not in text
    assert all(p.text.strip() not in {"1", "2", "3"} for _, p in paper.paragraphs())
    assert strip_base64("keeps deadbeefcafebabe0123456789abcdef0123456789abcdef hashes") .startswith("keeps dead")


def test_references_cut_and_appendix_apart_with_pages(paper: PaperText) -> None:
    assert paper.references_cut
    assert "A prior reader of papers" not in paper.text()
    assert "99.99" not in paper.text()
    assert [s.heading for s in paper.appendix] == ["A Hyper-parameters"]
    assert pdfgen.APPENDIX_TEXT in flat(section(paper, "A Hyper-parameters"))
    assert "0.15" not in paper.text(appendix=False)
    assert paper.appendix[0].paragraphs[0].page == 3
    assert section(paper, "1 Introduction") and paper.sections[1].paragraphs[0].page == 1


def test_layout_bands_around_a_full_width_block() -> None:
    """Two columns above and below a full-width table: band 1 left, right, the table, band 2 left, right."""
    frags = []
    for i in range(6):
        frags.append(Fragment(f"upper left line number {i} of prose", 50, 700 - 12 * i, 230, 10, False))
        frags.append(Fragment(f"upper right line number {i} of prose", 320, 700 - 12 * i, 230, 10, False))
    frags.append(Fragment("A wide table row that runs across both of the columns 1.0 2.0", 50, 600, 500, 10, False))
    for i in range(6):
        frags.append(Fragment(f"lower left line number {i} of prose", 50, 560 - 12 * i, 230, 10, False))
        frags.append(Fragment(f"lower right line number {i} of prose", 320, 560 - 12 * i, 230, 10, False))
    order = [line.text.split(" line")[0] for line in reading_order(RawPage(1, 612, 792, tuple(frags)))]
    assert order == ["upper left"] * 6 + ["upper right"] * 6 + ["A wide table row that runs across both of the columns 1.0 2.0"] \
        + ["lower left"] * 6 + ["lower right"] * 6


def test_a_centred_table_does_not_make_a_page_two_columns() -> None:
    frags = [Fragment("A single column of prose that runs across the whole width of the page.", 50, 700 - 12 * i,
                      500, 10, False) for i in range(8)]
    for i in range(8):
        frags += [Fragment(f"row{i}", 50, 500 - 12 * i, 30, 10, False), Fragment("0.5", 320, 500 - 12 * i, 15, 10, False)]
    lines = reading_order(RawPage(1, 612, 792, tuple(frags)))
    assert [line.text for line in lines[8:10]] == ["row0  0.5", "row1  0.5"]


@pytest.mark.parametrize("kind, make, message", [
    ("truncated", lambda data: pdfgen.truncated(data), "truncated PDF"),
    ("not-pdf", lambda data: pdfgen.NOT_PDF, "not a PDF (it starts with '<!DOCTYPE html>')"),
    ("not-pdf", lambda data: b"", "empty file"),
    ("encrypted", lambda data: pdfgen.encrypted(data), "encrypted PDF: it needs a password"),
])
def test_damaged_files_raise_paper_error(tmp_path: Path, sample: Path, kind: str, make, message: str) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(make(sample.read_bytes()))
    with pytest.raises(PaperError) as caught:
        read_paper(bad)
    assert caught.value.kind == kind
    assert message in caught.value.reason
    result = runner.invoke(app, ["read", str(bad)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{bad}: error: ")
    assert "Traceback" not in result.output + result.stderr


def test_scanned_pdf_has_no_text_layer(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Scanned")
    paper.scanned_page()
    paper.scanned_page()
    with pytest.raises(PaperError) as caught:
        read_paper(paper.save(tmp_path / "scan.pdf"))
    assert caught.value.kind == "no-text"
    assert "no text layer on any of its 2 page(s)" in caught.value.reason


def test_owner_password_only_is_readable_and_empty_pages_are_listed(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Mixed")
    paper.flow([pdfgen.Heading("1", "Introduction"), pdfgen.Para(pdfgen.INTRO)], columns=1)
    paper.scanned_page()
    data = pdfgen.encrypted(paper.render(), password="")
    (tmp_path / "mixed.pdf").write_bytes(data)
    read = read_paper(tmp_path / "mixed.pdf")
    assert pdfgen.INTRO in flat(read.text())
    assert read.empty_pages == (2,)


def test_cache_by_hash_under_the_corpus(tmp_path: Path, sample: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "ICML2026").mkdir(parents=True)
    (corpus / "papernotes.toml").write_text("", encoding="utf-8")
    pdf = corpus / "ICML2026" / "paper.pdf"
    pdf.write_bytes(sample.read_bytes())
    result = runner.invoke(app, ["read", str(pdf), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    stored = cache_dir(corpus) / data["sha256"][:2] / f"{data['sha256']}.json.gz"
    assert stored.is_file()
    cached = load_cached(cache_dir(corpus), data["sha256"])
    assert cached is not None and cached.to_dict() == data
    first = read_paper(pdf, cache_dir(corpus))
    assert first == cached
    stored.write_bytes(b"damaged")  # a damaged entry is read again, not trusted
    assert load_cached(cache_dir(corpus), data["sha256"]) is None
    assert read_paper(pdf, cache_dir(corpus)) == first
    assert load_cached(cache_dir(corpus), data["sha256"]) == first


def test_read_prints_sections_with_pages(sample: Path) -> None:
    result = runner.invoke(app, ["read", str(sample), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "sections from outline, references cut, 1 appendix section(s)" in result.stdout
    assert "## 3.1 Ablations  [p. 1]" in result.stdout
    assert "==== APPENDIX ====" in result.stdout
    assert "[p. 3] We list every hyper-parameter here." in result.stdout
    missing = runner.invoke(app, ["read", str(sample.parent / "nope.pdf")])
    assert missing.exit_code == 1 and "nope.pdf: error: file not found" in missing.stderr
