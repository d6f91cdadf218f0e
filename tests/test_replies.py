"""LLM replies as pydantic models (``intake/replies.py``), and the server's structured output: with
``[llm] structured_output = true`` a draft request carries the reply's JSON schema as ``response_format``,
live and through the Batch API; a map request, which answers in another shape, does not."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from llm_server import LLMServer, draft_json  # noqa: E402
from test_draft import llm_settings, make_corpus  # noqa: E402

from papernotes.cli import app  # noqa: E402
from papernotes.corpus.model import RATING_KEYS  # noqa: E402
from papernotes.intake.redraft import SECTION_KEYS  # noqa: E402
from papernotes.intake.replies import DRAFT_SCHEMA, DraftReply, read_reply  # noqa: E402

runner = CliRunner()


def test_a_reply_is_read_into_the_model_and_every_fault_is_named() -> None:
    reply, errors = read_reply(DraftReply, draft_json("X"))
    assert errors == [] and reply is not None and set(reply.sections) == set(SECTION_KEYS)
    bad = json.loads(draft_json("X"))
    bad["summary"], bad["keywords"], bad["sections"]["method"] = "One. Two.", [], "  "
    bad["ratings"] = {"novelty": 9}
    reply, errors = read_reply(DraftReply, json.dumps(bad))
    assert reply is None
    assert errors[:3] == ["`summary` must be exactly one sentence, it has 2",
                          "`keywords` must be a non-empty list of strings", "`sections.method` is missing or empty"]
    assert len([e for e in errors if e.startswith("`ratings.")]) == len(RATING_KEYS)


def test_the_schema_asks_for_what_the_model_checks() -> None:
    schema = DRAFT_SCHEMA["schema"]
    assert DRAFT_SCHEMA["name"] == "draft" and schema["required"] == ["summary", "keywords", "sections", "ratings"]
    assert schema["properties"]["sections"]["required"] == list(SECTION_KEYS)
    assert schema["properties"]["ratings"]["required"] == list(RATING_KEYS)


def _formats(requests: list) -> list:  # type: ignore[type-arg]
    return [r.body.get("response_format") for r in requests]


def test_structured_output_is_sent_when_the_settings_ask_for_it(tmp_path: Path) -> None:
    with LLMServer() as server:
        plain = make_corpus(tmp_path / "plain", llm_settings(server))
        assert runner.invoke(app, ["draft", str(plain), "--limit", "1"]).exit_code == 0
        assert _formats(server.requests) == [None]
        asked = make_corpus(tmp_path / "asked", llm_settings(server, structured_output=True))
        assert runner.invoke(app, ["draft", str(asked), "--limit", "1"]).exit_code == 0
        sent = _formats(server.requests[1:])
    assert len(sent) == 1 and sent[0]["type"] == "json_schema"
    assert sent[0]["json_schema"]["name"] == "draft" and sent[0]["json_schema"]["schema"] == DRAFT_SCHEMA["schema"]


def test_structured_output_goes_through_the_batch_api_too(tmp_path: Path) -> None:
    with LLMServer() as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server, structured_output=True, batch_poll_seconds=0.01))
        result = runner.invoke(app, ["draft", str(corpus), "--batch", "--limit", "2"])
        assert result.exit_code == 0, result.output
        lines = [json.loads(x) for c in server.batch_creates for x in server.files[c["input_file_id"]].splitlines()]
    assert len(lines) == 2 and all(line["body"]["response_format"]["json_schema"]["name"] == "draft" for line in lines)
