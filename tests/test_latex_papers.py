"""Reading real pdflatex output: papers laid out like ICML, NeurIPS and ICLR papers, compiled here.

The sources are in ``tests/fixtures/latex/`` (text written for these tests; the templates' class files are
not used, their layouts are imitated with ``article``). Each is compiled once per module with ``pdflatex``;
without it the module is skipped. What a reader of the paper sees must come out: title, authors, abstract,
venue, arXiv id, figures and tables on their pages, the columns one after the other, and an extractive draft
whose results table keeps its header row and whose numbers are all in the paper.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("pypdfium2")
PIL = pytest.importorskip("PIL.Image")
if shutil.which("pdflatex") is None:
    pytest.skip("pdflatex is not installed (texlive-latex-base and friends)", allow_module_level=True)

from papernotes.cli import app  # noqa: E402
from papernotes.intake.paper import PaperText, read_paper  # noqa: E402

SOURCES = Path(__file__).parent / "fixtures" / "latex"
runner = CliRunner()


@dataclass(frozen=True)
class Expected:
    title: str
    authors: tuple[str, ...]
    abstract: tuple[str, str]
    """How the abstract starts and ends."""
    venue: str
    arxiv: str
    figures: tuple[tuple[str, int], ...]
    tables: tuple[tuple[str, int], ...]
    sentence: str
    """A sentence that runs over several lines of one column: it must come out whole."""
    header: str
    """The results table's header row as the draft writes it."""
    label: str
    """A node of the TikZ figure: drawn inside Figure 1, never part of the text."""


EXPECTED = {
    "icml": Expected(
        "Gated Sparse Routing: Fast Long-Context Inference Without Losing the Needle",
        ("Lena Hartmann", "Kenji Watanabe", "Priya Raman", "Tomás Ortega"),
        ("Serving language models on inputs of a million tokens", "from 42.7 to 45.9 over the best sparse baseline."),
        "Proceedings of the 43rd International Conference on Machine Learning, Seoul, South Korea. PMLR 306, 2026",
        "2602.06107", (("Figure 1", 3), ("Figure 2", 3)), (("Table 1", 2), ("Table 2", 2)),
        "Dynamic methods estimate the important blocks on the fly, but their estimators either cost as much as the "
        "attention they try to avoid or miss blocks whose importance depends on the query.",
        "| Method | RULER 32K | RULER 64K | RULER 128K | Speedup |", "Sparse kernel"),
    "neurips": Expected(
        "Calibrated Self-Distillation for Small Vision–Language Models",
        ("Ines Moreau", "Daniel Okafor", "Yuki Tanaka"),
        ("Small vision–language models are cheap to serve but overconfident",
         "raises accuracy by 2.1 points on average."),
        "39th Conference on Neural Information Processing Systems (NeurIPS 2025)", "",
        (("Figure 1", 2), ("Figure 2", 3)), (("Table 1", 2),),
        "Systems that route hard questions to a larger model, or that abstain when unsure, rely on the model's "
        "probabilities.",
        "| Method | Average Acc. | Average ECE | VQAv2 Acc. | VQAv2 ECE | ChartQA Acc. | ChartQA ECE |",
        "Brier loss"),
    "iclr": Expected(
        "Off-Policy Correction for Asynchronous RL Fine-Tuning of LLMs",
        ("Marta Kowalski", "Arjun Mehta", "Sofia Lindqvist"),
        ("Asynchronous reinforcement learning fine-tunes a language model", "and doubles rollout throughput."),
        "Published as a conference paper at ICLR 2026", "2603.01234",
        (("Figure 1", 2), ("Figure 2", 2)), (("Table 1", 2),),
        "Standard remedies, truncated importance sampling and a KL penalty towards μ, either discard most of the "
        "signal when the ratio is clipped hard or slow learning when the penalty is large.",
        "| Method | MATH500 | AIME 2024 | OlympiadBench | Throughput |", "Rollout workers"),
}


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every fixture compiled once (the raster figure drawn here, not committed)."""
    work = tmp_path_factory.mktemp("latex")
    image = PIL.new("RGB", (600, 300), "white")
    for k in range(10):  # a bar chart
        image.paste((30 + 20 * k, 120, 200 - 15 * k), (20 + 58 * k, 280 - 25 * (k + 1), 60 + 58 * k, 280))
    image.save(work / "bars.png")
    out = {}
    for name in EXPECTED:
        shutil.copy(SOURCES / f"{name}.tex", work)
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=work,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]
        out[name] = work / f"{name}.pdf"
    return out


@pytest.fixture(scope="module")
def papers(pdfs: dict[str, Path]) -> dict[str, PaperText]:
    return {name: read_paper(pdf) for name, pdf in pdfs.items()}


def flat(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).replace("’", "'").split())  # µ (the font's) is μ


@pytest.mark.parametrize("name", list(EXPECTED))
def test_front_matter(papers: dict[str, PaperText], name: str) -> None:
    paper, want = papers[name], EXPECTED[name]
    assert paper.title == want.title
    assert paper.authors == want.authors
    assert paper.abstract.startswith(want.abstract[0]) and paper.abstract.endswith(want.abstract[1])
    assert paper.venue_text == want.venue
    assert paper.arxiv == want.arxiv


@pytest.mark.parametrize("name", list(EXPECTED))
def test_figures_and_tables_on_their_pages(papers: dict[str, PaperText], name: str) -> None:
    paper, want = papers[name], EXPECTED[name]
    assert tuple((f.label, f.page) for f in paper.figures) == want.figures
    assert tuple((t.label, t.page) for t in paper.tables) == want.tables
    assert all(f.caption.startswith(f.label) and f.bbox[0] < f.bbox[2] and f.bbox[1] < f.bbox[3]
               for f in (*paper.figures, *paper.tables))
    assert all(t.rows and t.rows[-1][0].endswith("(ours)") for t in paper.tables)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_columns_do_not_interleave(papers: dict[str, PaperText], name: str) -> None:
    paper = papers[name]
    assert flat(EXPECTED[name].sentence) in flat(paper.text())
    assert [s.title for s in paper.sections if s.level == 1][:2] in (["Introduction", "Related Work"],
                                                                     ["Introduction", "Method"])
    assert "Algorithm 1" not in paper.title and not re.search(r"[\x00-\x08\x0b-\x1f]", paper.text())
    assert EXPECTED[name].label not in paper.text()  # a figure's own labels are not prose


def test_a_two_column_page_reads_left_then_right(papers: dict[str, PaperText]) -> None:
    text = flat(papers["icml"].text())
    intro = text.index("Modern assistants read entire repositories")
    related = text.index("Sparse attention has a long history.")
    method = text.index("Let the input be split into blocks")
    assert intro < related < method  # page 1: left column (introduction), then right column (related work)


def test_ingest_draft_and_ground(pdfs: dict[str, Path], tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    ingested = runner.invoke(app, ["ingest", "pdf", *(str(p) for p in pdfs.values()), str(corpus)])
    assert ingested.exit_code == 0, ingested.output
    drafted = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive"])
    assert drafted.exit_code == 0, drafted.output
    notes = {p.stem: p.read_text(encoding="utf-8") for p in corpus.rglob("*.md")}
    assert len(notes) == 3
    for name, want in EXPECTED.items():
        note = next(text for text in notes.values() if f"title: {want.title}" in text or f"'{want.title}'" in text)
        assert want.header in note, name  # the main results table with its header row
        assert "(ours) |" in note
    checked = runner.invoke(app, ["check", str(corpus), "--grounding", "--no-formulas", "--no-classifier", "--json"])
    grounding = json.loads(checked.stdout)["grounding"]
    assert len(grounding["notes"]) == 3 and all(n["checked"] >= 10 for n in grounding["notes"])
    assert [n["unsupported"] for n in grounding["notes"]] == [0, 0, 0]
