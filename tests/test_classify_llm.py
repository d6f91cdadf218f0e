"""``classify --engine openai``: a language model chooses among the taxonomy's domains, over real HTTP.

The scripted server (``tests/llm_server.py``) answers each request by the paper
title in it, so every test says exactly what the model replied and checks what
was written, listed for review or reported.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from llm_server import LLMServer, Reply, error_status, ok, title_of
from papernotes.classify.llm import domain_lines, validate_choice
from papernotes.cli import app
from papernotes.corpus.frontmatter import read
from papernotes.taxonomy import load_taxonomy

runner = CliRunner()
TAXONOMY = load_taxonomy()
STUBS = {  # title -> (file, abstract)
    "LoRA: Low-Rank Adaptation of Large Language Models": ("ICLR2022/lora.md", "We freeze the weights and train "
                                                           "low-rank matrices."),
    "Deep Residual Learning for Image Recognition": ("CVPR2016/resnet.md", "Residual nets are easier to optimize."),
    "Attention Is All You Need": ("NeurIPS2017/attention.md", "The Transformer, based solely on attention."),
}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)


def make_corpus(root: Path, server: LLMServer | None, labelled: bool = False) -> Path:
    for title, (rel, abstract) in STUBS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: {json.dumps(title)}\nvenue: {rel.split('/')[0]}\nabstract: {abstract}\n"
                        "status: stub\n---\n", encoding="utf-8")
    if labelled:
        (root / "ICLR2022/llm.md").write_text("---\ntitle: Labelled\nvenue: ICLR2022\ndomain: llm_nlp\n---\n",
                                             encoding="utf-8")
    if server is not None:
        (root / "papernotes.toml").write_text(
            f'[llm]\nbase_url = "{server.base_url}"\nmodel = "test-model"\nrequests_per_minute = 6000.0\n'
            "max_retries = 1\n", encoding="utf-8")
    return root


def answers(table: dict[str, Any]) -> Callable[[dict[str, Any]], Reply]:
    """A responder replying ``table[title]`` (a dict becomes JSON, a Reply is sent as it is)."""
    def respond(body: dict[str, Any]) -> Reply:
        value = table[title_of(body)]
        return value if isinstance(value, Reply) else ok(json.dumps(value))
    return respond


GOOD = {
    "LoRA: Low-Rank Adaptation of Large Language Models": {"domain": "llm_efficiency", "confidence": 0.92,
                                                           "second": "llm_nlp"},
    "Deep Residual Learning for Image Recognition": {"domain": "others", "confidence": 0.45, "second": "3d_vision"},
    "Attention Is All You Need": {"domain": "llm_nlp", "confidence": 0.9, "second": None},
}


def domains(root: Path) -> dict[str, str | None]:
    out = {}
    for _, (rel, _) in STUBS.items():
        front, _, _ = read((root / rel).read_text(encoding="utf-8"))
        out[rel] = front.get("domain")
    return out


@pytest.fixture()
def server() -> Iterator[LLMServer]:
    with LLMServer(answers(GOOD)) as s:
        yield s


# ---------------------------------------------------------------- validation (pure)

def test_the_prompt_lists_every_domain_of_the_taxonomy() -> None:
    lines = domain_lines(TAXONOMY).split("\n")
    assert len(lines) == len(TAXONOMY.domains) and lines[0].startswith("optimization: Optimization")


@pytest.mark.parametrize(("reply", "problem"), [
    ('{"domain": "optimisation", "confidence": 0.8}', "`domain` must be one of the slugs listed, got 'optimisation' "
                                                      "(did you mean 'optimization'?)"),
    ('{"domain": "llm_nlp", "confidence": 80}', "`confidence` must be a number from 0 to 1, got 80"),
    ('{"domain": "llm_nlp", "confidence": 0.8, "second": "nope"}', "`second` must be a slug listed or null"),
    ("no json here", "the reply is not valid JSON"),
])
def test_bad_replies_are_named(reply: str, problem: str) -> None:
    choice, found = validate_choice(reply, TAXONOMY)
    assert choice is None and problem in found


def test_names_and_case_are_read_as_slugs() -> None:
    choice, _ = validate_choice('```json\n{"domain": "Reinforcement Learning", "confidence": 1, "second": "LLM_NLP"}'
                                "\n```", TAXONOMY)
    assert choice is not None and (choice.domain, choice.confidence, choice.second) == \
        ("reinforcement_learning", 1.0, "llm_nlp")


# ---------------------------------------------------------------- the command

def test_apply_writes_confident_choices_and_lists_the_rest(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", server)
    result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--apply"])
    assert result.exit_code == 0, result.output
    assert domains(corpus) == {"ICLR2022/lora.md": "llm_efficiency", "CVPR2016/resnet.md": None,
                               "NeurIPS2017/attention.md": "llm_nlp"}
    assert "ICLR2022/lora.md: domain: llm_efficiency (p=0.92)" in result.stdout
    assert ("CVPR2016/resnet.md: not written: predicted others (p=0.45, then 3d_vision (0.55)) is below "
            "--min-confidence 0.80") in result.stdout
    assert "2 note(s) given a domain, 1 left for review" in result.stdout
    assert len(server.requests) == 3
    system = server.requests[0].body["messages"][0]["content"]
    assert all(f"{slug}:" in system for slug in TAXONOMY.domains) and '"domain"' in system
    user = next(r for r in server.requests if r.title.startswith("LoRA")).user_text
    assert "Abstract: We freeze the weights" in user
    # the one left for review is asked again from the cache, not the model, and written at a lower threshold
    again = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--apply", "--min-confidence", "0.4",
                                "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == [{"path": "CVPR2016/resnet.md", "domain": "others", "probability": 0.45,
                                        "why": [], "applied": True}]
    assert len(server.requests) == 3 and "1 from cache" in again.stderr
    nothing = runner.invoke(app, ["classify", str(corpus), "--engine", "openai"])
    assert nothing.exit_code == 0 and "every note of" in nothing.stdout and len(server.requests) == 3


def test_listing_without_apply_writes_nothing(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", server, labelled=True)
    result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["path"]: r for r in json.loads(result.stdout)}
    assert set(rows) == {rel for rel, _ in STUBS.values()}  # the labelled note is not sent
    assert rows["ICLR2022/lora.md"]["top"] == [["llm_efficiency", 0.92], ["llm_nlp", 0.08]]
    assert set(domains(corpus).values()) == {None}


def test_a_bad_reply_gets_one_repair(tmp_path: Path) -> None:
    table = dict(GOOD)
    calls: dict[str, int] = {}

    def respond(body: dict[str, Any]) -> Reply:
        title = title_of(body)
        calls[title] = calls.get(title, 0) + 1
        if title.startswith("Attention") and calls[title] == 1:
            return ok('{"domain": "natural language processing", "confidence": 0.9}')
        return answers(table)(body)

    with LLMServer(respond) as server:
        corpus = make_corpus(tmp_path / "c", server)
        result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--apply"])
    assert result.exit_code == 0, result.output
    assert domains(corpus)["NeurIPS2017/attention.md"] == "llm_nlp" and "1 repaired" in result.stderr
    repair = [r for r in server.requests if r.title.startswith("Attention")][-1].body["messages"]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert "`domain` must be one of the slugs listed, got 'natural language processing'" in repair[-1]["content"]


def test_a_reply_that_stays_unusable_fails_that_note_only(tmp_path: Path) -> None:
    table = dict(GOOD, **{"Attention Is All You Need": {"domain": "transformers", "confidence": 0.9}})
    with LLMServer(answers(table)) as server:
        corpus = make_corpus(tmp_path / "c", server)
        result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--apply"])
        assert result.exit_code == 1, result.output
        assert result.stderr.count("error:") == 1
        assert ("NeurIPS2017/attention.md: error: not classified: the model's reply cannot be used, even after a "
                "repair request: `domain` must be one of the slugs listed, got 'transformers'") in result.stderr
        assert domains(corpus) == {"ICLR2022/lora.md": "llm_efficiency", "CVPR2016/resnet.md": None,
                                   "NeurIPS2017/attention.md": None}
        asked = len(server.requests)
        runner.invoke(app, ["classify", str(corpus), "--engine", "openai"])
        assert len(server.requests) == asked + 2  # its replies were forgotten: asked again (and repaired again)


def test_an_endpoint_that_is_down_is_named(tmp_path: Path) -> None:
    with LLMServer(lambda body: error_status(503)) as server:
        corpus = make_corpus(tmp_path / "c", server)
        result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--apply"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"error: {server.base_url}: HTTP 503 (gave up after 2 attempts); stopped after 3 "
                             "requests in a row failed (finished notes are saved; re-run to continue)\n")
    assert set(domains(corpus).values()) == {None}


def test_one_failed_request_fails_its_note(tmp_path: Path) -> None:
    table = dict(GOOD, **{"Attention Is All You Need": error_status(400)})
    with LLMServer(answers(table)) as server:
        corpus = make_corpus(tmp_path / "c", server)
        result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--apply"])
    assert result.exit_code == 1, result.output
    assert f"NeurIPS2017/attention.md: error: not classified: {server.base_url}: HTTP 400" in result.stderr
    assert domains(corpus)["ICLR2022/lora.md"] == "llm_efficiency"


def test_no_model_configured_says_where_and_what_else(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c", None)
    result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("error") == 1 and result.stderr.startswith("error: no language model configured")
    assert "papernotes.toml does not exist" in result.stderr and "PAPERNOTES_MODEL" in result.stderr
    assert "classify offline without `--engine`: the taxonomy's rules file the clear cases" in result.stderr


def test_evaluate_is_for_the_learned_classifier(tmp_path: Path) -> None:
    result = runner.invoke(app, ["classify", str(tmp_path), "--engine", "openai", "--evaluate"])
    assert result.exit_code == 2 and "--evaluate measures the learned classifier" in result.stderr
    unknown = runner.invoke(app, ["classify", str(tmp_path), "--engine", "gpt"])
    assert unknown.exit_code == 2
