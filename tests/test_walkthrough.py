"""docs/pipeline.md's walkthrough, run as the page writes it.

The ``console`` blocks of its "Walkthrough" section are read from the Markdown:
each ``$ command`` runs in a fresh folder holding the page's example files
(``docs/examples/pipeline/``) and the folder of PDFs its first part starts
from (``papers/``, generated here: three first pages as the ICLR, NeurIPS and
ICML templates print them, and a scan), in-process through the CLI runner, and each line
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

import pdfgen
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
    "Gutter Networks: Reading Two-Column Papers in Order": ("nlp_understanding", 0.88),
    "Sparse Routers for Low-Rank Adapters in LLMs": ("llm_efficiency", 0.93),
    "Budgeted Rejection Sampling for Off-Policy RL": ("reinforcement_learning", 0.91),
}

SPARSE = ("We introduce Sparse Routers, which send each token to two of sixteen low-rank adapters of a frozen "
          "language model. On the MixBench suite they match a dense adapter at 41.3% of its compute and improve "
          "accuracy by 2.4 points over a single adapter.")
BUDGETED = ("Off-policy reinforcement learning for language models discards most of its rollouts. We propose "
            "budgeted rejection sampling, which keeps a fixed share of the rollouts and reweights them. On three "
            "reasoning benchmarks it improves accuracy by 3.7 points at 60% of the sampling cost.")


def pdf_folder(folder: Path) -> None:
    """The page's ``papers/``: first pages as ICLR, NeurIPS (ALL CAPS, no abstract heading) and ICML print them."""
    folder.mkdir()
    pdfgen.front_page(folder / "gutter-networks.pdf", ("Gutter Networks: Reading Two-Column", "Papers in Order"),
                      ("Ada Reader^{1}, Bob Parser^{2}",), pdfgen.ABSTRACT, venue="ICLR",
                      affiliations=("^{1}University of Somewhere   ^{2}Example Research Lab",))
    pdfgen.front_page(folder / "sparse-routers.pdf", ("SPARSE ROUTERS FOR LOW-RANK", "ADAPTERS IN LLMS"),
                      (("Chen Li^{*}", "Dana Author^{*}"),), SPARSE, heading="", venue="NeurIPS",
                      affiliations=(("Department of Reading", "Parsing Institute"),))
    pdfgen.front_page(folder / "budgeted-sampling.pdf", ("Budgeted Rejection Sampling for Off-Policy RL",),
                      ("Ivo Sampler^{1} Hana Budget^{2}",), BUDGETED, venue="ICML", columns=2)
    scan = pdfgen.Paper("A scanned paper")
    scan.scanned_page()
    scan.save(folder / "scanned.pdf")


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
    steps = walkthrough_steps(DOC.read_text(encoding="utf-8"))
    assert steps[0].command == "papernotes ingest pdf papers/ library/"  # it opens with a folder of PDFs
    assert [c for c in commands if c[0] == "papernotes"] == [
        ["papernotes", "ingest"], ["papernotes", "draft"], ["papernotes", "classify"], ["papernotes", "check"],
        ["papernotes", "build"],
        ["papernotes", "ingest"], ["papernotes", "ingest"], ["papernotes", "draft"], ["papernotes", "classify"],
        ["papernotes", "classify"], ["papernotes", "check"], ["papernotes", "build"]]


def test_walkthrough_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)
    for example in EXAMPLES.iterdir():
        shutil.copy(example, tmp_path / example.name)
    pdf_folder(tmp_path / "papers")
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
    sparse = "NeurIPS2025/sparse_routers_for_low_rank_adapters_in_llms"
    assert (tmp_path / "library-site" / sparse.replace("2025/", "2025/llm_efficiency/") / "index.html").is_file()
    assert (tmp_path / "library" / f"{sparse}.pdf").read_bytes() == (tmp_path / "papers/sparse-routers.pdf").read_bytes()
    assert len(server.requests) == 7
