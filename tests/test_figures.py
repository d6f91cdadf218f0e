"""Reading stage, figures: figures and tables of generated PDFs found from their captions, rendered, listed by ``read``."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdfium2")
pytest.importorskip("fpdf")
PIL = pytest.importorskip("PIL.Image")

import pdfgen  # noqa: E402
from papernotes.cli import app  # noqa: E402
from papernotes.intake.paper import PaperError, PaperText, read_paper  # noqa: E402
from papernotes.intake.paper.cleanup import clean_text  # noqa: E402
from papernotes.intake.paper.vocab import caption_label  # noqa: E402
from papernotes.intake.paper.figures import Figure, find_figures, render_figure  # noqa: E402

runner = CliRunner()
TOLERANCE = 4.0
"""Points a found box may differ from the drawn one on each side (line widths, padding)."""


@pytest.fixture(scope="module", params=[2, 1], ids=["two-columns", "one-column"])
def drawn(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[pdfgen.Drawn]]:
    return pdfgen.figures_paper(tmp_path_factory.mktemp("figures") / "paper.pdf", columns=request.param)


@pytest.fixture(scope="module")
def paper(drawn: tuple[Path, list[pdfgen.Drawn]]) -> PaperText:
    return read_paper(drawn[0])


def test_figures_and_tables_are_found_from_their_captions(drawn: tuple[Path, list[pdfgen.Drawn]]) -> None:
    pdf, expected = drawn
    figures, tables = find_figures(str(pdf), pdf.read_bytes())
    assert [f.label for f in figures] == ["Figure 1", "Figure 2"]
    assert [t.label for t in tables] == ["Table 1"]  # "Table 1 reports …" and "As shown in Figure 1" are not captions
    assert [f.caption for f in (*figures, *tables)] == [pdfgen.FIGURE_1, pdfgen.FIGURE_2, pdfgen.TABLE_1]
    assert [(f.kind, f.number) for f in (*figures, *tables)] == [("figure", 1), ("figure", 2), ("table", 1)]
    assert len(expected) == 3
    for want in expected:
        got = next(f for f in (*figures, *tables) if f.label == want.label)
        assert got.page == want.page
        for side, (a, b) in enumerate(zip(got.bbox, want.bbox)):
            assert abs(a - b) <= TOLERANCE, (want.label, got.bbox, want.bbox, side)


def test_caption_labels_with_and_without_punctuation() -> None:
    assert caption_label("Figure 1: Overview.") == ("figure", 1, "Figure 1")
    assert caption_label("Figure 1 RL training requires rollouts") == ("figure", 1, "Figure 1")
    assert caption_label("Fig. 2. Loss curves") == ("figure", 2, "Figure 2")
    assert caption_label("TABLE 3 Results on GSM8K") == ("table", 3, "Table 3")
    assert caption_label("Table 12 | Ablations") == ("table", 12, "Table 12")
    assert caption_label("Table 1 reports the main results.") is None
    assert caption_label("Figure 3 and Table 2 show") is None
    assert caption_label("As shown in Figure 1, the model") is None
    assert caption_label("Figures 1-3 show") is None


def test_rendered_figures_are_wide_enough_and_not_blank(drawn: tuple[Path, list[pdfgen.Drawn]]) -> None:
    pdf, _ = drawn
    data = pdf.read_bytes()
    figures, tables = find_figures(str(pdf), data)
    for figure in (*figures, *tables):
        image = render_figure(data, figure)
        picture = PIL.open(io.BytesIO(image.data))
        assert picture.format.lower() == image.format and picture.size == (image.width, image.height)
        assert image.width >= 800
        x0, y0, x1, y1 = figure.bbox
        assert abs(image.height / image.width - (y1 - y0) / (x1 - x0)) < 0.05  # the box, not the page
        grey = picture.convert("L")
        dark = sum(grey.histogram()[:200])
        assert dark > 0.01 * image.width * image.height, figure.label  # drawn, not a white box
    bars = render_figure(data, figures[1], min_width=1200)
    assert bars.width >= 1200
    red = PIL.open(io.BytesIO(bars.data)).convert("RGB").getcolors(1 << 20)
    assert any(r > 150 and g < 200 and b < 100 for _, (r, g, b) in red)  # the embedded picture's bars


def test_read_json_lists_figures_and_tables(drawn: tuple[Path, list[pdfgen.Drawn]]) -> None:
    pdf, expected = drawn
    pages = {d.label: d.page for d in expected}
    result = runner.invoke(app, ["read", str(pdf), "--json", "--no-cache"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [f["label"] for f in data["figures"]] == ["Figure 1", "Figure 2"]
    assert [t["label"] for t in data["tables"]] == ["Table 1"]
    for item in (*data["figures"], *data["tables"]):
        assert set(item) == {"label", "page", "bbox", "caption"} | ({"rows"} if item in data["tables"] else set())
        assert item["page"] == pages[item["label"]] and len(item["bbox"]) == 4 and item["bbox"][0] < item["bbox"][2]
    assert data["tables"][0]["rows"] == [list(row) for row in pdfgen.RESULTS_ROWS]  # cells as drawn, header first
    plain = runner.invoke(app, ["read", str(pdf), "--no-cache"])
    assert plain.exit_code == 0, plain.output
    assert "==== FIGURES AND TABLES (2 + 1) ====" in plain.stdout
    assert f"[p. {pages['Table 1']}] Table 1, box " in plain.stdout and plain.stdout.rstrip().endswith(pdfgen.TABLE_1)


def test_figures_survive_the_cache(paper: PaperText) -> None:
    assert len(paper.figures) == 2 and len(paper.tables) == 1
    assert PaperText.from_dict(json.loads(json.dumps(paper.to_dict()))) == paper
    assert all(isinstance(f, Figure) and f.kind == "table" for f in paper.tables)


def test_read_text_is_clean_and_captions_stand_alone(paper: PaperText) -> None:
    text = paper.text()
    assert not [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0]
    assert "The loss is L = x + y summed over pages." in text
    paragraphs = [p.text for _, p in paper.paragraphs()]
    assert f"{pdfgen.SPLIT_START} {pdfgen.SPLIT_END}" in "\n".join(paragraphs)  # joined around the figure
    for caption in (pdfgen.FIGURE_1, pdfgen.FIGURE_2, pdfgen.TABLE_1):
        assert caption in paragraphs, caption
    sentence = next(i for i, p in enumerate(paragraphs) if pdfgen.SPLIT_END in p)
    assert paragraphs.index(pdfgen.FIGURE_1) == sentence + 1  # after the sentence it interrupted
    assert any(p.startswith("Table 1 reports the main results.") for p in paragraphs)


def test_clean_text_drops_control_bytes_and_private_use_glyphs() -> None:
    assert clean_text("L = \x00x\x01 + y") == "L = x + y"
    assert clean_text("a\x02b") == "a b"
    assert clean_text("keeps\ttabs\nand lines \ue000\uf0b7 but not junk") == "keeps\ttabs\nand lines but not junk"
    assert clean_text("plain") == "plain"


@pytest.mark.parametrize(("make", "kind"), [
    (lambda data: pdfgen.NOT_PDF, "not-pdf"), (pdfgen.truncated, "truncated"), (pdfgen.encrypted, "encrypted"),
])
def test_damaged_files_raise_paper_error(drawn: tuple[Path, list[pdfgen.Drawn]], make,  # type: ignore[no-untyped-def]
                                        kind: str) -> None:
    with pytest.raises(PaperError) as caught:
        find_figures("bad.pdf", make(drawn[0].read_bytes()))
    assert caught.value.kind == kind and str(caught.value).startswith("bad.pdf: ")


def test_a_page_box_that_does_not_start_at_the_origin(drawn: tuple[Path, list[pdfgen.Drawn]], tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import RectangleObject

    pdf, expected = drawn
    writer = PdfWriter(clone_from=PdfReader(pdf))
    for page in writer.pages:
        page.mediabox = RectangleObject([-60, -40, 652, 812])  # wider margins; the drawing keeps its coordinates
    out = io.BytesIO()
    writer.write(out)
    figures, tables = find_figures("moved.pdf", out.getvalue())
    assert [f.label for f in (*figures, *tables)] == ["Figure 1", "Figure 2", "Table 1"]
    for want in expected:
        got = next(f for f in (*figures, *tables) if f.label == want.label)
        assert all(abs(a - b) <= TOLERANCE for a, b in zip(got.bbox, want.bbox)), (want, got)
    image = render_figure(out.getvalue(), figures[0])
    assert image.width >= 800
    grey = PIL.open(io.BytesIO(image.data)).convert("L")
    assert sum(grey.histogram()[:200]) > 0.01 * image.width * image.height


def test_a_label_under_the_drawing_does_not_hide_the_caption(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Labels", header="")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    paper.flow([pdfgen.Para(pdfgen.FILLER), pdfgen.Figure(pdfgen.FIGURE_1, "vector", label="tokens per page"),
                pdfgen.Para(pdfgen.FILLER), pdfgen.Lines(("The drawing order is read as shown in",)),
                pdfgen.Lines(("Figure 1. Then the bands are read.",))], columns=1)
    pdf = paper.save(tmp_path / "labels.pdf")
    figures, _ = find_figures(str(pdf), pdf.read_bytes())
    assert [(f.label, f.caption) for f in figures] == [("Figure 1", pdfgen.FIGURE_1)]  # not the mention
    (x0, y0, x1, y1), want = figures[0].bbox, paper.drawn[0].bbox
    assert all(abs(a - b) <= TOLERANCE for a, b in zip((x0, x1, y1), (want[0], want[2], want[3])))
    assert want[1] - 12 <= y0 <= want[1] - 6  # the label under the drawing is the figure's, the caption is not


def test_a_caption_over_its_figure_and_two_figures_stacked(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Stacked", header="")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    paper.flow([pdfgen.Para(pdfgen.FILLER), pdfgen.Figure("Fig. 3. A caption set over its figure.", "vector",
                                                          caption_above=True),
                pdfgen.Para(pdfgen.FILLER), pdfgen.Figure("Figure 4: The upper of two figures.", "raster", 80.0),
                pdfgen.Figure("Figure 5: The lower one.", "vector", 80.0), pdfgen.Para(pdfgen.FILLER)], columns=1)
    pdf = paper.save(tmp_path / "stacked.pdf")
    figures, _ = find_figures(str(pdf), pdf.read_bytes())
    assert [f.label for f in figures] == ["Figure 3", "Figure 4", "Figure 5"]
    assert figures[0].caption == "Fig. 3. A caption set over its figure."
    for got, want in zip(figures, paper.drawn, strict=True):
        assert all(abs(a - b) <= TOLERANCE for a, b in zip(got.bbox, want.bbox)), (got, want)


def test_a_caption_whose_table_went_to_the_next_page_takes_no_text(tmp_path: Path) -> None:
    paper = pdfgen.Paper("Split", header="")
    paper.front("Ada Reader", pdfgen.ABSTRACT)
    paper.flow([pdfgen.Para(pdfgen.FILLER), pdfgen.Lines(("Table 2: Results that go on over the page.",)),
                pdfgen.ColumnBreak(), pdfgen.Table(pdfgen.RESULTS_ROWS)], columns=1)
    pdf = paper.save(tmp_path / "split.pdf")
    figures, tables = find_figures(str(pdf), pdf.read_bytes())
    assert figures == () and [t.label for t in tables] == ["Table 2"]  # its caption is listed…
    assert not tables[0].located and tables[0].bbox == (0, 0, 0, 0)  # …not the paragraph's short last line above it


def test_a_rotated_page_renders_its_figure_box(drawn: tuple[Path, list[pdfgen.Drawn]]) -> None:
    from pypdf import PdfReader, PdfWriter

    pdf, _ = drawn
    writer = PdfWriter(clone_from=PdfReader(pdf))
    for page in writer.pages:
        page.rotate(90)  # /Rotate: shown sideways, drawn as before
    out = io.BytesIO()
    writer.write(out)
    figures, tables = find_figures("rotated.pdf", out.getvalue())
    assert [f.label for f in (*figures, *tables)] == ["Figure 1", "Figure 2", "Table 1"]
    for figure in (*figures, *tables):
        image = render_figure(out.getvalue(), figure)
        x0, y0, x1, y1 = figure.bbox
        assert image.width >= 800 and abs(image.height / image.width - (y1 - y0) / (x1 - x0)) < 0.05
        upright = render_figure(drawn[0].read_bytes(), figure)
        a = PIL.open(io.BytesIO(image.data)).convert("L").resize((80, 40))
        b = PIL.open(io.BytesIO(upright.data)).convert("L").resize((80, 40))
        assert sum(abs(p - q) for p, q in zip(a.tobytes(), b.tobytes())) < 8 * 80 * 40  # the same picture


_THREADS = """
import sys, threading
sys.path.insert(0, {tests!r})
from pathlib import Path
from pdfgen import figures_paper
from papernotes.intake.paper.figures import find_figures, render_picture
path, _ = figures_paper(Path({pdf!r}))
data = path.read_bytes()
failed = []
def work():
    try:
        for _ in range(6):
            figures, _ = find_figures(str(path), data)
            render_picture(data, figures[0], 400)
    except BaseException as exc:
        failed.append(exc)
threads = [threading.Thread(target=work) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
print("ok" if not failed else failed)
"""


def test_figures_found_and_rendered_from_several_threads_at_once(tmp_path: Path) -> None:
    """PDFium is not thread-safe; the LLM engines read papers in worker threads. In a child process, so a crash
    is this test's failure rather than the end of the test run."""
    script = _THREADS.format(tests=str(Path(__file__).parent), pdf=str(tmp_path / "p.pdf"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stdout, done.stderr[-2000:])
