"""Draft: extractive engine offline; openai engine over real HTTP against tests/llm_server.py."""
from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from papernotes.cli import app
from papernotes.intake.draft import SECTION_KEYS, draft, find_stubs, validate_reply
from papernotes.intake.extractive import Keyphraser, extract, split_sentences, textrank
from papernotes.corpus.frontmatter import dump, read
from papernotes.intake.ingest import ingest
from papernotes.intake.llm import LLMError, RateLimiter, retry_after
from papernotes.corpus.parse import parse_note
from papernotes.intake.sources import SourceRequest

sys.path.insert(0, str(Path(__file__).parent))
from pausing import killed_at  # noqa: E402
from llm_server import (  # noqa: E402
    COMPLETION_TOKENS,
    PROMPT_TOKENS,
    LLMServer,
    Reply,
    default_responder,
    draft_json,
    error_status,
    ok,
    slow,
    title_of,
)

FIXTURES = Path(__file__).parent / "fixtures" / "sources"
runner = CliRunner()

LORA = ("An important paradigm of natural language processing consists of large-scale pre-training on general "
        "domain data and adaptation to particular tasks or domains. As we pre-train larger models, full fine-tuning, "
        "which retrains all model parameters, becomes less feasible. We propose Low-Rank Adaptation, or LoRA, which "
        "freezes the pre-trained model weights and injects trainable rank decomposition matrices into each layer of "
        "the Transformer architecture, greatly reducing the number of trainable parameters for downstream tasks. "
        "Compared to GPT-3 175B fine-tuned with Adam, LoRA can reduce the number of trainable parameters by 10,000 "
        "times and the GPU memory requirement by 3 times.")
TOT_ZH = ("语言模型越来越多地被用于各类任务的通用问题求解，但推理时仍局限于逐词元、从左到右的决策过程。"
          "这意味着它们在需要探索、战略前瞻或初始决策起关键作用的任务上可能表现不佳。"
          "为克服这些挑战，我们提出了一种新的语言模型推理框架——思维树（ToT），它推广了流行的思维链提示方法。"
          "实验表明，ToT 显著提升了语言模型在三个需要规划或搜索的新任务上的问题求解能力。"
          "例如在 24 点游戏中，使用思维链提示的 GPT-4 仅解决了 4% 的任务，而我们的方法成功率达到 74%。")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)


def make_corpus(root: Path, llm: dict[str, object] | None = None, language: str = "zh") -> Path:
    """Four ICLR 2024 stubs from the recorded OpenReview response, and a papernotes.toml."""
    root.mkdir(parents=True, exist_ok=True)
    lines = [f'language = "{language}"']
    if llm is not None:
        lines.append("[llm]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in llm.items()]
    (root / "papernotes.toml").write_text("\n".join(lines) + "\n")
    ingest(root, "openreview", SourceRequest(("ICLR.cc/2024/Conference",), FIXTURES / "openreview_iclr2024.json"))
    return root


def llm_settings(server: LLMServer, **extra: object) -> dict[str, object]:
    return {"base_url": server.base_url, "model": "test-model", "requests_per_minute": 6000.0,
            "price_per_1k_input": 0.5, "price_per_1k_output": 1.5, "max_retries": 3, **extra}


def statuses(corpus: Path) -> dict[str, str]:
    out = {}
    for path in sorted(corpus.rglob("*.md")):
        front, _, _ = read(path.read_text(encoding="utf-8"))
        out[path.relative_to(corpus).as_posix()] = (front or {}).get("status", "")
    return out


@pytest.fixture()
def server() -> Iterator[LLMServer]:
    with LLMServer() as s:
        yield s


# ---------------------------------------------------------------- validation (pure)

def test_valid_reply_is_accepted() -> None:
    drafted, errors = validate_reply(draft_json("SWE-bench"))
    assert errors == [] and drafted is not None
    assert drafted.ratings == {"novelty": 4, "experiments": 3, "writing": 5, "value": 4}
    assert set(drafted.sections) == set(SECTION_KEYS) and drafted.keywords == ("test keyword", "SWE-bench")


def test_fenced_json_and_list_sections_are_accepted() -> None:
    reply = json.loads(draft_json("X"))
    reply["sections"]["method"] = ["first step", "second step"]
    drafted, errors = validate_reply("```json\n" + json.dumps(reply) + "\n```")
    assert errors == [] and drafted is not None and drafted.sections["method"] == "- first step\n- second step"


def test_headings_inside_sections_are_demoted() -> None:
    reply = json.loads(draft_json("X"))
    reply["sections"]["method"] = "## Overview\ntext\n# Big\nmore"
    drafted, _ = validate_reply(json.dumps(reply))
    assert drafted is not None and drafted.sections["method"] == "### Overview\ntext\n### Big\nmore"


@pytest.mark.parametrize(("reply", "expected"), [
    ("not json", "the reply is not valid JSON"),
    ("[1, 2]", "the reply must be one JSON object"),
    (draft_json("X", summary="First sentence. Second sentence."), "`summary` must be exactly one sentence, it has 2"),
    (draft_json("X", summary=None), "`summary` is missing or empty"),
    (draft_json("X", keywords="a, b"), "`keywords` must be a non-empty list of strings"),
    (draft_json("X", sections={"background": "b"}), "`sections.method` is missing or empty"),
    (draft_json("X", ratings={"novelty": 6, "experiments": 3, "writing": 5, "value": 4}),
     "`ratings.novelty` must be an integer from 1 to 5, got 6"),
    (draft_json("X", ratings={"novelty": 4.5, "experiments": True, "writing": 5, "value": 4}),
     "`ratings.experiments` must be an integer from 1 to 5, got true"),
    (draft_json("X", ratings=None), "`ratings` must be an object"),
])
def test_invalid_replies_say_what_is_wrong(reply: str, expected: str) -> None:
    drafted, errors = validate_reply(reply)
    assert drafted is None and any(e.startswith(expected) for e in errors), errors


# ---------------------------------------------------------------- extractive (pure)

def test_sentence_splitting() -> None:
    text = "We use e.g. Adam (Kingma et al. 2015) and J. Smith's method. Accuracy is 3.5% higher. Done!"
    assert split_sentences(text) == ["We use e.g. Adam (Kingma et al. 2015) and J. Smith's method.",
                                     "Accuracy is 3.5% higher.", "Done!"]
    assert len(split_sentences(TOT_ZH)) == 5
    assert split_sentences("第一句。第二句！Third sentence here.") == ["第一句。", "第二句！", "Third sentence here."]


def test_textrank_prefers_the_contribution_sentence() -> None:
    sentences = split_sentences(LORA)
    scores = textrank(sentences, title="LoRA: Low-Rank Adaptation of Large Language Models")
    assert sentences[max(range(len(sentences)), key=scores.__getitem__)].startswith("We propose Low-Rank Adaptation")
    assert abs(sum(scores) - 1.0) < 1e-6


def test_extract_sections_and_keyphrases() -> None:
    other = "Diffusion models generate images by iterative denoising. We propose a faster sampler."
    found = extract("LoRA: Low-Rank Adaptation of Large Language Models", LORA, Keyphraser([LORA, other]))
    assert found.summary.startswith("We propose Low-Rank Adaptation")
    assert "LoRA" in found.keywords and "Low-Rank Adaptation" in found.keywords
    assert found.sections["background"][0].startswith("An important paradigm")
    assert any(s.startswith("We propose") for s in found.sections["method"])
    assert any("10,000 times" in s for s in found.sections["experiments"])
    assert found.sections["limitations"] == ()  # the abstract says nothing about them


def test_extract_chinese() -> None:
    found = extract("思维树：用大语言模型进行深思熟虑的问题求解", TOT_ZH, Keyphraser([TOT_ZH]))
    assert found.summary in split_sentences(TOT_ZH)
    assert any("74%" in s for s in found.sections["experiments"])
    assert any("我们提出" in s for s in found.sections["method"])
    assert found.keywords and all(len(k) >= 2 for k in found.keywords)


# ---------------------------------------------------------------- extractive engine

def test_extractive_engine_drafts_offline(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    result = draft(corpus, engine="extractive", lang="en")
    assert len(result.drafted) == 4 and result.failed == () and result.usage is None
    rel = "ICLR2024/swe_bench_can_language_models_resolve_real_world_github_issues.md"
    text = (corpus / rel).read_text()
    note, problems = parse_note(rel, text)
    assert note is not None and note.status == "drafted" and note.ratings == ()
    assert [s.key for s in note.sections] == ["summary", *SECTION_KEYS]
    assert [d.code for d in problems] == ["missing-field"]  # only the domain, which classify adds
    front, body, _ = read(text)
    assert front is not None and front["draft_engine"] == "extractive" and "ratings" not in front
    assert front["summary"] in front["abstract"]
    assert "*From the abstract (extractive draft, to be edited)*" in body
    assert "## Ratings" not in body
    assert front["keywords"][:1] != [] and "Language models" in front["keywords"]  # author keywords kept


def test_a_drafted_stub_keeps_the_users_comments_and_key_order(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    note = corpus / "ICLR2022" / "lora.md"
    note.parent.mkdir(parents=True)
    (corpus / "papernotes.toml").write_text('language = "en"\n')
    head = ("---\n# my reading list, week 3\ntitle: 'LoRA: Low-Rank Adaptation'  # short title\nvenue: ICLR2022\n"
            "status: stub   # draft me\nmine: [a, b]\n" + dump({"abstract": LORA}) + "---\n")
    note.write_text(head + "\nMy own paragraph.\n", encoding="utf-8")
    result = draft(corpus, engine="extractive")
    assert result.drafted == ("ICLR2022/lora.md",)
    text = note.read_text(encoding="utf-8")
    lines = text.split("\n")
    for kept in ("# my reading list, week 3", "title: 'LoRA: Low-Rank Adaptation'  # short title", "venue: ICLR2022",
                 "status: drafted   # draft me", "mine: [a, b]"):
        assert kept in lines
    front, body, _ = read(text)
    assert list(front) == ["title", "venue", "lang", "summary", "keywords", "status", "draft_engine", "draft_digest",
                           "mine", "abstract", "draft_date"]
    assert front["summary"] in LORA and front["draft_engine"] == "extractive"
    assert body.startswith("\n## TL;DR\n") and body.endswith("\n\nMy own paragraph.\n")


def test_extractive_uses_chinese_headings_by_default(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    draft(corpus, engine="extractive", limit=1)
    drafted = [p for p, s in statuses(corpus).items() if s == "drafted"]
    assert len(drafted) == 1
    body = (corpus / drafted[0]).read_text()
    assert "## 一句话总结" in body and "## 研究背景与动机" in body and "摘自摘要" in body


# ---------------------------------------------------------------- openai engine over HTTP

def test_openai_drafts_every_stub(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", llm_settings(server))
    result = draft(corpus)
    assert len(result.drafted) == 4 and result.failed == () and result.repaired == 0
    assert len(server.requests) == 4 and {r.body["model"] for r in server.requests} == {"test-model"}
    assert all(r.body["messages"][0]["role"] == "system" and "JSON" in r.body["messages"][0]["content"]
               for r in server.requests)
    usage = result.usage
    assert usage is not None
    assert (usage.requests, usage.prompt_tokens, usage.completion_tokens) == (4, 4 * PROMPT_TOKENS,
                                                                           4 * COMPLETION_TOKENS)
    assert result.cost == pytest.approx((4 * PROMPT_TOKENS * 0.5 + 4 * COMPLETION_TOKENS * 1.5) / 1000)
    rel = "ICLR2024/lets_verify_step_by_step.md"
    note, _ = parse_note(rel, (corpus / rel).read_text())
    assert note is not None and note.status == "drafted"
    assert note.lang == "en"  # the scripted model writes English, whatever the (zh) headings: `lang` says so
    assert dict(note.ratings) == {"novelty": 4.0, "experiments": 3.0, "writing": 5.0, "value": 4.0}
    assert note.summary == "Let's Verify Step by Step is summarised in one sentence for the test suite."
    assert [s.key for s in note.sections] == ["summary", *SECTION_KEYS, "ratings"]
    assert all(s.chars > 0 for s in note.sections)


def test_repair_request_fixes_a_bad_reply(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", llm_settings(server))
    server.queue(ok("Sure! Here is the note you asked for."))
    result = draft(corpus)
    assert len(result.drafted) == 4 and result.repaired == 1 and len(server.requests) == 5
    [repair] = [r.body["messages"] for r in server.requests if len(r.body["messages"]) > 2]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert repair[2]["content"] == "Sure! Here is the note you asked for."
    assert "the reply is not valid JSON" in repair[3]["content"]


def test_two_bad_replies_leave_a_stub_with_the_error(tmp_path: Path) -> None:
    def missing_method(body: dict) -> Reply:
        title = title_of(body)
        if title.startswith("SWE-bench"):
            return ok(draft_json(title, sections={"background": "only this"}))
        return default_responder(body)

    with LLMServer(missing_method) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server))
        result = draft(corpus)
        rel = "ICLR2024/swe_bench_can_language_models_resolve_real_world_github_issues.md"
        assert len(result.drafted) == 3 and [p for p, _ in result.failed] == [rel]
        front, body, _ = read((corpus / rel).read_text())
        assert front is not None and front["status"] == "stub" and body == ""
        assert "`sections.method` is missing or empty" in front["draft_error"]
        assert sum(r.title.startswith("SWE-bench") for r in server.requests) == 2
        # failed replies are not cached: the next run asks the model again
        before = len(server.requests)
        again = draft(corpus)
        assert len(server.requests) == before + 2 and [p for p, _ in again.failed] == [rel]


def test_retries_on_429_and_500(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", llm_settings(server, concurrency=1))
    server.queue(error_status(429, retry_after=1), error_status(500))
    result = draft(corpus, limit=1, backoff_base=0.05)
    assert len(result.drafted) == 1 and result.usage is not None and result.usage.retries == 2
    first, second, third = server.requests
    # Retry-After honoured (a lower bound: the client cannot have waited less); 500: the backoff, at most
    # backoff_base × 2 × 1.5 with jitter
    waits = result.usage.retry_waits
    assert len(waits) == 2 and waits[0] == 1.0 and 0.05 <= waits[1] <= 0.15, waits
    assert second.at - first.at >= 0.95
    assert first.body == second.body == third.body


def test_timeout_is_retried(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", llm_settings(server, timeout=0.5))
    server.queue(slow(3.0))
    result = draft(corpus, limit=1, backoff_base=0.05)
    assert len(result.drafted) == 1 and result.usage is not None and result.usage.retries == 1
    assert len(server.requests) == 2


def test_giving_up_keeps_the_stub(tmp_path: Path) -> None:
    with LLMServer(lambda body: error_status(503)) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server, max_retries=1))
        result = draft(corpus, limit=1, backoff_base=0.01)
    assert result.drafted == () and len(server.requests) == 2
    [(rel, reason)] = result.failed
    assert reason == f"{server.base_url}: HTTP 503 (gave up after 2 attempts)"
    assert read((corpus / rel).read_text())[0]["draft_error"] == reason  # type: ignore[index]


def test_an_endpoint_that_keeps_failing_stops_the_run(tmp_path: Path) -> None:
    with LLMServer(lambda body: error_status(503)) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server, max_retries=0, concurrency=1))
        with pytest.raises(LLMError, match="HTTP 503 .*stopped after 3 requests in a row failed"):
            draft(corpus, backoff_base=0.01)
    assert len(server.requests) == 3  # the fourth paper is never sent
    errors = [read((corpus / p).read_text())[0].get("draft_error") for p in statuses(corpus)]  # type: ignore[union-attr]
    assert sorted(e or "" for e in errors) == ["", "", f"{server.base_url}: HTTP 503 (gave up after 1 attempt)",
                                               f"{server.base_url}: HTTP 503 (gave up after 1 attempt)"]


def test_bad_credentials_stop_the_run(tmp_path: Path) -> None:
    with LLMServer(lambda body: error_status(401)) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server))
        with pytest.raises(LLMError, match="HTTP 401"):
            draft(corpus)
    assert set(statuses(corpus).values()) == {"stub"}


def test_second_run_is_served_from_the_cache(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", llm_settings(server))
    stubs = {p: (corpus / p).read_text() for p in statuses(corpus)}
    first = draft(corpus)
    drafted = {p: (corpus / p).read_text() for p in stubs}
    for path, text in stubs.items():  # the same stubs again (e.g. restored from version control)
        (corpus / path).write_text(text)
    count = len(server.requests)
    second = draft(corpus)
    assert len(server.requests) == count  # the server saw nothing new
    assert second.usage is not None and second.usage.cache_hits == 4 and second.usage.requests == 0
    assert second.usage.prompt_tokens == 0 and second.cost == 0
    assert second.usage.cached_tokens == 4 * (PROMPT_TOKENS + COMPLETION_TOKENS)
    assert {p: (corpus / p).read_text() for p in stubs} == drafted and len(first.drafted) == 4
    with sqlite3.connect(corpus / ".papernotes" / "llm-cache.sqlite") as db:
        assert db.execute("SELECT count(*) FROM replies").fetchone() == (4,)


def test_a_note_edited_meanwhile_is_left_alone(tmp_path: Path) -> None:
    corpus_dir = tmp_path / "c"
    rel = "ICLR2024/lets_verify_step_by_step.md"
    edit = "\nMy own notes, typed while the model was thinking.\n"

    def edits_then_answers(body: dict) -> Reply:
        if title_of(body) == "Let's Verify Step by Step":
            with open(corpus_dir / rel, "a", encoding="utf-8") as handle:
                handle.write(edit)
        return default_responder(body)

    with LLMServer(edits_then_answers) as server:
        corpus = make_corpus(corpus_dir, llm_settings(server))
        result = draft(corpus)
    assert len(result.drafted) == 3 and rel not in result.drafted
    assert [(d.path, d.code) for d in result.diagnostics] == [(rel, "draft-conflict")]
    assert (corpus / rel).read_text().endswith(edit)


def test_english_prompt_and_headings(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", llm_settings(server))
    draft(corpus, lang="en", limit=1)
    assert "Write in English" in server.requests[0].body["messages"][0]["content"]
    assert server.requests[0].user_text.startswith("Title: ")
    rel = next(p for p, s in statuses(corpus).items() if s == "drafted")
    body = (corpus / rel).read_text()
    assert "## TL;DR" in body and "## Ratings\n- Novelty: ⭐⭐⭐⭐" in body


def test_model_from_environment(tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = make_corpus(tmp_path / "c", {"requests_per_minute": 6000.0})
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("PAPERNOTES_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    result = draft(corpus, limit=1)
    assert result.model == "env-model" and server.requests[0].body["model"] == "env-model"


def test_no_model_is_a_config_error(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c", {})
    result = runner.invoke(app, ["draft", str(corpus)])
    assert result.exit_code == 2 and "PAPERNOTES_MODEL" in result.stderr


def test_rate_limiter_spaces_requests() -> None:
    now = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:  # the clock moves only when the limiter waits
        slept.append(round(seconds, 6))
        now[0] += seconds

    async def five() -> None:
        limiter = RateLimiter(per_minute=600, clock=lambda: now[0], sleep=sleep)  # one request every 0.1 s
        for _ in range(5):
            await limiter.wait()
        now[0] += 1.0  # a pause longer than the interval: the next request goes at once
        await limiter.wait()

    asyncio.run(five())
    assert slept == [0.1, 0.1, 0.1, 0.1]


def test_retry_after_header_forms() -> None:
    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    soon = retry_after({"retry-after": time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))})
    assert soon is not None and 25 <= soon <= 31
    assert retry_after({}) is None and retry_after({"retry-after": "soon"}) is None


# ---------------------------------------------------------------- crash safety



def test_kill_9_loses_no_finished_note(tmp_path: Path) -> None:
    with LLMServer() as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server, concurrency=2))
        for i in range(8):  # twelve stubs in all
            (corpus / "ICLR2024" / f"extra_{i}.md").write_text(
                f"---\ntitle: Extra paper {i}\nvenue: ICLR2024\nabstract: Paper {i} studies things.\n"
                "status: stub\n---\n")
        killed_at("draft.written#3", corpus, tmp_path, ("draft", "-q"))  # just after the third note was written
        after_kill = {p: (corpus / p).read_text() for p in statuses(corpus)}
        done = [p for p, text in after_kill.items() if read(text)[0]["status"] == "drafted"]  # type: ignore[index]
        assert len(done) == 3
        for rel, text in after_kill.items():  # every file is a whole note, old or new
            note, problems = parse_note(rel, text)
            assert note is not None and note.title and not [d for d in problems if d.code == "front-matter"]
            if rel in done:
                assert [s.key for s in note.sections] == ["summary", *SECTION_KEYS, "ratings"]
        requests_before = len(server.requests)
        result = draft(corpus)
        assert set(statuses(corpus).values()) == {"drafted"}
        assert all((corpus / p).read_text() == after_kill[p] for p in done)  # finished notes kept as they were
        assert len(result.drafted) == 12 - len(done)
        assert result.usage is not None
        new_requests = len(server.requests) - requests_before
        assert new_requests + result.usage.cache_hits == len(result.drafted)  # answered-but-unwritten come from cache


# ---------------------------------------------------------------- CLI

def test_cli_draft_prints_token_summary(tmp_path: Path, server: LLMServer) -> None:
    corpus = make_corpus(tmp_path / "c", llm_settings(server))
    result = runner.invoke(app, ["draft", str(corpus), "--limit", "2"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "2 note(s) drafted with openai" in text
    assert "model test-model: 2 request(s), 0 from cache, 0 retried, 0 repaired; tokens 200 in + 100 out" in text
    assert "cost $0.2500" in text  # 200 × 0.5/1k + 100 × 1.5/1k


def test_cli_draft_extractive_and_bad_options(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    assert runner.invoke(app, ["draft", str(corpus), "--engine", "magic"]).exit_code == 2
    assert runner.invoke(app, ["draft", str(corpus), "--lang", "fr"]).exit_code == 2
    result = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive"])
    assert result.exit_code == 0 and "4 note(s) drafted with extractive" in result.stdout
    assert find_stubs(corpus).stubs == []
