"""Every command, when it fails at what it was asked: a non-zero exit, and why, once, naming the file or URL.

In-process through the CLI runner; the LLM cases over real HTTP (``tests/llm_server.py``,
or a port nothing listens on). Errors are ``path:line: error: message`` or
``error: message``, each printed once; ``--help`` shows flags as flags; piped
output keeps long paths on one line.
"""
from __future__ import annotations

import json
import re
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from conftest import EXAMPLES, write_note
from llm_server import LLMServer, Reply, draft_json, error_status, ok, title_of
from papernotes.cli import app
from papernotes.corpus.frontmatter import read

runner = CliRunner()
FIXTURES = Path(__file__).parent / "fixtures" / "sources"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"^(\S.*?: )?error: ", line)]


def stubs(root: Path, llm: dict[str, object] | None = None) -> Path:
    """Three stubs with abstracts (ingested from the walkthrough's reading list) and an optional [llm] table."""
    result = runner.invoke(app, ["ingest", "bibtex", str(Path(__file__).parents[1] / "docs/examples/pipeline/refs.bib"),
                                 str(root), "-q"])
    assert result.exit_code == 0, result.output
    if llm is not None:
        lines = ["[llm]"] + [f"{k} = {json.dumps(v)}" for k, v in llm.items()]
        (root / "papernotes.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def statuses(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): read(p.read_text(encoding="utf-8"))[0].get("status", "")
            for p in sorted(root.rglob("*.md"))}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- --help and output

def test_help_shows_flags_as_flags_and_values_by_name() -> None:
    group = typer.main.get_command(app)
    names = list(group.commands)  # type: ignore[attr-defined]
    assert {"build", "serve", "check", "new", "ingest", "draft", "fetch", "read", "classify", "import-mkdocs"} <= set(names)
    for name in [None, *names]:
        result = runner.invoke(app, [name, "--help"] if name else ["--help"], terminal_width=200)
        assert result.exit_code == 0, result.output
        assert not re.search(r"<(bool|str|int|float|path|dir|file)", result.stdout), (name, result.stdout)
        assert "{" not in result.stdout.split("\n", 3)[1]  # the usage line: no {corpus}
    build = runner.invoke(app, ["build", "--help"], terminal_width=200).stdout
    assert re.search(r"--quiet\s+-q\s+Only print errors", build)
    assert re.search(r"--output\s+-o\s+PATH\s+Site directory", build)
    assert re.search(r"--jobs\s+-j\s+INT\s+Worker", build)
    assert "Usage: papernotes build [OPTIONS] CORPUS" in build
    classify = runner.invoke(app, ["classify", "--help"]).stdout
    assert re.search(r"--min-confidence\s+FLOAT \[0.0<=x<=1.0\]", classify)
    assert re.search(r"--engine\s+learned\|openai\s", classify)
    rejected = runner.invoke(app, ["build", str(EXAMPLES), "--quiet", "true"])
    assert rejected.exit_code == 2  # a flag takes no value, and the help no longer suggests one


def test_piped_output_keeps_long_paths_on_one_line(tmp_path: Path) -> None:
    corpus = tmp_path / ("a-rather-long-folder-name-" * 6) / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    out = tmp_path / ("another-long-output-folder-" * 5) / "site"
    result = runner.invoke(app, ["build", str(corpus), "-o", str(out)])  # not a terminal: nothing is wrapped
    assert result.exit_code == 0, result.output
    assert "47 notes (20 translations) → " in result.stdout and f" pages in {out} (" in result.stdout
    missing = runner.invoke(app, ["check", str(corpus / "nowhere" / ("x" * 150))])
    assert error_lines(missing.stderr) == [f"error: {corpus / 'nowhere' / ('x' * 150)}: corpus directory not found"]


# ---------------------------------------------------------------- build

def test_build_of_an_empty_corpus_is_an_error_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    result = runner.invoke(app, ["build", str(tmp_path / "notes"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1 and result.stdout == ""
    assert error_lines(result.stderr) == [
        f"error: no notes in {tmp_path / 'notes'}: a note is a Markdown file with YAML front matter; start with "
        f"`papernotes new {tmp_path / 'notes'}` or `papernotes ingest SOURCE … {tmp_path / 'notes'}`; nothing was built"]
    assert not (tmp_path / "site").exists()


def test_build_with_no_publishable_note_says_why(tmp_path: Path) -> None:
    corpus = tmp_path / "notes"
    stubs(corpus)
    write_note(corpus, "X/y/bad.md", title="Bad", vnue="ICLR2024", domain="optimization")
    result = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1
    assert (f"error: no note of {corpus} can be published: 1 note(s) with errors (listed above); 4 stub(s) "
            f"without a domain (`papernotes classify {corpus} --apply` files them)") in result.stderr
    assert "X/y/bad.md:3: warning: unknown key `vnue`; did you mean `venue`?" in result.stderr
    assert "X/y/bad.md:1: error: missing required field `venue`" in result.stderr


def test_skipped_notes_are_counted_once_each(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "ICML2024/optimization/ok.md", title="Ok", venue="ICML2024", domain="optimization")
    write_note(corpus, "ICML2024/optimization/bad.md", title="Bad", venue="ICML2024", domain="optimization",
               ratings={"novelty": 9, "value": 7}, vnue="x")
    result = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output  # the rest is published; --strict would fail
    assert len(error_lines(result.stderr)) == 2  # the two ratings; the unknown key `vnue` is a warning
    assert re.search(r"bad\.md:\d+: warning: unknown key `vnue`; did you mean `venue`\?", result.stderr)
    assert "1 note(s) skipped because of errors" in result.stderr


# ---------------------------------------------------------------- check and typos

def test_typos_are_errors_with_did_you_mean(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "ICLR2024/optimization/a.md", title="A", venue="ICRL2024", domain="optimization")
    write_note(corpus, "ICLR2024/optimization/b.md", title="B", venue="ICLR2024", domain="optimisation")
    write_note(corpus, "ICLR2024/optimization/c.md", title="C", vnue="ICLR2024", domain="optimization")
    write_note(corpus, "ICLR2024/optimization/d.md", title="D", venue="ICLR2031", domain="optimization",
               x_reviewer="me", domain_label="优化")  # an unlisted year, an own key, an importer's key: fine
    result = runner.invoke(app, ["check", str(corpus), "--no-classifier", "--no-formulas"])
    assert result.exit_code == 1
    assert error_lines(result.stderr) == [
        "ICLR2024/optimization/a.md:3: error: unknown venue `ICRL2024`; did you mean `ICLR2024` or `ICML2024` or "
        "`ICRA2024`? (`papernotes taxonomy venues` lists them; a new series goes in a venues file named under "
        "[taxonomy] in papernotes.toml)",
        "ICLR2024/optimization/b.md:4: error: unknown domain `optimisation`; did you mean `optimization`? "
        "(`papernotes taxonomy domains` lists them; a new domain goes in a domains file named under [taxonomy] in "
        "papernotes.toml)",
        "ICLR2024/optimization/c.md:1: error: missing required field `venue`",
    ]
    assert ("ICLR2024/optimization/c.md:3: warning: unknown key `vnue`; did you mean `venue`? (kept for templates "
            "as `note.extra`; keys of your own that start with `x_` are not reported)") in result.stderr
    site = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert (tmp_path / "site/ICLR2031/optimization/d/index.html").is_file()
    assert not (tmp_path / "site/ICRL2024").exists() and not (tmp_path / "site/ICLR2024/optimisation").exists()
    assert "3 note(s) skipped" in site.stderr


def test_new_refuses_typos_and_writes_nothing(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    result = runner.invoke(app, ["new", str(corpus), "--title", "T", "--venue", "ICRL2024", "--domain",
                                 "optimisation"])
    assert result.exit_code == 2 and result.stdout == ""
    assert error_lines(result.stderr) == [
        "error: unknown venue `ICRL2024`; did you mean `ICLR2024` or `ICML2024` or `ICRA2024`? (`papernotes "
        "taxonomy venues` lists them; a new series goes in a venues file named under [taxonomy] in papernotes.toml)",
        "error: unknown domain `optimisation`; did you mean `optimization`? (`papernotes taxonomy domains` lists "
        "them; a new domain goes in a domains file named under [taxonomy] in papernotes.toml)"]
    assert not corpus.exists()
    fine = runner.invoke(app, ["new", str(corpus), "--title", "T", "--venue", "ICLR2031", "--domain", "optimization"])
    assert fine.exit_code == 0 and (corpus / "ICLR2031/optimization/t.md").is_file()


def test_a_site_taxonomy_adds_venues_and_domains_for_new_too(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    (corpus / "tax").mkdir(parents=True)
    (corpus / "tax/v.toml").write_text('[[series]]\nid = "MyConf"\n', encoding="utf-8")
    (corpus / "tax/d.toml").write_text('[[domain]]\nslug = "quantum"\nzh = "量子"\nen = "Quantum"\n', encoding="utf-8")
    (corpus / "papernotes.toml").write_text('[taxonomy]\nvenues = ["tax/v.toml"]\ndomains = ["tax/d.toml"]\n',
                                            encoding="utf-8")
    result = runner.invoke(app, ["new", str(corpus), "--title", "Q", "--venue", "MyConf2025", "--domain", "quantum"])
    assert result.exit_code == 0, result.output
    typo = runner.invoke(app, ["new", str(corpus), "--title", "Q2", "--venue", "MyConf2025", "--domain", "quantun"])
    assert typo.exit_code == 2 and "did you mean `quantum`?" in typo.stderr


# ---------------------------------------------------------------- draft

def test_draft_without_a_model_says_where_to_set_one(tmp_path: Path) -> None:
    corpus = stubs(tmp_path / "notes")
    result = runner.invoke(app, ["draft", str(corpus)])
    assert result.exit_code == 2 and result.stdout == ""
    [line] = error_lines(result.stderr)
    assert line.startswith(f"error: no language model configured: {corpus / 'papernotes.toml'} does not exist")
    assert "PAPERNOTES_MODEL" in line and "--engine extractive" in line and line.count("error") == 1
    (corpus / "papernotes.toml").write_text('title = "x"\n\n[llm]\nbase_url = "http://localhost:1/v1"\n')
    result = runner.invoke(app, ["draft", str(corpus)])
    assert result.exit_code == 2
    assert error_lines(result.stderr) == [
        f"{corpus / 'papernotes.toml'}:3: error: no language model configured: set `model` (and `base_url` for a "
        "server other than OpenAI's) in the [llm] table, or set PAPERNOTES_MODEL; or draft offline with "
        "`--engine extractive`"]


def test_draft_against_an_endpoint_nothing_answers_at_names_it(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    corpus = stubs(tmp_path / "notes", {"base_url": url, "model": "m", "max_retries": 1})
    before = {p: p.read_bytes() for p in corpus.rglob("*.md")}
    result = runner.invoke(app, ["draft", str(corpus)])
    assert result.exit_code == 1
    [line] = error_lines(result.stderr)
    assert line.startswith(f"error: {url}: cannot connect (") and "(gave up after 2 attempts)" in line
    assert "is the server running" in line
    assert {p: p.read_bytes() for p in corpus.rglob("*.md")} == before


def respond_failing(title_part: str) -> Any:
    def respond(body: dict[str, Any]) -> Reply:
        title = title_of(body)
        return error_status(400) if title_part in title else ok(draft_json(title))
    return respond


def test_draft_with_one_failed_stub_exits_1_and_keeps_the_rest(tmp_path: Path) -> None:
    with LLMServer(respond_failing("Toolformer")) as server:
        corpus = stubs(tmp_path / "notes", {"base_url": server.base_url, "model": "m", "requests_per_minute": 6000.0})
        result = runner.invoke(app, ["draft", str(corpus)])
    assert result.exit_code == 1, result.output
    [line] = error_lines(result.stderr)
    assert line.startswith("NeurIPS2023/toolformer_language_models_can_teach_themselves_to_use_tools.md: error: "
                           f"draft failed, still a stub: {server.base_url}: HTTP 400")
    assert "3 note(s) drafted with openai, 1 failed (left as they were, see `draft_error`)" in result.stdout
    assert sorted(statuses(corpus).values()) == ["drafted", "drafted", "drafted", "stub"]
    quiet = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive", "-q"])
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_draft_with_nothing_to_draft_says_so(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "ICML2024/optimization/a.md", title="A", venue="ICML2024", domain="optimization")
    result = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive"])
    assert result.exit_code == 0
    assert result.stdout == ("no note to draft: 1 written by hand (set `status: stub` to draft it; sections with text "
                             "are kept) (-v lists them)\n")


# ---------------------------------------------------------------- the others

def test_missing_inputs_are_named_once(tmp_path: Path) -> None:
    nope = tmp_path / "nope"
    for args, status in ((["fetch", str(nope)], 2), (["check", str(nope)], 2), (["build", str(nope)], 2),
                         (["draft", str(nope)], 2), (["classify", str(nope)], 2), (["serve", str(nope), "-p", "0"], 2),
                         (["deploy", str(nope)], 2), (["import-mkdocs", str(nope), str(tmp_path / "dest")], 2)):
        result = runner.invoke(app, args)
        assert result.exit_code == status, (args, result.output)
        lines = error_lines(result.stderr)
        assert len(lines) == 1 and str(nope) in lines[0] and lines[0].count("error:") == 1, (args, result.stderr)
    pdf = runner.invoke(app, ["read", str(tmp_path / "paper.pdf")])
    assert pdf.exit_code == 1 and error_lines(pdf.stderr) == [f"{tmp_path / 'paper.pdf'}: error: file not found"]
    (tmp_path / "page.pdf").write_text("<!DOCTYPE html><html>login</html>")
    html = runner.invoke(app, ["read", str(tmp_path / "page.pdf")])
    [line] = error_lines(html.stderr)
    assert html.exit_code == 1 and line.startswith(f"{tmp_path / 'page.pdf'}: error: not a PDF (it starts with '<!")


def test_invalid_config_is_reported_once_per_problem(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "ICML2024/optimization/a.md", title="A", venue="ICML2024", domain="optimization")
    (corpus / "papernotes.toml").write_text('language = "fr"\n', encoding="utf-8")
    extra = {"new": ["--title", "T", "--venue", "ICML2024", "--domain", "optimization"],
             "serve": ["-p", "0", "-o", str(tmp_path / "site")]}
    for command in ("build", "check", "classify", "draft", "new", "serve"):
        args = [command, str(corpus), *extra.get(command, [])]
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (command, result.output)
        assert error_lines(result.stderr) == [f"{corpus / 'papernotes.toml'}:1: error: language: Input should be "
                                              "'zh' or 'en'"], (command, result.stderr)


def test_import_with_errors_exits_1(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "ICML2024/optimization").mkdir(parents=True)
    (docs / "ICML2024/optimization/bad.md").write_bytes(b"\xff\xfe not utf-8")
    result = runner.invoke(app, ["import-mkdocs", str(docs), str(tmp_path / "dest")])
    assert result.exit_code == 1
    assert len(error_lines(result.stderr)) == 1 and "ICML2024/optimization/bad.md" in result.stderr
