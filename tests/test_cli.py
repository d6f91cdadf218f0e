"""The CLI in-process: every command's happy path and its errors (exit codes, path:line messages)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from conftest import EXAMPLES, example_notes, write_note
from papernotes import __version__
from papernotes.cli import app

runner = CliRunner()


def test_version_and_help() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.stdout
    for command in ("build", "serve", "check", "new"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "Usage" in result.stdout


def test_build_then_up_to_date(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    first = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert first.exit_code == 0, first.output
    assert "47 notes" in first.stdout
    second = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert "up to date" in second.stdout


def test_build_reports_bad_notes_with_path_and_line(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "A/b/ok.md", title="Ok", venue="ICML2024", domain="optimization")
    (corpus / "A/b/bad.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    result = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0
    assert "A/b/bad.md:2: error: invalid YAML front matter" in result.stderr
    strict = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "s2"), "--strict"])
    assert strict.exit_code == 1 and "nothing was written" in strict.stderr


def test_bad_config_is_a_clear_error(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "A/b/ok.md", title="Ok", venue="ICML2024", domain="optimization")
    (corpus / "papernotes.toml").write_text('title = "x"\nlanguage = "fr"\nhot_topics = -1\n', encoding="utf-8")
    result = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert result.exit_code == 2
    assert "papernotes.toml:2: error: language" in result.stderr
    assert "papernotes.toml:3: error: hot_topics" in result.stderr
    assert "Traceback" not in result.output


def test_missing_corpus(tmp_path: Path) -> None:
    result = runner.invoke(app, ["build", str(tmp_path / "nope"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 2 and "corpus directory not found" in result.stderr


def test_check_exit_status_and_json(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    clean = runner.invoke(app, ["check", str(corpus), "--no-classifier"])
    assert clean.exit_code == 0, clean.output
    note = example_notes(corpus / "ICML2024/optimization")[0]
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace("## 一句话总结\n", "## 一句话总结\n坏公式 $\\frac{a}{b}^^2$。\n\n", 1)
                    + "\n见 [不存在的笔记](../nowhere/missing.md)。\n", encoding="utf-8")
    dup = corpus / "NeurIPS2023/optimization/dup.md"
    dup.write_text(text.replace("id: ", "id: dup-", 1), encoding="utf-8")
    (corpus / "ICLR2024/optimization/empty.md").write_text(
        "---\ntitle: Lonely\nvenue: ICLR2024\ndomain: optimization\nsummary: s\n---\n## 方法详解\n\n## 局限性\nx\n",
        encoding="utf-8")
    result = runner.invoke(app, ["check", str(corpus), "--no-classifier", "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    codes = {(d["path"], d["code"]) for d in data["diagnostics"]}
    rel = note.relative_to(corpus).as_posix()
    assert (rel, "math") in codes
    assert ("NeurIPS2023/optimization/dup.md", "duplicate-paper") in codes
    assert ("ICLR2024/optimization/empty.md", "empty-section") in codes
    assert ("ICLR2024/optimization/empty.md", "missing-section") in codes
    link = next(d for d in data["diagnostics"] if d["code"] == "broken-link")
    assert (link["path"], link["severity"]) == (rel, "warning")
    assert link["line"] == note.read_text(encoding="utf-8").split("\n").index("见 [不存在的笔记](../nowhere/missing.md)。") + 1
    math = next(d for d in data["diagnostics"] if d["code"] == "math")
    assert math["line"] == text.split("\n").index("## 一句话总结") + 2


def test_new_scaffolds_a_note_that_builds(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    result = runner.invoke(app, ["new", str(corpus), "--title", "Attention Is All You Need", "--venue", "NeurIPS2017",
                                 "--domain", "llm_nlp", "--lang", "en", "--arxiv", "1706.03762"])
    assert result.exit_code == 0, result.output
    path = corpus / "NeurIPS2017/llm_nlp/attention_is_all_you_need.md"
    text = path.read_text(encoding="utf-8")
    assert "## TL;DR" in text and "## Ratings" in text and "arxiv: '1706.03762'" in text
    again = runner.invoke(app, ["new", str(corpus), "--title", "Attention Is All You Need", "--venue", "NeurIPS2017",
                                "--domain", "llm_nlp"])
    assert again.exit_code == 2 and "already exists" in again.stderr
    bad = runner.invoke(app, ["new", str(corpus), "--title", "x", "--venue", "not a venue", "--domain", "llm_nlp"])
    assert bad.exit_code == 2 and "must look like ICML2026" in bad.stderr
    built = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert built.exit_code == 0 and (tmp_path / "site/NeurIPS2017/llm_nlp/attention_is_all_you_need/index.html").is_file()
