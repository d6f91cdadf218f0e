"""``draft --batch``: the Batch API end to end against the scripted server, resumed after ``kill -9``."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")

sys.path.insert(0, str(Path(__file__).parent))
import pdfgen  # noqa: E402
from llm_server import LLMServer, Reply, default_responder, error_status, ok, title_of  # noqa: E402
from pausing import killed_at  # noqa: E402
from test_draft import llm_settings, make_corpus, statuses  # noqa: E402
from test_draft_paper import REL, TITLE, last_user, results_draft  # noqa: E402

from papernotes.cli import app  # noqa: E402
from papernotes.intake.draft import draft  # noqa: E402
from papernotes.corpus.frontmatter import read  # noqa: E402
from papernotes.intake.llm import LLMError  # noqa: E402

runner = CliRunner()
SWE = "ICLR2024/swe_bench_can_language_models_resolve_real_world_github_issues.md"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)


def batch_corpus(tmp_path: Path, server: LLMServer) -> Path:
    corpus = make_corpus(tmp_path / "c", llm_settings(server, batch_poll_seconds=0.01), language="en")
    pdfgen.sample_paper((corpus / REL).with_suffix(".pdf"))
    return corpus


def wrong_then_right(body: dict[str, Any]) -> Reply:
    if title_of(body) != TITLE:
        return default_responder(body)
    return ok(results_draft("0.4642" if "not in the paper" in last_user(body) else "0.673"))


def batch_rows(corpus: Path) -> list[tuple[str, str, str, dict[str, str]]]:
    with sqlite3.connect(corpus / ".papernotes" / "llm-cache.sqlite") as db:
        rows = db.execute("SELECT batch_id, input_file, state, stubs FROM batches ORDER BY id").fetchall()
    return [(b, f, s, json.loads(stubs)) for b, f, s, stubs in rows]


def test_batch_end_to_end_with_a_repair_round(tmp_path: Path) -> None:
    with LLMServer(wrong_then_right) as server:
        corpus = batch_corpus(tmp_path, server)
        stubs = {p: (corpus / p).read_text() for p in statuses(corpus)}
        digest = hashlib.sha1((corpus / REL).read_bytes()).hexdigest()
        result = runner.invoke(app, ["draft", str(corpus), "--batch"])
        assert result.exit_code == 0, result.output
        assert server.requests == []  # nothing went live
        assert [u["purpose"] for u in server.uploads] == ["batch", "batch"]
        first, second = ([json.loads(x) for x in server.files[c["input_file_id"]].splitlines()]
                         for c in server.batch_creates)
        assert len(first) == 4 and len(second) == 1  # the drafts, then the one grounding repair
        assert all(c["endpoint"] == "/v1/chat/completions" and c["completion_window"] == "24h"
                   for c in server.batch_creates)
        assert {line["url"] for line in first} == {"/v1/chat/completions"} and first[0]["body"]["model"] == "test-model"
        assert "not in the paper" in second[0]["body"]["messages"][-1]["content"]
        assert len(server.batch_requests) == 5
        text = " ".join(result.stdout.split())
        assert "4 note(s) drafted with openai_batch" in text
        assert "grounding: 1 note(s) checked against their paper" in text and "1 sent back for a repair" in text
        # 5 replies × (100 in, 50 out) at (0.5, 1.5) per 1k tokens, half price; the one draft sent back for its
        # numbers is the one repair the model line counts
        assert ("model test-model: 5 request(s) (5 by batch in 2 new batch(es), 50% price), 0 from cache, "
                "0 retried, 1 repaired; tokens 500 in + 250 out (cache saved 0); cost $0.3125") in text
        assert set(statuses(corpus).values()) == {"drafted"}
        front, body, _ = read((corpus / REL).read_text())
        assert front is not None and front["draft_engine"] == "openai_batch"
        assert front["grounding"]["unsupported"] == 0 and "| Ours | 0.4642 | 0.5131 |" in body
        rows = batch_rows(corpus)
        assert [(b, s) for b, _, s, _ in rows] == [("batch_1", "collected"), ("batch_2", "collected")]
        assert rows[0][3][REL] == digest and len(rows[0][3]) == 4 and list(rows[1][3]) == [REL]

        # the same stubs again (e.g. restored from version control): every reply from the cache, no batch made
        for path, text in stubs.items():
            (corpus / path).write_text(text)
        again = draft(corpus, batch=True)
        assert again.usage is not None and (again.usage.batches, again.usage.cache_hits) == (0, 5)
        assert len(server.batch_creates) == 2 and again.cost == 0 and len(again.drafted) == 4


def test_a_failed_request_fails_its_stub_and_is_sent_again_next_run(tmp_path: Path) -> None:
    def swe_fails(body: dict[str, Any]) -> Reply:
        return error_status(500) if title_of(body).startswith("SWE-bench") else default_responder(body)

    with LLMServer(swe_fails) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server, batch_poll_seconds=0.01))
        result = draft(corpus, batch=True)
        assert len(result.drafted) == 3 and [(p, r) for p, r in result.failed] == [(SWE, "HTTP 500: scripted 500")]
        server.responder = default_responder
        again = draft(corpus, batch=True)
    assert again.drafted == (SWE,) and len(server.batch_creates) == 2
    assert len(server.files[server.batch_creates[1]["input_file_id"]].splitlines()) == 1  # only its request
    assert len(server.batch_requests) == 5


def test_a_failed_batch_stops_the_run_and_the_next_run_submits_again(tmp_path: Path) -> None:
    with LLMServer(batch_statuses=("validating", "failed")) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server, batch_poll_seconds=0.01))
        with pytest.raises(LLMError, match="batch batch_1 failed: invalid_request: scripted failure"):
            draft(corpus, batch=True)
        assert set(statuses(corpus).values()) == {"stub"}
        server.batch_statuses = ("validating", "completed")
        result = draft(corpus, batch=True)
    assert len(result.drafted) == 4 and len(server.batch_creates) == 2


def test_an_expired_batch_fails_what_did_not_run(tmp_path: Path) -> None:
    with LLMServer(batch_statuses=("in_progress", "expired")) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server, batch_poll_seconds=0.01))
        result = draft(corpus, batch=True)
    assert len(result.drafted) == 2 and len(result.failed) == 2
    assert all("batch_1 expired before this request ran; re-run" in reason for _, reason in result.failed)


# ---------------------------------------------------------------- kill -9 and resume

@pytest.mark.parametrize(("point", "state"), [
    ("draft.batch.uploaded", "uploaded"),  # the input file is up, the batch not created
    ("draft.batch.created", "uploaded"),  # created, but its id not recorded yet
    ("draft.batch.poll", "submitted"),  # under way
])
def test_kill_9_during_a_batch_then_resume(tmp_path: Path, point: str, state: str) -> None:
    with LLMServer(wrong_then_right, batch_statuses=("validating", "in_progress", "finalizing",
                                                     "completed")) as server:
        corpus = batch_corpus(tmp_path, server)
        stubs = {p: (corpus / p).read_text() for p in statuses(corpus)}
        killed_at(point, corpus, tmp_path)
        assert {p: (corpus / p).read_text() for p in stubs} == stubs  # nothing written yet
        assert [s for _, _, s, _ in batch_rows(corpus)] == [state] and len(server.uploads) == 1
        assert len(server.batch_creates) == (0 if point == "draft.batch.uploaded" else 1)
        result = draft(corpus, batch=True)
        assert set(statuses(corpus).values()) == {"drafted"} and len(result.drafted) == 4
        # no duplicate: one upload and one batch for the drafts, one of each for the repair round
        assert len(server.uploads) == 2 and len(server.batch_creates) == 2
        assert len(server.batch_requests) == 5  # every request answered once
        assert [s for _, _, s, _ in batch_rows(corpus)] == ["collected", "collected"]
        assert result.usage is not None and result.usage.batch_requests == 5
        assert result.usage.batches == (2 if point == "draft.batch.uploaded" else 1)
