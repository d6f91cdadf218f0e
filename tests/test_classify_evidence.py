"""Day one on papers everyone knows, and the evidence behind every prediction.

The notes here are written for these tests: real titles with abstract-like text of our own. With no
labelled note, the taxonomy's rules must file FedAvg under federated learning and "Attention Is All You
Need" under the language domain, and say which phrases decided it (``classify -v``, ``--json``).
"""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from papernotes.classify.by_rules import predict_by_rules
from papernotes.classify.evidence import clues, evidence
from papernotes.classify.prediction import MIN_CONFIDENCE
from papernotes.cli import app
from papernotes.corpus.parse import parse_note
from papernotes.taxonomy import load_taxonomy
from pdfgen import Heading, Paper, Para

runner = CliRunner()

FEDAVG = """---
title: Communication-Efficient Learning of Deep Networks from Decentralized Data
venue: AISTATS2017
abstract: >-
  Phones and tablets hold data that would make better models, but it is private and too large to upload.
  We train a shared model while the training data stays on the devices, by federated learning: each
  client runs a few epochs of SGD on its own data and a server averages the updates. The method, called
  FedAvg, copes with non-IID and unbalanced data and needs 10 to 100 times fewer communication rounds
  than synchronous stochastic gradient descent.
---
"""
ATTENTION = """---
title: Attention Is All You Need
venue: NeurIPS2017
abstract: >-
  Sequence transduction models have been built from recurrent or convolutional networks with an
  encoder-decoder structure. We propose the Transformer, which relies on attention alone. On two machine
  translation tasks, WMT 2014 English-to-German and English-to-French, it reaches a better BLEU score
  while training in far less time, and it also does well on English constituency parsing.
---
"""
VAGUE = """---
title: On the Nature of Things
venue: ICML2024
abstract: We take a long look at several questions and offer a few answers.
---
"""


def corpus_of(tmp_path: Path, notes: dict[str, str]) -> Path:
    corpus = tmp_path / "notes"
    for name, text in notes.items():
        path = corpus / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return corpus


def note(text: str, path: str = "v/n.md"):  # type: ignore[no-untyped-def]
    parsed, _ = parse_note(path, text)
    assert parsed is not None
    return parsed


def test_fedavg_is_federated_learning_and_attention_is_language_at_the_default_confidence() -> None:
    taxonomy = load_taxonomy()
    fed, attention, vague = predict_by_rules([note(FEDAVG), note(ATTENTION), note(VAGUE)], taxonomy)
    assert fed.predicted == "federated_learning" and fed.probability >= MIN_CONFIDENCE, fed
    assert attention.predicted == "llm_nlp" and attention.probability >= MIN_CONFIDENCE, attention
    assert vague.top == () and vague.why == ()
    assert any(w.startswith("FedAvg (abstract") for w in fed.why), fed.why
    assert any("communication-efficient (title" in w.casefold() for w in fed.why), fed.why
    assert any(w.startswith("machine translation (abstract") for w in attention.why), attention.why


def test_classify_json_and_verbose_say_why(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path, {"AISTATS2017/fedavg.md": FEDAVG, "NeurIPS2017/attention.md": ATTENTION,
                                  "ICML2024/vague.md": VAGUE})
    result = runner.invoke(app, ["classify", str(corpus), "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["path"]: row for row in json.loads(result.stdout)}
    assert len(rows) == 3
    assert rows["AISTATS2017/fedavg.md"]["predicted"] == "federated_learning"
    assert "FedAvg (abstract)" in rows["AISTATS2017/fedavg.md"]["why"]
    assert rows["ICML2024/vague.md"]["why"] == []

    listing = runner.invoke(app, ["classify", str(corpus), "-v"], terminal_width=400)
    assert listing.exit_code == 0, listing.output
    lines = listing.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("AISTATS2017/fedavg.md: no domain, predicted "
                                                                   "federated_learning"))
    assert lines[at + 1].startswith("  why: ") and "FedAvg (abstract)" in lines[at + 1]
    quiet = runner.invoke(app, ["classify", str(corpus)], terminal_width=400)
    assert "why:" not in quiet.stdout

    applied = runner.invoke(app, ["classify", str(corpus), "--apply", "-v"], terminal_width=400)
    assert applied.exit_code == 0, applied.output
    assert "AISTATS2017/fedavg.md: domain: federated_learning (p=" in applied.stdout
    assert "\n  why: " in applied.stdout


def test_the_learned_model_says_why_too(tmp_path: Path) -> None:
    notes = {}
    for i in range(12):
        notes[f"ICML2024/fl{i}.md"] = (f"---\ntitle: Federated learning with clients number {i}\nvenue: ICML2024\n"
                                       "domain: federated_learning\n---\n")
        notes[f"ICML2024/q{i}.md"] = (f"---\ntitle: Quantization of weights to low-bit number {i}\nvenue: ICML2024\n"
                                      "domain: model_compression\n---\n")
    result = runner.invoke(app, ["classify", str(corpus_of(tmp_path, notes)), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == 24
    fl = next(row for row in rows if row["path"] == "ICML2024/fl3.md")
    assert fl["predicted"] == "federated_learning"
    assert "federated learning (title)" in fl["why"]
    assert any(w.endswith(" (title word)") or w.endswith(" (word)") for w in fl["why"]), fl["why"]


def test_venue_track_and_arxiv_category_are_evidence() -> None:
    taxonomy = load_taxonomy()
    plain = note("---\ntitle: A study of things\nvenue: ICML2024\n---\n")
    assert clues(plain, taxonomy) == []
    acl = note("---\ntitle: A study of things\nvenue: ACL2025\n---\n")
    assert [(c.domain, c.where) for c in clues(acl, taxonomy)] == [("llm_nlp", "venue")]
    category = note("---\ntitle: A study of things\nvenue: ICML2024\narxiv_category: cs.RO\n---\n")
    assert [(c.domain, c.where) for c in clues(category, taxonomy)] == [("robotics", "arxiv")]
    astro = note("---\ntitle: A study of things\nvenue: ICML2024\narxiv_category: astro-ph.GA\n---\n")
    assert [(c.domain, c.where) for c in clues(astro, taxonomy)] == [("physics", "arxiv")]
    track = note("---\ntitle: A study of things\nvenue: NeurIPS2025\nworkshop: Machine Learning for Health\n---\n")
    assert ("medical_imaging", "track") in {(c.domain, c.where) for c in clues(track, taxonomy)}


def test_a_domain_absorbs_the_technique_it_applies() -> None:
    taxonomy = load_taxonomy()
    mri = note("---\ntitle: Semantic segmentation of brain MRI scans\nvenue: ICML2024\n---\n")
    weights, taken = evidence(clues(mri, taxonomy), taxonomy)
    assert taken == {"segmentation": "medical_imaging"}
    assert set(weights) == {"medical_imaging"}
    prediction, = predict_by_rules([mri], taxonomy)
    assert prediction.predicted == "medical_imaging"
    assert "semantic segmentation (title, segmentation)" in prediction.why


def test_a_pdf_beside_the_note_is_read_for_its_headings_and_text(tmp_path: Path) -> None:
    body = "Speech recognition of spoken words. " * 4
    corpus = corpus_of(tmp_path, {"ICML2024/paper.md": "---\ntitle: A study of things\nvenue: ICML2024\n---\n"})
    paper = Paper("A study of things")
    paper.front("Ada Reader", "We look at a question and answer it.")
    paper.flow([Heading("1", "Introduction"), Para(body), Heading("2", "Acoustic Model"), Para(body)])
    paper.save(corpus / "ICML2024" / "paper.pdf")
    result = runner.invoke(app, ["classify", str(corpus), "--json"])
    assert result.exit_code == 0, result.output
    row, = json.loads(result.stdout)
    assert row["predicted"] == "audio_speech", row
    assert "speech recognition (paper)" in row["why"] and "acoustic (headings)" in row["why"]
