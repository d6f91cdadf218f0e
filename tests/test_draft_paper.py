"""Drafting from the paper beside a note: full text or map-reduce, grounding and repair, marks, the record.

Real PDFs from ``tests/pdfgen.py``, real HTTP against ``tests/llm_server.py``.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")

sys.path.insert(0, str(Path(__file__).parent))
import pdfgen  # noqa: E402
from llm_server import LLMServer, Reply, default_responder, draft_json, ok, title_of  # noqa: E402
from test_draft import llm_settings, make_corpus  # noqa: E402

from papernotes.check.grounding_run import ground_note  # noqa: E402
from papernotes.cli import app  # noqa: E402
from papernotes.corpus.model import Grounding  # noqa: E402
from papernotes.corpus.parse import parse_note  # noqa: E402
from papernotes.intake.draft import Drafted, Stub, draft  # noqa: E402
from papernotes.intake.engines import ENGINES  # noqa: E402
from papernotes.intake.engines._grounding import check, mark  # noqa: E402
from papernotes.intake.engines._paper import estimate_tokens, plan, reply_reserve  # noqa: E402
from papernotes.corpus.frontmatter import read  # noqa: E402
from papernotes.intake.paper import Paragraph, PaperText, Section, read_paper  # noqa: E402

runner = CliRunner()
REL = "ICLR2024/lets_verify_step_by_step.md"
TITLE = "Let's Verify Step by Step"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)


def last_user(body: dict[str, Any]) -> str:
    return [m["content"] for m in body["messages"] if m["role"] == "user"][-1]


def is_map(body: dict[str, Any]) -> bool:
    return "Part of the paper:" in body["messages"][1]["content"] or "论文部分：" in body["messages"][1]["content"]


def results_draft(hard: str, title: str = TITLE) -> str:
    """A valid draft whose results table states ``hard`` for the paper's hard split (0.4642 in the paper)."""
    table = (f"| Method | Hard | Easy |\n|---|---|---|\n| PlainReader | 0.3925 | 0.4410 |\n"
             f"| Ours | {hard} | 0.5131 |")
    reply = json.loads(draft_json(title))
    reply["summary"] = f"Gutter Networks reach {hard} on the hard split of GutterBench."
    reply["sections"]["experiments"] = table
    return json.dumps(reply)


def page_of(paper: PaperText, needle: str) -> int:
    return next(p.page for _, p in paper.paragraphs() if needle in p.text)


# ---------------------------------------------------------------- pure parts

def test_tokens_are_estimated_conservatively() -> None:
    assert estimate_tokens("思维树") == 3  # one per CJK character
    assert estimate_tokens("abcdef") == 2 and estimate_tokens("abcdefg") == 3  # three characters a token, rounded up
    english = "Reading order matters for every downstream step. " * 20
    assert estimate_tokens(english) >= len(english.split()) * 1.2  # more than real tokenizers count


def paper_of(*sections: tuple[str, str, str]) -> PaperText:
    return PaperText("ab" * 32, 3, "T", tuple(Section(n, t, 1 + i, 1, (Paragraph(text, 1 + i),))
                                               for i, (n, t, text) in enumerate(sections)), (), False, "headings")


def test_a_paper_that_fits_goes_whole_and_a_long_one_in_chunks() -> None:
    sections = [(str(i), f"Section {i}", f"Paragraph {i} with result 0.{i}5. " * 80) for i in range(2, 10)]
    paper = paper_of(("1", "Introduction", "We introduce things."), *sections)
    whole = plan(paper, 128_000, 1000, 300)
    assert whole.mode == "full" and "## 9 Section 9 [p. 9]" in whole.text
    long = plan(paper, 4096, 1000, 300)
    assert long.mode == "map" and len(long.chunks) >= 3
    budget = 4096 - reply_reserve(4096) - 300
    assert all(estimate_tokens(c.text) <= budget for c in long.chunks)
    joined = "\n".join(c.text for c in long.chunks)
    assert all(f"## {n} {t} [p." in joined for n, t, _ in sections)  # every section, each once, in order
    assert [joined.index(f"## {n} ") for n, _, _ in sections] == sorted(joined.index(f"## {n} ") for n, _, _ in sections)
    assert long.introduction.startswith("## 1 Introduction")
    assert plan(None, 4096, 1000, 300).mode == "abstract"


def test_captions_reach_the_prompt_within_the_budget() -> None:
    from dataclasses import replace

    from papernotes.intake.paper import Figure

    sections = [(str(i), f"Section {i}", f"Paragraph {i} with result 0.{i}5. " * 80) for i in range(2, 10)]
    figure = Figure("figure", "Figure 1", 1, 2, (50.0, 400.0, 300.0, 600.0), "Figure 1: The method at a glance. " * 20)
    table = Figure("table", "Table 1", 1, 3, (50.0, 100.0, 300.0, 200.0), "Table 1 Main results")
    paper = replace(paper_of(("1", "Introduction", "We introduce things."), *sections), figures=(figure,), tables=(table,))
    whole = plan(paper, 128_000, 1000, 300)
    block = whole.text[whole.text.index("## Figures and tables"):]
    assert block.startswith("## Figures and tables\n\n- [p. 2] Figure 1: The method at a glance.")
    assert block.endswith(" …\n- [p. 3] Table 1 Main results") and len(block) < 400  # long captions cut
    long = plan(paper, 4096, 1000, 300)
    assert long.mode == "map" and "- [p. 3] Table 1 Main results" in long.introduction
    assert estimate_tokens(long.introduction) <= (4096 - reply_reserve(4096) - 1000) // 4
    overhead = 128_000 - reply_reserve(128_000) - estimate_tokens(whole.text)  # the prompt leaves just enough room
    assert plan(paper, 128_000, overhead, 300).mode == "full"
    assert plan(paper, 128_000, overhead + estimate_tokens(block), 300).mode == "map"  # the block counts


def test_a_section_larger_than_a_chunk_is_split_losing_nothing() -> None:
    rows = "\n".join(f"Method{i}  0.{i:04d}  12.{i}" for i in range(400))  # one huge table
    paper = PaperText("ab" * 32, 2, "T", (Section("3", "Results", 1, 1, (Paragraph(rows, 1),
                                                                          Paragraph("word " * 3000, 2))),),
                      (), False, "headings")
    from papernotes.intake.engines._paper import chunks

    parts = chunks(paper, 600)
    assert len(parts) > 5 and all(estimate_tokens(c.text) <= 600 for c in parts)
    assert parts[0].label == "3 Results (part 1)" and parts[1].text.startswith("## 3 Results [p. 1] (continued)")
    assert all(f"Method{i}  0.{i:04d}  12.{i}" in "\n".join(c.text for c in parts) for i in range(400))


def test_unsupported_numbers_are_located_and_marked() -> None:
    paper = paper_of(("1", "Results", "Ours reaches 0.4642 and 0.5131; the baseline 0.3925."))
    stub = Stub("x.md", "", {"title": "T"}, "")
    sections = {k: "Text." for k in ("background", "method", "highlights", "limitations", "related")}
    sections["experiments"] = ("| m | a | b |\n|---|---|---|\n| base | 0.3925 | 0.7 |\n| ours | 0.673 | 0.5131 |\n"
                               "达到0.673，公式 $\\lambda = 0.25$ 与 0.673 repeated.")
    drafted = Drafted("Ours reaches 0.673 on the hard split.", ("k",), sections, {}, "test")
    found = check(stub, drafted, paper, "en")
    assert found.record() == Grounding(9, 7, "ab" * 32, ("0.673", "0.7", "0.25"))
    marked = mark(drafted, found)
    assert marked.summary == "Ours reaches 0.673⚠ on the hard split."
    assert marked.sections["experiments"] == (
        "| m | a | b |\n|---|---|---|\n| base | 0.3925 | 0.7⚠ |\n| ours | 0.673⚠ | 0.5131 |\n"
        "达到0.673⚠，公式 $\\lambda = 0.25$⚠ 与 0.673⚠ repeated.")
    # marking changes no count: the record still describes the marked note
    assert check(stub, marked, paper, "en").record() == found.record()


# ---------------------------------------------------------------- drafting from the paper, over HTTP

def paper_corpus(tmp_path: Path, server: LLMServer, **llm: object) -> tuple[Path, PaperText]:
    corpus = make_corpus(tmp_path / "c", llm_settings(server, **llm), language="en")
    pdf = pdfgen.sample_paper((corpus / REL).with_suffix(".pdf"))
    return corpus, read_paper(pdf)


def test_a_wrong_number_is_caught_and_repaired(tmp_path: Path) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        if title_of(body) != TITLE:
            return default_responder(body)
        return ok(results_draft("0.4642" if "not in the paper" in last_user(body) else "0.673"))

    with LLMServer(responder) as server:
        corpus, paper = paper_corpus(tmp_path, server)
        result = draft(corpus, limit=1, lang="en")
    first, repair = server.requests
    assert "Full text of the paper:" in first.user_text and "\nOurs  0.4642  0.5131  12.5\n" in first.user_text
    assert "## 3 Experiments [p. 1]" in first.user_text and "## A Hyper-parameters [p. 3]" in first.user_text
    assert "## Figures and tables\n\n- [p. 1] Table 1: Accuracy on GutterBench (higher is better)." in first.user_text
    request = last_user(repair.body)
    page = page_of(paper, "0.5131")
    assert (f'- 0.673 (in "TL;DR"); the nearest number in the paper is 0.5131 (p. {page})\n'
            f'- 0.673 (in "Experiments"); the nearest number in the paper is 0.5131 (p. {page})\n') in request
    assert repair.body["messages"][-2] == {"role": "assistant", "content": results_draft("0.673")}
    assert result.ground_repaired == 1 and result.unsupported == 0 and result.grounded == 1
    text = (corpus / REL).read_text()
    assert "⚠" not in text and "| Ours | 0.4642 | 0.5131 |" in text
    note, _ = parse_note(REL, text)
    assert note is not None and note.grounding is not None
    assert note.grounding == Grounding(note.grounding.checked, 0, paper.sha256) and note.grounding.checked >= 6
    # the record agrees with `check --grounding` on the written note
    again = ground_note(corpus, REL, note.summary, note.line_of("summary"))
    assert again is not None and (again.checked, len(again.unsupported)) == (note.grounding.checked, 0)


def test_what_the_repair_does_not_fix_is_marked(tmp_path: Path) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        return ok(results_draft("0.673")) if title_of(body) == TITLE else default_responder(body)

    with LLMServer(responder) as server:
        corpus, paper = paper_corpus(tmp_path, server)
        result = draft(corpus, limit=1, lang="en")
    assert len(server.requests) == 2 and result.ground_repaired == 1
    front, body, _ = read((corpus / REL).read_text())
    assert front is not None and front["summary"] == "Gutter Networks reach 0.673⚠ on the hard split of GutterBench."
    assert "| Ours | 0.673⚠ | 0.5131 |" in body and body.count("⚠") == 2
    # counted as `check --grounding` counts: the front-matter summary, the summary section, the table
    assert front["grounding"]["unsupported"] == 3 and front["grounding"]["not_in_paper"] == ["0.673"]
    assert front["grounding"]["pdf_sha256"] == paper.sha256
    note, _ = parse_note(REL, (corpus / REL).read_text())
    assert note is not None
    found = ground_note(corpus, REL, note.summary, note.line_of("summary"))
    assert found is not None and [f.number.text for f in found.unsupported] == ["0.673"] * 3
    assert found.checked == front["grounding"]["checked"]


def test_chinese_notes_get_the_chinese_prompts_and_repair_list(tmp_path: Path) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        return ok(results_draft("0.673")) if title_of(body) == TITLE else default_responder(body)

    with LLMServer(responder) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server))
        paper = read_paper(pdfgen.sample_paper((corpus / REL).with_suffix(".pdf")))
        draft(corpus, limit=1)
    first, repair = server.requests
    assert first.user_text.startswith("标题：Let's Verify Step by Step\n")
    assert "论文全文：\n## Title, authors and abstract [p. 1]" in first.user_text
    assert "请通读全文" in first.body["messages"][0]["content"]
    page = page_of(paper, "0.5131")
    assert f"- 0.673（位于“实验关键数据”）；论文中最接近的数字是 0.5131（第 {page} 页）" in last_user(repair.body)
    assert "笔记中的这些数字在论文里找不到" in last_user(repair.body)


def long_paper(path: Path, extra: int = 30) -> Path:
    paper = pdfgen.Paper("Gutter Networks: Reading Two-Column Papers in Order")
    paper.front("Ada Reader, Bob Parser", pdfgen.ABSTRACT)
    blocks = pdfgen.sample_blocks()
    for i in range(extra):
        blocks += [pdfgen.Heading(str(5 + i), f"Further Study {i + 1}"),
                   pdfgen.Para(f"In study {i + 1} the score is 0.{71 + i} on split {i + 1}. " + pdfgen.FILLER),
                   pdfgen.Para(pdfgen.FILLER)]
    paper.flow(blocks, columns=2)
    paper.flow([pdfgen.Heading("", "References"), pdfgen.Para(pdfgen.REFERENCES)], columns=2)
    return paper.save(path)


def test_a_paper_longer_than_the_context_goes_through_map_reduce(tmp_path: Path) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        if title_of(body) != TITLE:
            return default_responder(body)
        if is_map(body):
            text = last_user(body)
            facts = [{"fact": f"A reported value is {n}.", "source": "text", "page": 1}
                     for n in re.findall(r"(?<![\d.])0\.\d+", text)]
            return ok(json.dumps({"facts": facts}))
        return ok(results_draft("0.4642"))

    with LLMServer(responder) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server, context_tokens=4096), language="en")
        paper = read_paper(long_paper((corpus / REL).with_suffix(".pdf")))
        result = draft(corpus, limit=1, lang="en")
    *maps, reduce = server.requests
    assert len(maps) >= 3 and all(is_map(r.body) for r in maps) and not is_map(reduce.body)
    budget = 4096 - reply_reserve(4096)
    for request in maps:
        assert sum(estimate_tokens(m["content"]) for m in request.body["messages"]) <= budget
    headings = [s.heading for s in paper.sections if s.heading]
    map_texts = [r.user_text for r in maps]
    for heading in headings:  # every section went to exactly one map request
        assert sum(f"## {heading} [p." in t for t in map_texts) == 1, heading
    content = reduce.user_text
    assert "Facts from the paper, by section:" in content and "Full text of the paper" not in content
    assert "A reported value is 0.4642. [text, p. 1]" in content and "A reported value is 0.80." in content
    assert "## 1 Introduction" in content and "We measure this on 1500 papers" in content
    assert "Pages with three columns" not in content  # later sections reach the reduce step as facts only
    assert "## Figures and tables\n\n- [p. 1] Table 1: Accuracy on GutterBench (higher is better)." in content
    assert result.drafted == (REL,) and result.unsupported == 0 and len(server.requests) == len(maps) + 1


@pytest.mark.parametrize(("damage", "reason"), [
    (pdfgen.truncated, "truncated PDF"),
    (lambda data: pdfgen.encrypted(data), "encrypted PDF"),
    (lambda data: pdfgen.NOT_PDF, "not a PDF"),
])
def test_an_unreadable_pdf_falls_back_to_the_abstract(tmp_path: Path, damage: Any, reason: str) -> None:
    with LLMServer() as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server), language="en")
        pdf = (corpus / REL).with_suffix(".pdf")
        pdf.write_bytes(damage(pdfgen.sample_paper(tmp_path / "ok.pdf").read_bytes()))
        result = runner.invoke(app, ["draft", str(corpus), "--limit", "1"])
    assert result.exit_code == 1, result.output  # an error was printed; the note is drafted all the same
    assert "1 note(s) drafted" in result.stdout and result.stderr.count("error:") == 1
    assert re.search(rf"ICLR2024/lets_verify_step_by_step\.pdf: error: {reason}.*; {re.escape(REL)} is drafted "
                     "from its abstract", " ".join(result.stderr.split()))
    (request,) = server.requests
    assert "Full text" not in request.user_text and "Abstract:" in request.user_text
    assert "You only have the title and abstract" in request.body["messages"][0]["content"]
    front, _, _ = read((corpus / REL).read_text())
    assert front is not None and front["status"] == "drafted" and "grounding" not in front


def test_extractive_puts_result_sentences_with_numbers_under_experiments(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c", language="en")
    paper = read_paper(pdfgen.sample_paper((corpus / REL).with_suffix(".pdf")))
    result = draft(corpus, engine="extractive", lang="en")
    assert len(result.drafted) == 4 and result.grounded == 1
    front, body, _ = read((corpus / REL).read_text())
    # the paper's sentences pass; the stub's (OpenReview) abstract is not this generated paper's
    assert front is not None and front["grounding"]["not_in_paper"] == ["78%"] and result.unsupported == 1
    experiments = body.split("## Experiments\n", 1)[1].split("\n## ", 1)[0]
    page = page_of(paper, "0.4642")
    assert "*From the paper (extractive draft, to be edited)*" in experiments
    assert (f"- Our model reaches 0.4642 on the hard split and 0.5131 on the easy split, with a latency of 12.5 ms "
            f"per page and a memory footprint of 1.2 GB. (p. {page})") in experiments
    assert "lowers the score to 0.4017" in experiments  # the ablation subsection counts too
    assert "Not covered" not in experiments and "Table 1 reports" not in experiments
    limitations = body.split("## Limitations\n", 1)[1].split("\n## ", 1)[0]
    assert "Pages with three columns are read as if they had two." in limitations
    other = "ICLR2024/swe_bench_can_language_models_resolve_real_world_github_issues.md"
    assert "*Not covered by the abstract; to be written.*" in (corpus / other).read_text()  # no PDF: as before


# ---------------------------------------------------------------- registry and CLI

def test_engines_come_from_the_registry() -> None:
    assert ENGINES.names() == ("extractive", "openai", "openai_batch")
    assert ENGINES.get("openai").batch == "openai_batch" and not ENGINES.get("extractive").batch
    help_text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", runner.invoke(app, ["draft", "--help"]).stdout).split())
    assert "One of: extractive, openai, openai_batch." in help_text and "--batch" in help_text


def test_batch_needs_an_engine_with_a_batch_mode(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    result = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive", "--batch"])
    assert result.exit_code != 0 and "has no batch mode (engines with one: openai)" in " ".join(result.stderr.split())
    from papernotes.intake.draft import engine_for

    assert engine_for("openai", batch=True).name == engine_for("openai_batch", batch=True).name == "openai_batch"


# ---------------------------------------------------------------- the note page

def test_note_page_shows_the_grounding_line(tmp_path: Path) -> None:
    from conftest import write_note

    from papernotes.site.build import build

    corpus = tmp_path / "c"
    sha = "c0ffee" * 10 + "abcd"
    write_note(corpus, "ICML2024/optimization/a.md", title="A", venue="ICML2024", domain="optimization",
               summary="Reaches 0.673⚠.", grounding={"checked": 43, "unsupported": 2, "pdf_sha256": sha,
                                                     "not_in_paper": ["0.673", "88.1"]},
               body='## Results\nF1 is 88.1⚠ with $k$⚠ and [a link](https://example.org "0.5⚠").\n')
    write_note(corpus, "ICML2024/optimization/b.md", title="B", venue="ICML2024", domain="optimization")
    (corpus / "papernotes.toml").write_text('language = "en"\n')
    result = build(corpus, tmp_path / "site")
    assert not result.errors
    page = (tmp_path / "site" / "ICML2024" / "optimization" / "a" / "index.html").read_text()
    assert ('<p class="provenance"><span class="grounding">numbers checked against the paper: 41/43 · not in the '
            "paper: <mark>0.673</mark> <mark>88.1</mark></span></p>") in page
    # the marked numbers are highlighted where they stand, in the summary and the body, never inside a tag
    mark = '<mark class="ungrounded" title="This number is not in the paper">'
    assert f'Reaches {mark}0.673⚠</mark>.' in page
    assert f'F1 is {mark}88.1⚠</mark> with' in page
    assert f'</span>{mark}⚠</mark> and' in page
    assert page.count('<mark class="ungrounded"') == page.count(mark) == 3
    assert 'title="0.5⚠"' in page
    assert 'class="provenance"' not in (tmp_path / "site" / "ICML2024" / "optimization" / "b" / "index.html").read_text()


@pytest.mark.parametrize(("value", "message"), [
    ("grounding: 41/43", "`grounding` must be a mapping"),
    ("grounding: {checked: 4, unsupported: 1, pdf_sha256: nothex}", "the PDF's SHA-256 in hex"),
    (f"grounding: {{checked: 4, unsupported: 5, pdf_sha256: {'a' * 64}}}", "5 unsupported of only 4 checked"),
    (f"grounding: {{checked: 4, unsupported: 1, pdf_sha256: {'a' * 64}, not_in_paper: {{x: 1}}}}",
     "`grounding.not_in_paper` must be a list"),
])
def test_a_bad_grounding_record_is_reported_at_its_line(value: str, message: str) -> None:
    note, problems = parse_note("a.md", f"---\ntitle: A\nvenue: X2024\ndomain: d\n{value}\n---\n")
    assert note is not None
    [problem] = [p for p in problems if p.code == "schema"]
    assert problem.line == 5 and message in problem.message
