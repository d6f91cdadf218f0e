"""The offline note on real papers (``../shared/papers``, skipped when absent): ingest pdf → draft --engine
extractive → check --grounding, through the CLI, on every shared PDF.

What must hold on each: no traceback, no number the grounding check flags in the engine's own draft, the main
results table with its header row when the reader found a table in the paper, no sentence twice, and no footnote
mark, URL, e-mail or section number in the prose.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")

from papertruth import PAPERS  # noqa: E402
from papernotes.cli import app  # noqa: E402
from papernotes.corpus.frontmatter import read  # noqa: E402
from papernotes.intake.extractive import split_sentences  # noqa: E402
from papernotes.intake.paper import cache_dir, read_paper  # noqa: E402
from papernotes.intake.redraft import split_body  # noqa: E402

PDFS = sorted(PAPERS.glob("*.pdf")) if PAPERS.is_dir() else []
pytestmark = [pytest.mark.skipif(not PDFS, reason=f"{PAPERS} is absent"), pytest.mark.slow]
runner = CliRunner()

FOOTNOTE_MARK = re.compile(r"[^\W\d_]{2}[⁰¹²³⁴⁵⁶⁷⁸⁹]+(?![\w-])|(?<!\S)[⁰¹²³⁴⁵⁶⁷⁸⁹]+\s*[A-Za-z]|[∗†‡⋆]")
URL = re.compile(r"https?://|www\.|@\w+\.\w")
SECTION_NUMBER = re.compile(r"(?<![\w.])\d{1,2}\.?\s+[A-Z]{3,}(?:\s+[A-Z]{2,})*\s+[A-Z][a-z]")


@pytest.fixture(scope="module")
def drafted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    corpus = tmp_path_factory.mktemp("real") / "corpus"
    result = runner.invoke(app, ["ingest", "pdf", *map(str, PDFS), str(corpus), "--venue", "ICLR2024", "-q"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    result = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive"])
    assert result.exit_code == 0 and result.exception is None, result.output
    check = runner.invoke(app, ["check", str(corpus), "--grounding"])
    assert check.exception is None or isinstance(check.exception, SystemExit), check.output
    assert "Traceback" not in result.output + check.output
    return corpus, check.output


def _notes(corpus: Path) -> dict[str, Path]:
    """PDF name -> its note (ingest files each PDF beside its note)."""
    found = {}
    for pdf in corpus.rglob("*.pdf"):
        digest = pdf.read_bytes()
        source = next(p for p in PDFS if p.stat().st_size == len(digest) and p.read_bytes() == digest)
        found[source.name] = pdf.with_suffix(".md")
    return found


def _prose(text: str) -> list[str]:
    """The sentences a section quotes: marks, table rows and a table's caption line left out."""
    lines = [line.removeprefix("> ").removeprefix("- ") for line in text.split("\n")]
    kept = [re.sub(r"\s*\((?:第 \d+(?:–\d+)? 页|p\. \d+)\)$", "", line) for line in lines
            if line.strip() and not line.startswith(("*", "|", ">", "Table", "TABLE")) and line.strip() != ">"]
    return [s for line in kept for s in split_sentences(line)]


def test_every_shared_paper_gets_a_grounded_note_from_its_own_parts(drafted: tuple[Path, str]) -> None:
    corpus, check = drafted
    notes = _notes(corpus)
    assert len(notes) == len(PDFS), sorted(notes)
    assert "is not in the paper" not in check and "0 of " in check, check
    problems: list[str] = []
    for name, note in sorted(notes.items()):
        front, body, _ = read(note.read_text(encoding="utf-8"))
        assert front is not None and front["draft_engine"] == "extractive", name
        if front["grounding"]["unsupported"]:
            problems.append(f"{name}: {front['grounding']}")
        _, sections = split_body(body)
        parts = {p.key: p.content for p in sections if p.key}
        paper = read_paper(note.with_suffix(".pdf"), cache_dir(corpus))
        if paper.tables and not re.search(r"^\|.+\|\n\|(?:---\|)+\n\|", parts["experiments"], re.M):
            problems.append(f"{name}: no results table with a header row")
        seen: dict[str, str] = {}
        for key, text in parts.items():
            if key == "ratings":
                continue
            for sentence in _prose(text):
                norm = re.sub(r"\W+", "", sentence.casefold())
                if len(norm) > 30 and norm in seen:
                    problems.append(f"{name}: twice ({seen[norm]}, {key}): {sentence[:80]}")
                seen[norm] = key
                for what, pattern in (("footnote mark", FOOTNOTE_MARK), ("URL or e-mail", URL),
                                      ("section number", SECTION_NUMBER)):
                    if pattern.search(sentence):
                        problems.append(f"{name}: {what} in {key}: {sentence[:100]}")
    assert not problems, "\n".join(problems)


def test_read_json_and_check_exit_cleanly_on_every_shared_paper(drafted: tuple[Path, str]) -> None:
    corpus, _ = drafted
    for pdf in sorted(corpus.rglob("*.pdf")):
        result = runner.invoke(app, ["read", str(pdf), "--json"])
        assert result.exit_code == 0 and result.exception is None, (pdf.name, result.output[-300:])
        assert re.search(r"[\ud800-\udfff]", result.output) is None
