"""``classify`` on day one: without 20 labelled notes the taxonomy's rules file the clear cases (no extra needed).

Three stubs ingested from BibTeX, none with a domain: a FedAvg paper, a quantization paper and one no rule
names. ``--apply`` files the first two, lists the third for review, and exits 0.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from papernotes.classify.by_rules import confidence, predict_by_rules
from papernotes.cli import app
from papernotes.corpus.frontmatter import read
from papernotes.corpus.parse import parse_note
from papernotes.taxonomy import load_taxonomy

runner = CliRunner()
BIB = r"""
@inproceedings{fed,
  title = {Taming Client Drift in FedAvg},
  booktitle = {International Conference on Machine Learning},
  year = {2024},
  abstract = {Federated learning trains a model across many clients. We study FedAvg on non-IID data and bound its client drift with few communication rounds.}
}
@inproceedings{quant,
  title = {Low-Bit Quantization of Vision Transformers},
  booktitle = {International Conference on Machine Learning},
  year = {2024},
  abstract = {Post-training quantization maps weights to 4 bits; we keep accuracy with a learned rounding and no pruning.}
}
@inproceedings{vague,
  title = {On the Nature of Things},
  booktitle = {International Conference on Machine Learning},
  year = {2024},
  abstract = {We take a long look at several questions and offer a few answers.}
}
"""
FED = "ICML2024/taming_client_drift_in_fedavg.md"
QUANT = "ICML2024/low_bit_quantization_of_vision_transformers.md"
VAGUE = "ICML2024/on_the_nature_of_things.md"


def ingested(tmp_path: Path) -> Path:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    corpus = tmp_path / "notes"
    result = runner.invoke(app, ["ingest", "bibtex", str(tmp_path / "refs.bib"), str(corpus), "-q"])
    assert result.exit_code == 0, result.output
    assert sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*.md")) == sorted([FED, QUANT, VAGUE])
    return corpus


def domain_of(path: Path) -> object:
    return read(path.read_text(encoding="utf-8"))[0].get("domain")


def test_the_rules_file_the_clear_stubs_and_list_the_rest(tmp_path: Path) -> None:
    corpus = ingested(tmp_path)
    listing = runner.invoke(app, ["classify", str(corpus)], terminal_width=200)
    assert listing.exit_code == 0, listing.output
    assert "too few labelled notes to learn from: 0 note(s) with a domain" in listing.stderr
    assert "the taxonomy's rules decide the clear cases" in listing.stderr
    assert f"{FED}: no domain, predicted federated_learning (p=" in listing.stdout
    assert f"{VAGUE}: no domain, no rule of the taxonomy matches it: review it\n" in listing.stdout
    assert "3 without a domain (2 at p ≥ 0.80" in listing.stdout

    result = runner.invoke(app, ["classify", str(corpus), "--apply"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert domain_of(corpus / FED) == "federated_learning"
    assert domain_of(corpus / QUANT) == "model_compression"
    assert domain_of(corpus / VAGUE) is None
    assert f"{VAGUE}: not written: no rule of the taxonomy matches it; review it and set `domain:` by hand " \
           "(`papernotes taxonomy domains` lists them; `--engine openai` asks a language model)" in result.stdout
    assert "2 note(s) given a domain, 1 left for review" in result.stdout


def test_min_confidence_holds_back_what_the_rules_are_less_sure_of(tmp_path: Path) -> None:
    corpus = ingested(tmp_path)
    result = runner.invoke(app, ["classify", str(corpus), "--apply", "--json", "--min-confidence", "0.99"])
    assert result.exit_code == 0, result.output
    rows = {row["path"]: row for row in json.loads(result.stdout)}
    assert set(rows) == {FED, QUANT, VAGUE} and not any(row["applied"] for row in rows.values())
    assert rows[FED]["domain"] == "federated_learning" and 0.8 <= rows[FED]["probability"] < 0.99
    assert rows[VAGUE]["domain"] == "" and rows[VAGUE]["probability"] == 0.0
    assert domain_of(corpus / FED) is None


def test_confidence_grows_with_evidence_and_shrinks_with_rivals() -> None:
    one, = confidence({"federated_learning": 1.0})
    two, = confidence({"federated_learning": 2.0})
    assert 0 < one[1] < two[1] < 1
    shared = confidence({"federated_learning": 2.0, "optimization": 2.0})
    assert shared[0][1] == shared[1][1] == round(two[1] / 2, 4)
    assert confidence({}) == ()


def test_the_abstract_counts_less_than_the_title() -> None:
    taxonomy = load_taxonomy()
    title, _ = parse_note("a.md", "---\ntitle: Federated averaging with FedAvg\nvenue: ICML2024\n---\n")
    abstract, _ = parse_note("b.md", "---\ntitle: A study\nvenue: ICML2024\nabstract: federated averaging with "
                                     "FedAvg\n---\n")
    assert title is not None and abstract is not None
    by_title, by_abstract = predict_by_rules([title, abstract], taxonomy)
    assert by_title.predicted == by_abstract.predicted == "federated_learning"
    assert by_title.probability > by_abstract.probability > 0
    assert by_title.source == "rules"


def test_day_one_needs_no_scikit_learn() -> None:
    code = ("import sys; sys.modules['sklearn'] = None\n"  # any import of it fails
            "from papernotes.classify.by_rules import predict_by_rules\n"
            "import papernotes.cli.classify")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_docs_show_what_day_one_prints(tmp_path: Path) -> None:
    """docs/classify.md's day-one example is this file's three stubs, printed as the command prints them."""
    doc = (Path(__file__).parents[1] / "docs" / "classify.md").read_text(encoding="utf-8")
    block = re.search(r"```console\n\$ papernotes classify notes/ --apply -v\n(.*?)```", doc, re.S)
    assert block is not None, "docs/classify.md lost its day-one example"
    corpus = ingested(tmp_path)
    result = runner.invoke(app, ["classify", str(corpus), "--apply", "-v"], terminal_width=400)
    assert result.exit_code == 0
    assert block[1].splitlines() == (result.stderr + result.stdout).splitlines()
