"""Classify stage: cross-fitted predictions, misfiles, --apply, --evaluate and the CLI.

The fixture corpus (tests/fixtures/classify) holds 44 tiny notes written for
these tests: eight per domain for optimization, federated_learning,
image_generation, llm_agent and medical_imaging (titles and one-line summaries,
English and Chinese), one image-generation note deliberately filed under
optimization, and three notes without a domain (no key; an empty key with CRLF
line endings; ``domain: ""`` with a comment and no summary).
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("sklearn") is None:  # not imported here: scikit-learn and SciPy take ~0.7 s
    pytest.skip("scikit-learn is not installed", allow_module_level=True)  # of every worker's collection

from typer.testing import CliRunner  # noqa: E402

from papernotes.cache import BuildCache  # noqa: E402
from papernotes.classify.learned import Misfile, evaluate, predict, suspected_misfiles  # noqa: E402
from papernotes.cli import app  # noqa: E402
from papernotes.corpus.load import load_corpus  # noqa: E402
from papernotes.corpus.model import Note  # noqa: E402
from papernotes.corpus.parse import parse_note  # noqa: E402
from papernotes.taxonomy import Taxonomy, load_taxonomy  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "classify"
DOMAINS = {"optimization", "federated_learning", "image_generation", "llm_agent", "medical_imaging"}
MISFILED = "ICML2024/optimization/sketch_to_photo.md"
UNLABELLED = {
    "ICML2024/clipping_nonconvex.md": "optimization",
    "NeurIPS2023/keyboard_fedavg.md": "federated_learning",
    "ACL2024/travel_agent.md": "llm_agent",
}
JSON_KEYS = {"id", "path", "title", "domain", "predicted", "secondary", "top", "topics", "why", "misfiled"}


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return load_taxonomy()


@pytest.fixture(scope="module")
def notes() -> tuple[Note, ...]:
    return load_corpus(FIXTURE, BuildCache(None)).notes


@pytest.fixture(scope="module")
def predictions(notes: tuple[Note, ...], taxonomy: Taxonomy) -> dict[str, object]:
    return {p.path: p for p in predict(notes, taxonomy)}


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def corpus_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- the fixture itself

def test_fixture_corpus_is_what_the_tests_assume(notes: tuple[Note, ...]) -> None:
    assert len(notes) == 44
    assert {n.domain for n in notes} == DOMAINS | {""}
    assert {n.path for n in notes if not n.domain} == set(UNLABELLED)


# --------------------------------------------------------------------------- cross-fitting

def test_the_deliberately_misfiled_note_is_the_one_flagged(predictions: dict) -> None:
    p = predictions[MISFILED]
    assert (p.domain, p.predicted, p.source) == ("optimization", "image_generation", "cross-fit")
    assert p.misfiled(0.8)
    assert {path for path, q in predictions.items() if q.misfiled(0.8)} == {MISFILED}


def test_cross_fitting_never_shows_a_note_its_own_label(notes: tuple[Note, ...], taxonomy: Taxonomy) -> None:
    """A label no other note has and no rule names cannot come back unless the model saw it."""
    relabelled = list(notes)
    i = next(k for k, n in enumerate(notes) if "learning_to_branch" in n.path)
    relabelled[i] = dataclasses.replace(notes[i], domain="zz_only_here")
    twin = dataclasses.replace(notes[i], domain="", path="twin.md")  # predicted by the model on all labels
    result = predict([*relabelled, twin], taxonomy)
    own, seen = result[i], result[-1]
    assert own.source == "cross-fit" and "zz_only_here" not in dict(own.top)
    assert own.misfiled(0.5)
    assert seen.source == "all-labelled" and dict(seen.top).get("zz_only_here", 0.0) > 0.1


def test_every_labelled_note_is_cross_fitted_and_unlabelled_ones_use_all_labels(predictions: dict) -> None:
    for path, p in predictions.items():
        assert p.source == ("all-labelled" if path in UNLABELLED else "cross-fit")
    for path, domain in UNLABELLED.items():  # travel_agent has a title only
        assert predictions[path].predicted == domain


def test_predictions_are_deterministic(notes: tuple[Note, ...], taxonomy: Taxonomy, predictions: dict) -> None:
    assert {p.path: p for p in predict(notes, taxonomy)} == predictions


def test_suspected_misfiles_for_check(notes: tuple[Note, ...], taxonomy: Taxonomy) -> None:
    labelled = [n for n in notes if n.domain]
    found = suspected_misfiles(labelled, taxonomy, threshold=0.8)
    assert [(m.path, m.current, m.predicted) for m in found] == [(MISFILED, "optimization", "image_generation")]
    assert isinstance(found[0], Misfile) and 0.8 <= found[0].probability <= 1.0
    assert found[0].line == 4  # the `domain:` line
    with pytest.raises(dataclasses.FrozenInstanceError):
        found[0].probability = 0.0  # type: ignore[misc]
    assert suspected_misfiles(labelled, taxonomy, threshold=1.01) == []


def test_topics_and_secondary(predictions: dict) -> None:
    assert "federated_learning" in predictions["NeurIPS2023/keyboard_fedavg.md"].topics
    for p in predictions.values():
        assert p.secondary is None or (p.secondary == p.top[1][0] and p.top[1][1] >= 0.2)


# --------------------------------------------------------------------------- degenerate corpora

def test_empty_corpus(taxonomy: Taxonomy) -> None:
    assert predict([], taxonomy) == []
    assert suspected_misfiles([], taxonomy) == []
    assert evaluate([], taxonomy).scores == ()


def test_single_domain_corpus_uses_rules_alone(notes: tuple[Note, ...], taxonomy: Taxonomy) -> None:
    one = [n for n in notes if n.domain == "optimization" or n.path == "NeurIPS2023/keyboard_fedavg.md"]
    result = {p.path: p for p in predict(one, taxonomy)}
    assert {p.source for p in result.values()} == {"rules"}
    assert result["NeurIPS2023/keyboard_fedavg.md"].predicted == "federated_learning"
    assert result[MISFILED].predicted == "image_generation"  # its rule phrases
    scores = {s.name: s for s in evaluate(one, taxonomy).scores}
    assert scores["full"] == dataclasses.replace(scores["rules"], name="full")
    assert predict(one[:1], taxonomy)[0].predicted  # a single note, labelled: nothing to learn from


def test_notes_with_title_only(taxonomy: Taxonomy) -> None:
    bare = [parse_note(f"n{i}.md", f"---\ntitle: {title}\nvenue: X2024\n---\n")[0]
            for i, title in enumerate(["Federated averaging on phones", "Diffusion model for images", "Untitled"])]
    result = predict(bare, taxonomy)
    assert [p.predicted for p in result[:2]] == ["federated_learning", "image_generation"]
    assert result[2].predicted == "others" and result[2].probability == 1.0


# --------------------------------------------------------------------------- evaluation

def test_evaluate_on_the_fixture(notes: tuple[Note, ...], taxonomy: Taxonomy) -> None:
    ev = evaluate(notes, taxonomy)
    scores = {s.name: s for s in ev.scores}
    assert list(scores) == ["full", "text only", "rules", "majority"]
    assert (ev.labelled, ev.domains, ev.folds) == (41, 5, 5)
    for s in ev.scores:
        assert 0.0 <= s.accuracy <= 1.0 and 0.0 <= s.macro_f1 <= 1.0
    assert scores["full"].accuracy >= scores["rules"].accuracy
    assert scores["full"].macro_f1 >= scores["rules"].macro_f1
    assert scores["rules"].accuracy > scores["majority"].accuracy
    assert [d.f1_full for d in ev.per_domain] == sorted(d.f1_full for d in ev.per_domain)


# --------------------------------------------------------------------------- --apply's text edit

def domain_lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith("domain:")]


def without_domain(text: str) -> list[str]:
    return [line for line in text.split("\n") if not line.startswith("domain:")]


# --------------------------------------------------------------------------- CLI

def test_cli_json_schema(runner: CliRunner) -> None:
    result = runner.invoke(app, ["classify", str(FIXTURE), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["path"] for r in rows] == sorted(r["path"] for r in rows) and len(rows) == 44
    for r in rows:
        assert set(r) == JSON_KEYS
        assert all(isinstance(r[k], str) for k in ("id", "path", "title", "domain", "predicted"))
        assert r["secondary"] is None or r["secondary"] in DOMAINS | set(load_taxonomy().domains)
        assert len(r["top"]) == 3 and r["top"][0][0] == r["predicted"]
        probs = [p for _, p in r["top"]]
        assert probs == sorted(probs, reverse=True) and 0 <= sum(probs) <= 1.0001
        assert isinstance(r["topics"], list) and isinstance(r["misfiled"], bool)
        assert r["misfiled"] == (r["path"] == MISFILED)
    assert runner.invoke(app, ["classify", str(FIXTURE), "--json"]).output == result.output


def test_cli_summary_names_the_misfile(runner: CliRunner) -> None:
    result = runner.invoke(app, ["classify", str(FIXTURE)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert f"{MISFILED}:4: filed under optimization, predicted image_generation" in result.output
    assert "ACL2024/travel_agent.md: no domain, predicted llm_agent" in result.output
    assert "44 notes: 1 suspected misfile(s)" in result.output


def test_cli_apply_writes_only_into_notes_without_a_domain(runner: CliRunner, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURE, corpus)
    before = corpus_bytes(corpus)
    result = runner.invoke(app, ["classify", str(corpus), "--apply"], terminal_width=200)
    assert result.exit_code == 0, result.output
    after = corpus_bytes(corpus)
    assert set(after) == set(before)  # nothing moved, nothing left behind
    for rel, data in before.items():
        if rel in UNLABELLED:  # one `domain:` line written (after `venue:`, a comment kept), every other byte kept
            old, new = data.decode(), after[rel].decode()
            assert without_domain(new) == without_domain(old)
            comment = "  # left for classify --apply" if "# left" in old else ""
            ending = "\r" if "\r\n" in old else ""
            assert domain_lines(new) == [f"domain: {UNLABELLED[rel]}{comment}{ending}"]
            assert new.split("\n").index(domain_lines(new)[0]) == new.split("\n").index(f"venue: {rel.split('/')[0]}{ending}") + 1
            assert f"{rel}: domain: {UNLABELLED[rel]}" in result.output
            note, _ = parse_note(rel, after[rel].decode())
            assert note is not None and note.domain == UNLABELLED[rel]
        else:
            assert after[rel] == data, rel
    assert "3 note(s) given a domain" in result.output
    again = runner.invoke(app, ["classify", str(corpus), "--apply", "--json"])
    assert again.exit_code == 0 and json.loads(again.output) == []
    assert corpus_bytes(corpus) == after


def test_cli_apply_leaves_predictions_below_min_confidence_for_review(runner: CliRunner, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURE, corpus)
    before = corpus_bytes(corpus)
    result = runner.invoke(app, ["classify", str(corpus), "--apply", "--json", "--min-confidence", "0.999"])
    assert result.exit_code == 0, result.output
    changes = {c["path"]: c for c in json.loads(result.output)}
    assert set(changes) == set(UNLABELLED)
    review = [path for path, c in changes.items() if not c["applied"]]
    assert review  # the fixture's predictions are not all that sure
    after = corpus_bytes(corpus)
    for path, change in changes.items():
        assert change["applied"] == (change["probability"] >= 0.999), change
        assert (after[path] != before[path]) == change["applied"], path
    listing = runner.invoke(app, ["classify", str(corpus), "--apply", "--min-confidence", "0.999"], terminal_width=200)
    for path in review:
        assert f"{path}: not written: predicted {UNLABELLED[path]} (p=" in listing.stdout
        assert "is below --min-confidence" in listing.stdout and "review it and set `domain:` by hand" in listing.stdout
    assert corpus_bytes(corpus) == after


def test_cli_evaluate(runner: CliRunner) -> None:
    result = runner.invoke(app, ["classify", str(FIXTURE), "--evaluate", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["labelled"] == 41
    for score in data["scores"]:
        assert 0 <= score["accuracy"] <= 1 and 0 <= score["macro_f1"] <= 1
    table = runner.invoke(app, ["classify", str(FIXTURE), "--evaluate"], terminal_width=120)
    assert table.exit_code == 0 and "macro-F1" in table.output and "majority" in table.output


def test_cli_empty_and_single_domain_corpora(runner: CliRunner, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert json.loads(runner.invoke(app, ["classify", str(empty), "--json"]).output) == []
    result = runner.invoke(app, ["classify", str(empty), "--evaluate"])
    assert result.exit_code == 0 and "nothing to evaluate" in result.output
    single = tmp_path / "single"
    shutil.copytree(FIXTURE / "ICML2024", single / "ICML2024")
    before = corpus_bytes(single)
    for args in (["--json"], []):  # 9 labelled notes in 1 domain: it says so, and the rules file the rest
        result = runner.invoke(app, ["classify", str(single), *args])
        assert result.exit_code == 0 and "error:" not in result.stderr, result.output
        assert "too few labelled notes to learn from: 9 note(s) with a domain, in 1 domain(s)" in result.stderr
        assert "the taxonomy's rules decide the clear cases" in result.stderr
    rows = json.loads(runner.invoke(app, ["classify", str(single), "--json"]).stdout)
    assert [(r["path"], r["predicted"]) for r in rows] == [("ICML2024/clipping_nonconvex.md", "optimization")]
    assert corpus_bytes(single) == before
    applied = runner.invoke(app, ["classify", str(single), "--apply"])
    assert applied.exit_code == 0 and "1 note(s) given a domain" in applied.stdout


def test_cli_rejects_apply_with_evaluate(runner: CliRunner) -> None:
    result = runner.invoke(app, ["classify", str(FIXTURE), "--apply", "--evaluate"])
    assert result.exit_code == 2


def test_cli_missing_corpus(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["classify", str(tmp_path / "nope")])
    assert result.exit_code == 2


def test_heavy_imports_are_lazy() -> None:
    code = ("import sys, papernotes.classify.learned, papernotes.cli.classify; "
            "assert 'sklearn' not in sys.modules and 'scipy' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
