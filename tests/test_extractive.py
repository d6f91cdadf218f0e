"""The extractive engine writes a note: the contribution as TL;DR, noun-phrase keywords, the main results table.

Abstracts are written for these tests; the paper is generated (``tests/pdfgen.py``
``results_paper``): a motivation-first abstract, an algorithm block, a benchmark
table, the main table with a header row, group header rows, baselines and two
rows run together, and an ablation table followed by two rows run together on a
prose line.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from papernotes.cli import app
from papernotes.corpus.frontmatter import dump, read
from papernotes.intake.extractive import Keyphraser, contribution, extract, method_name, shorten, split_sentences
from papernotes.intake.paper import Paragraph, PaperText, Section
from papernotes.intake.results import RESULT_HEADING, paper_sentences, results_table
from papernotes.intake.words import can_end, can_start, is_verb

sys.path.insert(0, str(Path(__file__).parent))
import pdfgen  # noqa: E402

runner = CliRunner()

ADAM = ("We introduce Adam, an algorithm for first-order gradient-based optimization of stochastic objective "
        "functions, based on adaptive estimates of lower-order moments. The method is straightforward to implement, "
        "is computationally efficient and has little memory requirements. The method keeps running estimates of the "
        "first and second moments of the gradient. The hyper-parameters have intuitive interpretations and typically "
        "rarely need tuning. Empirical results demonstrate that Adam works well in practice and compares favorably "
        "to other stochastic optimization methods.")
TILE = ("Transformers are slow and memory-hungry on long sequences, since the time and memory complexity of "
        "self-attention are quadratic in sequence length. Approximate attention methods trade model quality for "
        "speed but often do not achieve wall-clock speedup. We argue that a missing principle is making attention "
        "algorithms IO-aware. In this paper we present TileAttn, an IO-aware exact attention algorithm that uses "
        "tiling to reduce the number of memory reads and writes between GPU high bandwidth memory and on-chip SRAM. "
        "TileAttn trains Transformers faster than existing baselines: 15% end-to-end speedup on BERT-large.")
ABSTRACTS = {"Jackpot": (pdfgen.RESULTS_TITLE, pdfgen.RESULTS_ABSTRACT),
             "Adam": ("Adam: A Method for Stochastic Optimization", ADAM),
             "TileAttn": ("Tiling Attention Without Approximation", TILE)}
VERB_PHRASES = ("achieving performance comparable", "keeps running estimates", "rarely need tuning", "need tuning",
                "TileAttn trains", "Decoupling rollout", "destabilizes", "making attention")


def keyphraser() -> Keyphraser:
    return Keyphraser([abstract for _, abstract in ABSTRACTS.values()] + [pdfgen.ABSTRACT])


# ---------------------------------------------------------------- the TL;DR

def test_the_tldr_is_the_contribution_sentence_not_the_motivation() -> None:
    sentences = split_sentences(pdfgen.RESULTS_ABSTRACT)
    assert sentences[1].startswith("Decoupling rollout generation")  # the motivation TextRank used to pick
    found = extract(pdfgen.RESULTS_TITLE, pdfgen.RESULTS_ABSTRACT, keyphraser())
    assert found.name == "Jackpot"
    assert found.summary == sentences[2] and found.summary.startswith("We propose Jackpot, a rejection sampling")
    tile = extract(*ABSTRACTS["TileAttn"], keyphraser())
    assert tile.name == "TileAttn" and tile.summary.startswith("In this paper we present TileAttn")
    adam = extract(*ABSTRACTS["Adam"], keyphraser())
    assert adam.summary.startswith("We introduce Adam,")


@pytest.mark.parametrize(("title", "abstract", "name"), [
    ("Jackpot: Stable Off-Policy RL", "", "Jackpot"),
    ("LoRA: Low-Rank Adaptation of Large Language Models", "", "LoRA"),
    ("Towards Faithful Readers: A Study", "We present GutterNet, a reader.", "GutterNet"),
    ("Let's Verify Step by Step", "We introduce PRM800K, a dataset of 800K labels.", "PRM800K"),
    ("Let's Verify Step by Step", "We compare methods on MATH. MATH is hard. We also release PRM800K.", ""),
    ("Reading Papers", "We present Gutter Networks, a reader for papers.", "Gutter Networks"),
    ("Reading Papers", "LLMs read papers. We study how they read.", ""),
    ("Gutter Networks: Reading Papers", "We present Gutter Networks, a reader.", "Gutter Networks"),
    ("cadrille: Multi-modal CAD Reconstruction", "", "cadrille"),
    ("Peering into the Unknown: Active View Selection", "We propose PUN, a selector.", "PUN"),
    ("Better NTK Conditioning: A Free Lunch", "", ""),
    ("AdvDreamer Unveils: Adversarial 3D Transformations", "We present AdvDreamer, a framework.", "AdvDreamer"),
    ("Rethinking Attention: A Study", "", ""),
    ("思维树：用大语言模型进行深思熟虑的问题求解", "", "思维树"),
])
def test_the_methods_name(title: str, abstract: str, name: str) -> None:
    assert method_name(title, split_sentences(abstract)) == name


def test_contribution_tiers_and_fallback() -> None:
    sentences = ["Readers matter.", "We show that readers fail on 38.5% of papers.", "GutterNet reads columns.",
                 "We propose GutterNet, which reads columns in order."]
    assert contribution(sentences, "GutterNet") == 3  # "we propose" naming the method beats "we show"
    assert contribution(sentences[:3], "GutterNet") == 2  # then naming it, after the scene is set
    assert contribution(sentences[:2], "GutterNet") == 1  # then "we show"
    assert contribution(["Readers matter.", "Columns are hard."], "") is None  # TextRank decides


def test_a_long_contribution_sentence_loses_a_trailing_clause_only() -> None:
    head = "We propose Jackpot, a rejection sampling scheme for off-policy reinforcement learning of language models"
    long = head + ", achieving performance comparable to on-policy training " + "on many benchmarks " * 12 + "."
    assert shorten(long) == head + "."
    no_clause = "We propose Jackpot " + "and more " * 40 + "in the end."
    assert shorten(no_clause) == no_clause  # nothing to cut that leaves a sentence: verbatim


# ---------------------------------------------------------------- keywords

@pytest.mark.parametrize("name", list(ABSTRACTS))
def test_keywords_are_noun_phrases_with_the_method_first(name: str) -> None:
    title, abstract = ABSTRACTS[name]
    keywords = extract(title, abstract, keyphraser()).keywords
    assert keywords[0] == name and len(keywords) == 6
    for keyword in keywords:
        assert not any(bad.casefold() in keyword.casefold() for bad in VERB_PHRASES), keyword
        parts = keyword.split()
        assert can_start(parts[0]) and can_end(parts[-1]), keyword
        assert not any(is_verb(w) for w in parts), keyword


def test_verb_forms_and_terms() -> None:
    assert all(is_verb(w) for w in ("achieving", "destabilizes", "keeps", "discarded", "needs"))
    assert not any(is_verb(w) for w in ("learning", "fine-tuning", "supervised", "LoRA", "estimates", "speed"))
    assert is_verb("needs", prev="rarely") and is_verb("freezes", prev="which") and is_verb("trains", "", "TileAttn")
    assert not can_end("comparable") and not can_end("IO-aware") and not can_end("LLM-based") and can_end("SRAM")


# ---------------------------------------------------------------- the paper: table and sentences

@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory) -> PaperText:
    pytest.importorskip("pypdf")
    pytest.importorskip("fpdf")
    from papernotes.intake.paper import read_paper

    return read_paper(pdfgen.results_paper(tmp_path_factory.mktemp("p") / "jackpot.pdf"))


def test_the_main_results_table_has_its_header_row_and_the_methods_group(paper: PaperText) -> None:
    table = results_table(paper, "Jackpot")
    assert table is not None
    assert table.caption == "Table 2: Accuracy after 400 steps of off-policy training."  # not Table 1 (no method)
    assert table.markdown() == ("| Method | MATH500 | AIME24 | Avg |\n|---|---|---|---|\n"
                                "| GRPO | 0.6120 | 0.1333 | 0.3727 |\n| TIS | 0.6380 | 0.1667 | 0.4024 |\n"
                                "| Jackpot (ours) | 0.6800 | 0.2000 | 0.4400 |")
    assert table.group == "Qwen3-1.7B" and table.rows_left_out == 3  # the other group's two rows and a merged one
    assert table.page == next(p.page for _, p in paper.paragraphs() if p.text.startswith("Method  MATH500"))
    # no method named: "Ours" still marks it; no name at all: the first results table
    assert results_table(paper, "").caption.startswith("Table 2")


def _paper(*paragraphs: str, heading: str = "Experiments") -> PaperText:
    section = Section("4", heading, 5, 1, tuple(Paragraph(text, 5) for text in paragraphs))
    return PaperText("ab" * 32, 9, "T", (section,), (), False, "headings")


def test_a_large_table_is_cut_to_size_keeping_the_methods_row() -> None:
    header = "Method  " + "  ".join(f"D{i}" for i in range(10))
    rows = [f"Baseline {k}  " + "  ".join(f"0.{k:02d}{i}" for i in range(10)) for k in range(15)]
    rows.insert(13, "GutterNet  " + "  ".join(f"0.99{i}" for i in range(10)))
    table = results_table(_paper("Table 4: Results on ten datasets.", "\n".join([header, *rows])), "GutterNet")
    assert table is not None and len(table.header) == 8 and table.columns_left_out == 3
    assert len(table.rows) == 12 and table.rows_left_out == 4
    assert table.rows[-1][0] == "GutterNet" and [r[0] for r in table.rows[:3]] == ["Baseline 0", "Baseline 1",
                                                                                     "Baseline 2"]


@pytest.mark.parametrize("rows", [
    "0.1  0.2  0.3\n0.4  0.5  0.6",  # no header row
    "Method  A  B\nOurs  0.5  0.6",  # one numeric row
    "Method  A  B\nOurs  0.5  x  y\nBase  0.4  z  w",  # words after numbers: rows run together
])
def test_no_table_without_a_header_row_and_numeric_rows(rows: str) -> None:
    assert results_table(_paper("Table 1: Results.", rows), "") is None


def test_a_second_tables_header_row_ends_the_first_table() -> None:
    rows = "Method  A  B\nOurs  0.5  0.6\nBase  0.4  0.3\nVariant  C  D\nNo gate  0.1  0.2\nNo band  0.3  0.4"
    table = results_table(_paper("Table 1: Results.", rows), "")
    assert table is not None and [r[0] for r in table.rows] == ["Ours", "Base"] and table.rows_left_out == 0


def test_a_pipe_in_a_cell_is_escaped() -> None:
    table = results_table(_paper("Table 1: Results.", "Method  A|B  C\nOurs  0.5  0.6\nBase  0.4  0.3"), "")
    assert table is not None and table.markdown().startswith("| Method | A\\|B | C |")


def test_result_sentences_leave_out_pseudocode_rows_and_captions() -> None:
    good = "Jackpot reaches 0.8460 on MATH500, 4.4 points above GRPO."
    paper = _paper("20: Estimate correction factor κ ← 0.25 · r over the batch",
                   "Require: policy π with 0.5 temperature", pdfgen.MERGED_LINE,
                   "Table 4: Accuracy of 0.91 on the held-out split.", "Qwen3-8B",
                   "GRPO  0.8020  0.3000  0.5510", f"We train every model for 3.5 hours. {good}")
    assert paper_sentences(paper, RESULT_HEADING, True, 8) == (("We train every model for 3.5 hours.", 5), (good, 5))


# ---------------------------------------------------------------- end to end: draft, then check --grounding

def test_draft_then_check_grounding_flags_nothing(tmp_path: Path, paper: PaperText) -> None:
    corpus = tmp_path / "c"
    note = corpus / "ICLR2026" / "jackpot.md"
    note.parent.mkdir(parents=True)
    (corpus / "papernotes.toml").write_text('language = "en"\n')
    note.write_text("---\n" + dump({"title": pdfgen.RESULTS_TITLE, "venue": "ICLR2026", "status": "stub",
                                    "abstract": pdfgen.RESULTS_ABSTRACT}) + "---\n", encoding="utf-8")
    pdfgen.results_paper(note.with_suffix(".pdf"))
    result = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive", "--lang", "en"])
    assert result.exit_code == 0, result.output
    front, body, _ = read(note.read_text(encoding="utf-8"))
    assert front is not None and front["summary"].startswith("We propose Jackpot, a rejection sampling scheme")
    assert front["keywords"][0] == "Jackpot"
    assert not any(bad.casefold() in k.casefold() for k in front["keywords"] for bad in VERB_PHRASES)
    experiments = body.split("## Experiments\n", 1)[1].split("\n## ", 1)[0]
    lines = experiments.split("\n")
    assert "| Method | MATH500 | AIME24 | Avg |" in lines and "|---|---|---|---|" in lines
    assert "| Jackpot (ours) | 0.6800 | 0.2000 | 0.4400 |" in lines and "| GRPO | 0.6120 | 0.1333 | 0.3727 |" in lines
    assert re.search(r"^Table 2: Accuracy after 400 steps of off-policy training\. \(p\. \d; Qwen3-1\.7B rows; "
                     r"3 more rows in the paper\)$", experiments, re.M)
    assert "Jackpot reaches 0.8460 on MATH500, 4.4 points above GRPO" in experiments
    for junk in ("Require:", "kappa", "20: Estimate", "Algorithm 1 Jackpot", "0.7417", "TIS+RKL", "Only Reverse KL",
                 "Table 1:", "Table 3:"):
        assert junk not in experiments, junk
    assert "Qwen3-8B" not in [line.strip("| ") for line in lines]  # no group header row
    assert front["grounding"]["unsupported"] == 0 and front["grounding"]["checked"] >= 15
    check = runner.invoke(app, ["check", str(corpus), "--grounding", "--no-formulas", "--no-classifier", "--json"])
    grounding = json.loads(check.stdout)["grounding"]
    [report] = grounding["notes"]
    assert report["unsupported"] == 0 and report["checked"] >= 15  # the table's nine numbers are counted
    plain = runner.invoke(app, ["check", str(corpus), "--grounding", "--no-formulas", "--no-classifier"])
    assert "not in the paper" not in plain.stderr and "1 note(s) checked against their paper" in plain.stdout
