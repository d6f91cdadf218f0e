"""Refreshing notes safely: `draft NOTE...` drafts just those, `--diff` shows a redraft and writes nothing, and
the summary's counts of repair requests agree (issue 33, item 5)."""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")
sys.path.insert(0, str(Path(__file__).parent))

import pdfgen  # noqa: E402
from llm_server import LLMServer, Reply, default_responder, ok, title_of  # noqa: E402
from test_draft import llm_settings, make_corpus, statuses  # noqa: E402
from test_draft_paper import REL, TITLE, last_user, results_draft  # noqa: E402

from papernotes.cli import app  # noqa: E402
from papernotes.corpus.frontmatter import read  # noqa: E402

runner = CliRunner()


def digests(corpus: Path) -> dict[str, str]:
    return {p.relative_to(corpus).as_posix(): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(corpus.rglob("*")) if p.is_file() and p.suffix == ".md"}


def test_draft_takes_the_notes_to_draft(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    before = statuses(corpus)
    assert len(before) == 4 and set(before.values()) == {"stub"}
    chosen = sorted(before)[2]
    result = runner.invoke(app, ["draft", str(corpus), str(corpus / chosen), "--engine", "extractive"])
    assert result.exit_code == 0, result.output
    assert "1 note(s) drafted with extractive" in result.stdout
    after = statuses(corpus)
    assert after[chosen] == "drafted" and [p for p, s in after.items() if s == "stub"] == \
        [p for p in sorted(before) if p != chosen]
    # --force with a path redrafts that note only, not whichever comes first
    first = sorted(before)[0]
    result = runner.invoke(app, ["draft", str(corpus), str(corpus / chosen), "--engine", "extractive", "--force"])
    assert result.exit_code == 0 and "1 note(s) drafted" in result.stdout
    assert statuses(corpus)[first] == "stub"


@pytest.mark.parametrize("where", ["outside", "missing", "not-md"])
def test_a_path_that_is_not_a_note_of_the_corpus_is_one_error(tmp_path: Path, where: str) -> None:
    corpus = make_corpus(tmp_path / "c")
    other = tmp_path / "elsewhere.md"
    other.write_text("---\ntitle: x\n---\n")
    path = {"outside": other, "missing": corpus / "ICLR2024" / "nope.md",
            "not-md": corpus / "papernotes.toml"}[where]
    before = digests(corpus)
    result = runner.invoke(app, ["draft", str(corpus), str(path), "--engine", "extractive"])
    assert result.exit_code == 2, result.output  # unusable input: nothing is done (docs/pipeline.md)
    assert str(path) in result.stderr and "Traceback" not in result.output
    assert digests(corpus) == before


def test_force_diff_prints_each_section_a_redraft_would_change_and_writes_nothing(tmp_path: Path) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        return ok(results_draft(answer[0])) if title_of(body) == TITLE else default_responder(body)

    answer = ["0.4642"]
    with LLMServer(responder) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server), language="en")
        pdfgen.sample_paper((corpus / REL).with_suffix(".pdf"))
        result = runner.invoke(app, ["draft", str(corpus), str(corpus / REL)])
        assert result.exit_code == 0, result.output
        drafted = digests(corpus)
        answer[0] = "0.5131"  # a newer model, which reads another number into the summary and the table
        config = corpus / "papernotes.toml"
        config.write_text(config.read_text().replace('"test-model"', '"test-model-2"'))
        result = runner.invoke(app, ["draft", str(corpus), str(corpus / REL), "--force", "--diff"])
    assert result.exit_code == 0, result.output
    assert digests(corpus) == drafted  # nothing written
    out = result.stdout
    assert f"=== {REL}: " in out and "previewed (nothing written)" in out
    parts = [line[4:] for line in out.splitlines() if line.startswith("--- ")]
    assert "summary" in parts and any(p.startswith("## ") for p in parts), out
    assert "-Gutter Networks reach 0.4642 on the hard split of GutterBench." in out
    assert "+Gutter Networks reach 0.5131 on the hard split of GutterBench." in out
    # an unchanged part is not listed
    front, _, _ = read((corpus / REL).read_text())
    assert "keywords" not in parts and front["status"] == "drafted"


def test_diff_refuses_the_batch_api(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    result = runner.invoke(app, ["draft", str(corpus), "--batch", "--diff"])
    assert result.exit_code == 2 and "--diff" in result.stderr


def test_the_summary_counts_every_repair_request_once(tmp_path: Path) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        if title_of(body) != TITLE:
            return default_responder(body)
        return ok(results_draft("0.4642" if "not in the paper" in last_user(body) else "0.673"))

    with LLMServer(responder) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server), language="en")
        pdfgen.sample_paper((corpus / REL).with_suffix(".pdf"))
        result = runner.invoke(app, ["draft", str(corpus), str(corpus / REL)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "1 sent back for a repair" in text and "1 repaired" in text and "0 repaired" not in text
