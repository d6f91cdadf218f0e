"""``classify --engine openai --batch``: the Batch API end to end (scripted server), resumed after ``kill -9``.

The same conversation runner as ``draft --batch`` (``tests/test_draft_batch.py``):
every request of a round goes into one batch, the repair round into another,
and a re-run after an interruption polls or creates the batch that was under way
instead of paying twice.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from llm_server import LLMServer, Reply, error_status, ok, title_of
from test_classify_llm import GOOD, STUBS, answers, domains, make_corpus
from pausing import killed_at

from papernotes.cli import app

runner = CliRunner()
ATTENTION = "Attention Is All You Need"
APPLIED = {"ICLR2022/lora.md": "llm_efficiency", "CVPR2016/resnet.md": None, "NeurIPS2017/attention.md": "llm_nlp"}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)


def batch_corpus(root: Path, server: LLMServer) -> Path:
    corpus = make_corpus(root, None)
    (corpus / "papernotes.toml").write_text(
        f'[llm]\nbase_url = "{server.base_url}"\nmodel = "test-model"\nbatch_poll_seconds = 0.01\n'
        "max_retries = 1\n", encoding="utf-8")
    return corpus


def repaired_once(body: dict[str, Any]) -> Reply:
    """Good answers, except a first reply about Attention that names no slug (its repair request gets GOOD's)."""
    repairing = any(m.get("role") == "assistant" for m in body["messages"])
    if title_of(body) == ATTENTION and not repairing:
        return ok('{"domain": "natural language processing", "confidence": 0.9}')
    return answers(GOOD)(body)


def lines(server: LLMServer, n: int) -> list[dict[str, Any]]:
    """The requests of the ``n``-th batch created (0-based)."""
    return [json.loads(x) for x in server.files[server.batch_creates[n]["input_file_id"]].splitlines()]


def batch_rows(corpus: Path) -> list[tuple[str, dict[str, str]]]:
    with sqlite3.connect(corpus / ".papernotes" / "llm-cache.sqlite") as db:
        rows = db.execute("SELECT state, stubs FROM batches ORDER BY id").fetchall()
    return [(state, json.loads(stubs)) for state, stubs in rows]


def test_batch_with_a_repair_round_then_everything_from_the_cache(tmp_path: Path) -> None:
    with LLMServer(repaired_once) as server:
        corpus = batch_corpus(tmp_path / "c", server)
        lora = hashlib.sha1((corpus / "ICLR2022/lora.md").read_bytes()).hexdigest()
        result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--batch", "--apply"])
        assert result.exit_code == 0, result.output
        assert server.requests == []  # nothing went live
        assert len(server.batch_creates) == 2 and len(server.batch_requests) == 4
        first, second = lines(server, 0), lines(server, 1)
        assert len(first) == 3 and len(second) == 1  # every note, then the one repair
        assert {line["url"] for line in first + second} == {"/v1/chat/completions"}
        assert first[0]["body"]["model"] == "test-model"
        repair = second[0]["body"]["messages"]
        assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
        assert title_of(second[0]["body"]) == ATTENTION
        assert "`domain` must be one of the slugs listed, got 'natural language processing'" in repair[-1]["content"]
        assert domains(corpus) == APPLIED
        assert ("model test-model: 4 request(s) (4 by batch in 2 new batch(es), 50% price), 0 from cache, "
                "0 retried, 1 repaired") in result.stderr
        rows = batch_rows(corpus)
        assert [state for state, _ in rows] == ["collected", "collected"]
        assert set(rows[0][1]) == {rel for rel, _ in STUBS.values()} and rows[0][1]["ICLR2022/lora.md"] == lora
        assert list(rows[1][1]) == ["NeurIPS2017/attention.md"]

        # the note left for review is asked again: both rounds from the cache, no batch made
        again = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--batch", "--json"])
        assert again.exit_code == 0, again.output
        assert [r["predicted"] for r in json.loads(again.stdout)] == ["others"]
        assert len(server.batch_creates) == 2 and "0 request(s), 1 from cache" in again.stderr


def test_a_failed_request_fails_its_note_and_is_sent_again(tmp_path: Path) -> None:
    table = dict(GOOD, **{ATTENTION: error_status(500)})
    with LLMServer(answers(table)) as server:
        corpus = batch_corpus(tmp_path / "c", server)
        result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--batch", "--apply"])
        assert result.exit_code == 1, result.output
        assert "NeurIPS2017/attention.md: error: not classified: HTTP 500: scripted 500" in result.stderr
        assert domains(corpus)["ICLR2022/lora.md"] == "llm_efficiency"
        server.responder = answers(GOOD)
        again = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--batch", "--apply"])
    assert again.exit_code == 0, again.output
    assert domains(corpus) == APPLIED
    # only the failed request goes again: the note left for review is answered from the cache
    assert [title_of(line["body"]) for line in lines(server, 1)] == [ATTENTION]
    assert "1 request(s) (1 by batch in 1 new batch(es), 50% price), 1 from cache" in again.stderr


def test_batch_is_for_the_openai_engine(tmp_path: Path) -> None:
    result = runner.invoke(app, ["classify", str(tmp_path), "--batch"])
    assert result.exit_code == 2 and "use it with --engine openai" in result.stderr


# ---------------------------------------------------------------- kill -9 and resume

@pytest.mark.parametrize(("point", "states"), [
    ("draft.batch.created", ["uploaded"]),  # the first batch created, its id not recorded yet
    ("draft.batch.uploaded#2", ["collected", "uploaded"]),  # the repair round's input up, its batch not created
])
def test_kill_9_during_a_batch_then_resume(tmp_path: Path, point: str, states: list[str]) -> None:
    with LLMServer(repaired_once) as server:
        corpus = batch_corpus(tmp_path / "c", server)
        killed_at(point, corpus, tmp_path, ("classify", "--engine", "openai", "--batch", "--apply"))
        assert set(domains(corpus).values()) == {None}  # nothing written yet
        assert [state for state, _ in batch_rows(corpus)] == states
        result = runner.invoke(app, ["classify", str(corpus), "--engine", "openai", "--batch", "--apply"])
        assert result.exit_code == 0, result.output
        assert domains(corpus) == APPLIED
        # no duplicate: one upload and one batch for the questions, one of each for the repair
        assert len(server.uploads) == 2 and len(server.batch_creates) == 2
        assert len(server.batch_requests) == 4 and server.requests == []  # every request answered once
        assert [state for state, _ in batch_rows(corpus)] == ["collected", "collected"]
        # the first batch, created by the killed run, is found again rather than counted; or its replies,
        # collected before the kill, come from the cache
        cached = 0 if point == "draft.batch.created" else 3
        assert (f"model test-model: {4 - cached} request(s) ({4 - cached} by batch in 1 new batch(es), 50% price), "
                f"{cached} from cache, 0 retried, 1 repaired") in result.stderr
