"""The offline note from a paper's own parts (``papernotes.intake.parts`` through the ``extractive`` engine), rule by
rule, on generated PDFs (pdfgen): background, method, experiments, highlights, limitations; no sentence twice; no
footnote mark, affiliation, URL, section number or equation fragment in the prose; a table row the text reads
otherwise left out."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")

import pdfgen  # noqa: E402
from pdfgen import Heading, Para, Table  # noqa: E402
from papernotes.cli import app  # noqa: E402
from papernotes.corpus.frontmatter import dump, read  # noqa: E402
from papernotes.intake import parts  # noqa: E402
from papernotes.intake.paper import read_paper  # noqa: E402
from papernotes.intake.paper.model import Figure, Paragraph, PaperText, Section  # noqa: E402
from papernotes.intake.redraft import split_body  # noqa: E402
from papernotes.intake.results import results_table  # noqa: E402

runner = CliRunner()
TITLE = "Tidal Routing: Sending Each Query to the Prompt That Fits It"
CONTRIBUTION = "We propose Tidal Routing, a router that sends each query to the prompt that fits it best."
ABSTRACT = ("Prompt learning adapts language models without touching their weights. " + CONTRIBUTION +
            " On four benchmarks it reaches 51.75 on average, 10.38 points above the baseline.")
PROBLEM = "Prompt learning adapts a frozen language model to a task by rewriting its instructions."
CONTEXT = "Such instructions are cheap to store and easy to inspect by the people who deploy the model."
GAP = "However, one prompt cannot serve a stream that mixes several tasks, since updates for one task harm another."
FOOTNOTE = "* Equal contribution. Work done while interning at Example Labs, Example University."
LINK = "Project page: https://example.org/tidal is where the code lives for everyone to try."
CONTRIBUTIONS = ("Our contributions are as follows. (1) We introduce a router that clusters the incoming queries. "
                 "(2) We show that routing removes the interference between tasks. "
                 "(3) We release the benchmark suite with all of its prompts.")
METHOD_OPENING = ("Tidal Routing has two parts, a router and a set of prompts. The router reads a query and picks "
                  "the prompt whose past queries are closest to it.")
EQUATION = "Let L = sum_i (y_i - f(x_i))^2 + lambda ||w|| be the loss we minimise over w."
RESULT = "As Table 1 shows, Tidal Routing reaches 51.75 on average, 10.38 points above the baseline."
TABLE = Table((("Method", "Math", "Code", "Avg."), ("Baseline", "41.20", "41.54", "41.37"),
               ("Single prompt", "43.10", "44.06", "43.58"), ("Tidal Routing", "50.02", "53.48", "51.75")),
              caption="Table 1: Accuracy on the mixed stream (higher is better).")
LIMITATION = "Tidal Routing needs labelled examples of every task before the stream starts."
CAVEAT = "In future work we will route queries of tasks that the router has never seen."


def _paper(path: Path, limitations: bool = True) -> Path:
    paper = pdfgen.Paper(TITLE)
    paper.front("Ada Reader, Bob Parser", ABSTRACT)
    blocks = [Heading("1", "Introduction"), Para(f"{PROBLEM} {CONTEXT}"), Para(f"{GAP} {LINK}"), Para(FOOTNOTE),
              Para(f"{CONTRIBUTION} {CONTRIBUTIONS}"),
              Heading("2", "Related Work"), Para("Earlier prompt learners optimise one prompt for one dataset at a "
                                                 "time and stop there."),
              Heading("3", "Method"), Para(f"{METHOD_OPENING} {EQUATION}"),
              Heading("4", "Experiments"), Para(RESULT), TABLE]
    if limitations:
        blocks += [Heading("5", "Limitations"), Para(LIMITATION), Heading("6", "Conclusion"),
                   Para("Routing makes prompt learning work on mixed streams.")]
    else:
        blocks += [Heading("5", "Conclusion"), Para(f"Routing makes prompt learning work on mixed streams. {CAVEAT}")]
    paper.flow(blocks, columns=1)
    return paper.save(path)


def _draft(tmp_path: Path, limitations: bool = True) -> dict[str, str]:
    corpus = tmp_path / "c"
    note = corpus / "ICLR2026" / "tidal.md"
    note.parent.mkdir(parents=True)
    (corpus / "papernotes.toml").write_text('language = "en"\n')
    note.write_text("---\n" + dump({"title": TITLE, "venue": "ICLR2026", "status": "stub", "abstract": ABSTRACT})
                    + "---\n", encoding="utf-8")
    _paper(note.with_suffix(".pdf"), limitations)
    result = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive"])
    assert result.exit_code == 0, result.output
    check = runner.invoke(app, ["check", str(corpus), "--grounding"])
    assert "is not in the paper" not in check.output and "0 of " in check.output, check.output
    front, body, _ = read(note.read_text(encoding="utf-8"))
    assert front is not None and front["grounding"]["unsupported"] == 0
    return {"summary": front["summary"], **{p.key: p.content for p in split_body(body)[1] if p.key}}


@pytest.fixture(scope="module")
def note(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _draft(tmp_path_factory.mktemp("parts"))


def test_background_is_the_introductions_problem_and_gap(note: dict[str, str]) -> None:
    assert PROBLEM in note["background"] and GAP in note["background"]
    assert CONTEXT not in note["background"]  # neither problem nor gap
    assert "Introduction" in note["background"]  # the mark names the part quoted


def test_method_is_the_method_sections_opening_and_highlights_the_contributions(note: dict[str, str]) -> None:
    assert "Tidal Routing has two parts, a router and a set of prompts." in note["method"]
    assert "- We introduce a router that clusters the incoming queries." in note["highlights"]
    assert "- We show that routing removes the interference between tasks." in note["highlights"]


def test_experiments_are_the_table_with_its_header_and_the_main_result_sentence(note: dict[str, str]) -> None:
    lines = note["experiments"].split("\n")
    assert "| Method | Math | Code | Avg. |" in lines and "|---|---|---|---|" in lines
    assert "| Tidal Routing | 50.02 | 53.48 | 51.75 |" in lines
    assert f"- {RESULT}" in note["experiments"]


def test_limitations_come_from_the_limitations_section_else_the_conclusions_caveats(note: dict[str, str],
                                                                                   tmp_path: Path) -> None:
    assert LIMITATION in note["limitations"]
    assert CAVEAT in _draft(tmp_path, limitations=False)["limitations"]


def test_no_sentence_twice_and_no_junk_in_the_prose(note: dict[str, str]) -> None:
    everything = "\n".join(note.values())
    assert everything.count("sends each query to the prompt that fits it best") == 1  # summary, not again
    assert everything.count("51.75 on average") == 1  # the abstract's result sentence is not quoted beside it
    for junk in ("Equal contribution", "Example University", "https://", "example.org", "Let L =", "||w||",
                 "3 Method", "1 Introduction"):
        assert junk not in everything, junk


def test_note_prose_takes_marks_off_and_rejects_what_is_not_prose() -> None:
    assert parts.note_prose("Quality drops with too many heads⁴, so we keep eight of them.") == \
        "Quality drops with too many heads, so we keep eight of them."
    assert parts.note_prose("⁵ We used values of 2.8 and 3.7 TFLOPS for the four GPUs.") == \
        "We used values of 2.8 and 3.7 TFLOPS for the four GPUs."
    assert parts.note_prose("We propose R²-Guard, a guardrail that reasons over safety rules.") == \
        "We propose R²-Guard, a guardrail that reasons over safety rules."
    for junk in ("Project Page: https://example.org/a is where our code and models live.",
                 "Contact us at someone@example.org for the data we collected.",
                 "Our code lives in one place. 1 INTRODUCTION Large language models keep growing.",
                 "⋆Core contribution; †Corresponding authors and their affiliations.",
                 "Then h = W x + b and y = σ(h) for every token x of the input."):
        assert parts.note_prose(junk) == "", junk


def test_a_table_row_the_text_reads_otherwise_is_left_out() -> None:
    """pdfium lost a cell's decimal point ("43 98") where the text has 43.98: the row is not shown."""
    rows = (("Method", "Single", "Average"), ("ReACT", "43 98", "29 34"), ("DFSDT", "54.10", "48.75"),
            ("Ours", "60.20", "55.40"))
    text = "Method  Single  Average\nReACT  43.98  29.34\nDFSDT  54.10  48.75\nOurs  60.20  55.40"
    section = Section("4", "Experiments", 5, 1, (Paragraph("Table 2: Pass rate.", 5), Paragraph(text, 5)))
    table = Figure("table", "Table 2", 2, 5, (0.0, 0.0, 1.0, 1.0), "Table 2: Pass rate.", rows)
    paper = PaperText("ab" * 32, 9, "T", (section,), (), False, "headings", tables=(table,))
    found = results_table(paper, "Ours")
    assert found is not None and ("ReACT", "43.98", "29.34") in found.rows  # the text's own reading, all agree
    only_cells = PaperText("ab" * 32, 9, "T", (Section("4", "Experiments", 5, 1, (Paragraph(
        "DFSDT reaches 54.10 and 48.75, ours 60.20 and 55.40.", 5),)),), (), False, "headings", tables=(table,))
    found = results_table(only_cells, "Ours")
    assert found is not None and [r[0] for r in found.rows] == ["DFSDT", "Ours"] and found.rows_left_out == 1


def test_parts_read_straight_from_the_paper(tmp_path: Path) -> None:
    paper = read_paper(_paper(tmp_path / "p.pdf"))
    assert [q.text for q in parts.background(paper)] == [PROBLEM, GAP]
    assert [q.section for q in parts.method_opening(paper)] == ["Method", "Method"]
    assert len(parts.contributions(paper)) == 3 and parts.related(paper)
