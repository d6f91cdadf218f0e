"""docs/pipeline.md's walkthrough, run as the page writes it.

The ``console`` blocks of its "Walkthrough" section are read from the Markdown:
each ``$ command`` runs in a fresh folder holding the page's example files
(``docs/examples/pipeline/``), in-process through the CLI runner, and each line
the page shows after it must be a line of what the command printed (``…`` on
the page stands for anything). A command that prints an error must exit 1,
any other 0. ``export`` lines set the environment; the language model they
point at is the scripted server of ``tests/llm_server.py``, answering the
page's classification. Editing the page or the commands' output without the
other fails here.
"""
from __future__ import annotations

import json
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from llm_server import LLMServer, Reply, ok, title_of
from papernotes.cli import app

DOC = Path(__file__).parents[1] / "docs" / "pipeline.md"
EXAMPLES = Path(__file__).parents[1] / "docs" / "examples" / "pipeline"
SECTION = "## Walkthrough"

#: What the scripted model answers, by paper title (the page shows these choices).
CHOICES = {
    "LoRA: Low-Rank Adaptation of Large Language Models": ("llm_efficiency", 0.92),
    "Attention Is All You Need": ("llm_nlp", 0.9),
    "Deep Residual Learning for Image Recognition": ("others", 0.85),
    "Toolformer: Language Models Can Teach Themselves to Use Tools": ("llm_agent", 0.95),
}


@dataclass
class Step:
    command: str
    expected: list[str] = field(default_factory=list)
    line: int = 0
    """Line of the command in docs/pipeline.md."""


def walkthrough_steps(markdown: str) -> list[Step]:
    """Every ``$ command`` of the section's console blocks with the lines shown after it."""
    start = markdown.index(SECTION)
    end = markdown.find("\n## ", start + 1)
    first_line = markdown.count("\n", 0, start) + 1
    section = markdown[start:end if end >= 0 else len(markdown)]
    steps: list[Step] = []
    for block in re.finditer(r"^```console\n(.*?)^```", section, re.S | re.M):
        line = first_line + section.count("\n", 0, block.start(1))
        for offset, text in enumerate(block.group(1).splitlines()):
            if text.startswith("$ "):
                steps.append(Step(text[2:], line=line + offset))
            elif text.strip():
                steps[-1].expected.append(text)
    return steps


def pattern(expected: str) -> re.Pattern[str]:
    """The page's line as a regex: ``…`` matches anything, runs of spaces any spacing."""
    parts = [r"\s+".join(re.escape(w) for w in chunk.split()) for chunk in expected.split("…")]
    return re.compile(".*".join(parts))


def respond(body: dict[str, Any]) -> Reply:
    domain, confidence = CHOICES[title_of(body)]
    return ok(json.dumps({"domain": domain, "confidence": confidence, "second": None}))


def test_the_page_has_the_steps_the_issue_names() -> None:
    commands = [s.command.split()[:2] for s in walkthrough_steps(DOC.read_text(encoding="utf-8"))]
    assert [c for c in commands if c[0] == "papernotes"] == [
        ["papernotes", "ingest"], ["papernotes", "ingest"], ["papernotes", "draft"], ["papernotes", "classify"],
        ["papernotes", "classify"], ["papernotes", "check"], ["papernotes", "build"]]


def test_walkthrough_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)
    for example in EXAMPLES.iterdir():
        shutil.copy(example, tmp_path / example.name)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    with LLMServer(respond) as server:
        for step in walkthrough_steps(DOC.read_text(encoding="utf-8")):
            words = shlex.split(step.command)
            where = f"docs/pipeline.md:{step.line}: {step.command}"
            if words[0] == "export":
                for assignment in words[1:]:
                    name, _, value = assignment.partition("=")
                    monkeypatch.setenv(name, server.base_url if name == "OPENAI_BASE_URL" else value)
                continue
            assert words[0] == "papernotes", where
            result = runner.invoke(app, words[1:])
            printed = result.stdout + result.stderr
            assert result.exception is None or isinstance(result.exception, SystemExit), (where, result.exception)
            wants_error = any(": error:" in e or e.startswith("error:") for e in step.expected)
            assert result.exit_code == (1 if wants_error else 0), (where, printed)
            lines = printed.splitlines()
            for expected in step.expected:
                assert any(pattern(expected).fullmatch(line) for line in lines), (where, expected, printed)
            assert sum(": error:" in ln or ln.startswith("error:") for ln in lines) == \
                sum(": error:" in e or e.startswith("error:") for e in step.expected), (where, printed)
    assert (tmp_path / "site/NeurIPS2017/llm_nlp/attention_is_all_you_need/index.html").is_file()
    assert len(server.requests) == 4
