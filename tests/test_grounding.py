"""Grounding: which numbers a note states, how the paper supports them, and ``check --grounding`` end to end."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")

import pdfgen  # noqa: E402
from conftest import write_note  # noqa: E402
from papernotes.intake.grounding import PaperIndex, ground, note_numbers, support  # noqa: E402
from papernotes.cli import app  # noqa: E402
from papernotes.intake.paper import Paragraph, PaperText, Section, read_paper  # noqa: E402

runner = CliRunner()


def texts(body: str) -> list[str]:
    return [q.text for q in note_numbers(body) if q.claim]


def test_numbers_a_note_states() -> None:
    body = "\n".join([
        "Accuracy 0.4642, up 12% and 1.8x faster; ±: 85.2 ± 0.3; latency 12.5 ms; 7B model; ~46%.",
        "Trained on 8 GPUs for 3 stages; (+2) points.",
        "| Method | Top-1 | 2024 |",
        "|---|---|---|",
        "| ResNet-50 | 76 | 1.5K |",
    ])
    assert texts(body) == ["0.4642", "12%", "1.8x", "85.2", "0.3", "12.5 ms", "7B", "46%", "2", "76", "1.5K"]


@pytest.mark.parametrize("line", [
    "In 2024 the authors (Section 3.2, Table 4.1, Fig. 2.5, Eq. 3.1, Appendix B.2) revisit it.",
    "Citations [12] and [3, 5-7] are not claims, nor dates 2024-05-01 or 05/2024.",
    "Versions v1.2, 1.2.3, Python 3.11 and CUDA 12.1 are not claims.",
    "Names: ResNet-50, GPT-4, Llama-3.1, 3D, the 2nd and 3rd runs, 3×3 and 224x224 kernels.",
    "Math indices $x_{1.5}$, $W^{0.5}$, $\\sum_{i=1}^{10} a_i$ are not claims.",
    "Rated 4/5 and 8.5/10 ⭐⭐⭐⭐.",
    "Code `lr=0.001` and links https://arxiv.org/abs/2106.09685 or [paper](https://x.org/1.5) are skipped.",
    "第3.2节 and 表3.1 and 图2.4 are references.",
])
def test_numbers_that_are_not_claims(line: str) -> None:
    assert texts(line) == []


def test_math_decimals_ratings_section_code_blocks_and_summary() -> None:
    body = ("Step size $\\eta = 0.0003$ and $\\beta_2 = 0.999$.\n```\nx = 0.75\n```\n## 评分\n- 新颖性: 4.5\n"
            "## Other\n$$\n\\lambda = 0.25\n$$\n")
    found = note_numbers(body, body_line=10, summary="Reaches 46.4% accuracy.", summary_line=3)
    assert [(q.text, q.where) for q in found] == [("46.4%", 3), ("0.0003", 10), ("0.999", 10), ("0.25", 18)]


def paper_of(*texts: str) -> PaperText:
    paragraphs = tuple(Paragraph(t, page) for page, t in enumerate(texts, 1))
    return PaperText("0" * 64, len(texts), "T", (Section("1", "Results", 1, 1, paragraphs),), (), False, "headings")


def how(number: str, paper: PaperText) -> str:
    (q,) = [q for q in note_numbers(number) if q.claim]
    return support(q, PaperIndex(__import__("papernotes.intake.grounding", fromlist=["x"]).paper_numbers(paper)))


@pytest.mark.parametrize("stated, written, expected", [
    ("0.4642", "Table 1: ours 0.4642", "verbatim"),
    ("46.42%", "ours reaches 46.42 accuracy", "verbatim"),
    ("0.46", "ours 0.4642", "rounded"),
    ("46.4%", "ours 0.4642", "percent"),
    ("0.46", "ours 46.42 %", "percent"),
    ("1.5K", "we label 1500 papers", "unit"),
    ("| 1500 |", "| 1.5K |", "unit"),
    ("0.5 s", "a latency of 500 ms", "unit"),
    ("1.2 GB", "it uses 1200 MB", "unit"),
    ("1.2 GB", "memory (GB): 1.2", "verbatim"),
    ("~50%", "a gain of 48.7%", "rounded"),
    ("0.47", "ours 0.4642", ""),
    ("0.673", "ours 0.4642 and 67.4 and 0.00674", ""),
    ("47%", "ours 0.4642", ""),
])
def test_support(stated: str, written: str, expected: str) -> None:
    assert how(stated, paper_of(written)) == expected


def test_deltas_and_factors_derived_from_supported_numbers() -> None:
    paper = paper_of("| base | 28.04 |\n| ours | 28.82 |", "fps 115 and 125; ablation 76")
    body = ("| method | PSNR |\n|---|---|\n| base | 28.04 |\n| ours | 28.82 (+0.78) |\n| x | 28.82 (+0.95) |\n"
            "FPS 76 → 125, 1.6× faster.")
    findings = {f.number.text + f"@{f.number.where}": f.how for f in ground(note_numbers(body), paper)}
    assert findings["0.78@4"] == "derived"
    assert findings["0.95@5"] == ""
    assert findings["1.6×@6"] == "derived"


def test_message_names_the_nearest_number_and_its_page() -> None:
    (finding,) = ground(note_numbers("reaches 0.673"), paper_of("nothing", "Table 1: 0.4642 and 0.9"))
    assert finding.message() == "0.673 is not in the paper (nearest: 0.4642, p. 2)"


FAITHFUL = """## 一句话总结
Gutter Networks reach 0.46 accuracy on the hard split (about 46%), 3.1 points above the strongest baseline
and 1.8× faster (Section 3.2, Table 1, [12]; since 2024, v1.2).

## 方法详解
- Learning rate $\\eta = 0.0003$, batch size 256, warmup 500 steps, dropout 0.15.
- 3.5 h of training on one GPU; 12.5 ms per page (0.0125 s), 1.2 GB of memory (1200 MB).
- 1.5K papers studied, 38.5% of them affected.

## 实验关键数据
| Method | Hard | Easy | Latency (ms) |
|---|---|---|---|
| PlainReader | 0.3925 | 0.441 | 8.1 |
| LayoutLM-ish | 0.421 | 48.62% | 30.4 |
| **Ours** | **0.4642** (+0.0432) | 0.513 | 12.5 |

Without the gutter detector 0.402, without the band splitter 0.439 (46.42% with both).

## 评分
- 新颖性: 4/5
"""

WRONG_TABLE = """## 一句话总结
Gutter Networks reach 0.4642 on the hard split of GutterBench, 1.8× faster than before.

## 实验关键数据
| Method | Hard | Easy | Latency (ms) |
|---|---|---|---|
| PlainReader | 0.512 | 0.587 | 9.3 |
| DocFormer | 0.598 | 0.633 | 41.7 |
| LayoutLM-ish | 0.621 | 0.655 | 28.2 |
| **Ours** | **0.673** | **0.712** | 10.9 |

Ours is 2.7× faster than DocFormer and improves by 5.2 points (0.673 vs 0.621).
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("grounding") / "corpus"
    folder = root / "ICML2026" / "optimization"
    pdf = pdfgen.sample_paper(tmp_path_factory.mktemp("pdf") / "paper.pdf")
    for slug, body in (("faithful", FAITHFUL), ("wrong", WRONG_TABLE)):
        write_note(root, f"ICML2026/optimization/{slug}.md", title=f"Gutter Networks ({slug})", venue="ICML2026",
                   domain="optimization", body=body)
        shutil.copy(pdf, folder / f"{slug}.pdf")
    write_note(root, "ICML2026/optimization/nopdf.md", title="A note without its paper", venue="ICML2026",
               domain="optimization", body="## 一句话总结\nReaches 0.99.\n")
    return root


def test_calibration_faithful_note_passes_wrong_table_is_flagged(corpus: Path) -> None:
    """The issue's bar: most numbers of a note whose results table is wrong flagged, almost none of a faithful one."""
    from papernotes.check.grounding_run import ground_note

    folder = corpus / "ICML2026" / "optimization"
    faithful = ground_note(corpus, "ICML2026/optimization/faithful.md")
    wrong = ground_note(corpus, "ICML2026/optimization/wrong.md")
    assert faithful is not None and wrong is not None
    assert faithful.checked >= 25
    assert [f.number.text for f in faithful.unsupported] == []
    assert wrong.checked >= 15
    assert len(wrong.unsupported) / wrong.checked >= 0.8
    flagged = {f.number.text for f in wrong.unsupported}
    assert {"0.673", "0.512", "41.7", "2.7×", "5.2"} <= flagged
    assert "0.4642" not in flagged and "1.8×" not in flagged  # the true numbers of the wrong note still pass
    assert faithful.pdf_sha256 == read_paper(folder / "faithful.pdf").sha256


def test_check_grounding_cli(corpus: Path) -> None:
    (corpus / "ICML2026" / "optimization" / "broken.pdf").write_bytes(pdfgen.NOT_PDF)
    write_note(corpus, "ICML2026/optimization/broken.md", title="A note whose PDF is HTML", venue="ICML2026",
               domain="optimization", body="## 一句话总结\nReaches 0.99.\n")
    try:
        result = runner.invoke(app, ["check", str(corpus), "--grounding", "--no-formulas", "--no-classifier"])
        assert result.exit_code == 0, result.output
        lines = (corpus / "ICML2026" / "optimization" / "wrong.md").read_text(encoding="utf-8").splitlines()
        line = next(i for i, text in enumerate(lines, 1) if "**0.673**" in text)
        assert (f"ICML2026/optimization/wrong.md:{line}: warning: 0.673 is not in the paper (nearest: 0.5131, p. 1)"
                in result.stderr)
        assert "ICML2026/optimization/faithful.md" not in "\n".join(
            line for line in result.stderr.splitlines() if "not in the paper" in line)
        assert "ICML2026/optimization/broken.pdf: warning: not a PDF" in result.stderr
        assert "3 note(s) checked against their paper" not in result.stdout
        assert "2 note(s) checked against their paper" in result.stdout
        assert "1 note(s) without a PDF skipped, 1 PDF(s) unreadable" in result.stdout
        as_json = runner.invoke(app, ["check", str(corpus), "--grounding", "--no-formulas", "--no-classifier", "--json"])
        data = json.loads(as_json.stdout)["grounding"]
        counts = {n["path"].rsplit("/", 1)[1]: (n["checked"], n["unsupported"]) for n in data["notes"]}
        assert counts["faithful.md"][1] == 0 and counts["faithful.md"][0] >= 25
        assert counts["wrong.md"][1] >= 0.8 * counts["wrong.md"][0]
        assert data["skipped"] == 1 and data["unreadable"] == ["ICML2026/optimization/broken.pdf"]
        plain = runner.invoke(app, ["check", str(corpus), "--no-formulas", "--no-classifier"])
        assert "not in the paper" not in plain.stderr and "grounding" not in plain.stdout
    finally:
        (corpus / "ICML2026" / "optimization" / "broken.pdf").unlink()
        (corpus / "ICML2026" / "optimization" / "broken.md").unlink()
