"""PDFs in: the first page read (title, authors, abstract, arXiv id, venue), `ingest pdf`, `new --pdf`.

Every PDF is generated (``tests/pdfgen.py``) in the layout of a conference
template: ICLR's running header, NeurIPS's footnote and authors over their
affiliations, ICML's two columns with the venue at the foot of the first one,
arXiv's rotated margin stamp.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pdfgen
from papernotes.cli import app
from papernotes.corpus.frontmatter import read
from papernotes.intake.paper import read_paper
from papernotes.intake.paper.front import title_case
from papernotes.intake.venues import resolve_venue
from papernotes.taxonomy import load_taxonomy

runner = CliRunner()
ABSTRACT = pdfgen.ABSTRACT
JACKPOT = "Jackpot: Optimal Budgeted Rejection Sampling for Stable Off-Policy LLM Reinforcement Learning"
LORA_FLOW = "LoRA-Flow: Low-Rank Adapters for Mixture of Experts in GPT-4 and RL"


def iclr(path: Path, **extra: object) -> Path:
    """Two-line title, authors with affiliation digits, footnote marks and e-mails, arXiv stamp, ICLR header."""
    kwargs: dict[str, object] = dict(
        authors=("Ada Reader^{1*}, Bob Parser^{2†} & Chen Li^{1,2}",),
        affiliations=("^{1}University of Somewhere   ^{2}Example Research Lab",
                      "{ada,chen}@somewhere.edu, bob@example.org"),
        heading="ABSTRACT", venue="ICLR", stamp="arXiv:2602.06107v1 [cs.LG] 5 Feb 2026")
    kwargs.update(extra)
    return pdfgen.front_page(path, ("Jackpot: Optimal Budgeted Rejection Sampling",
                                    "for Stable Off-Policy LLM Reinforcement Learning"), abstract=ABSTRACT, **kwargs)


def neurips(path: Path) -> Path:
    """ALL-CAPS title, authors over their affiliations, an abstract without a heading, the NeurIPS footnote."""
    return pdfgen.front_page(
        path, ("LORA-FLOW: LOW-RANK ADAPTERS FOR", "MIXTURE OF EXPERTS IN GPT-4 AND RL"),
        authors=(("Ada Reader^{*}", "Bob Parser^{‡}"),),
        affiliations=(("Department of Reading", "Parsing Institute"), ("ada@read.edu", "bob@parse.org")),
        abstract="We introduce LoRA-Flow, which routes tokens among low-rank adapters. " + ABSTRACT,
        heading="", venue="NeurIPS", metadata_title="lora_flow.dvi")


def icml(path: Path, title: str = "Budgeted Sampling Works") -> Path:
    """Two columns, names separated only by superscripts, ICML's proceedings line at the foot of column one."""
    return pdfgen.front_page(path, (title,), authors=("Ivo Sampler^{* 1} Hana Budget^{* 2} Chen Li^{1}",),
                             abstract=ABSTRACT, venue="ICML", columns=2)


def plain(path: Path, title: str = "A Paper That Prints No Venue") -> Path:
    return pdfgen.front_page(path, (title,), authors=("Dana Author",), abstract=ABSTRACT)


def notes_in(corpus: Path) -> dict[str, dict[str, object]]:
    return {p.relative_to(corpus).as_posix(): read(p.read_text(encoding="utf-8"))[0]
            for p in sorted(corpus.rglob("*.md"))}


# ---------------------------------------------------------------- the first page

@pytest.mark.parametrize("make, title, authors, venue, arxiv", [
    (iclr, JACKPOT, ("Ada Reader", "Bob Parser", "Chen Li"), "ICLR2026", "2602.06107"),
    (neurips, LORA_FLOW, ("Ada Reader", "Bob Parser"), "NeurIPS2025", ""),
    (icml, "Budgeted Sampling Works", ("Ivo Sampler", "Hana Budget", "Chen Li"), "ICML2026", ""),
], ids=["iclr", "neurips", "icml"])
def test_the_first_page_gives_title_authors_abstract_venue_and_arxiv_id(
        tmp_path: Path, make, title: str, authors: tuple[str, ...], venue: str, arxiv: str) -> None:  # type: ignore[no-untyped-def]
    paper = read_paper(make(tmp_path / "p.pdf"))
    assert paper.title == title
    assert paper.authors == authors
    assert paper.abstract.endswith(ABSTRACT) and "Introduction" not in paper.abstract
    assert paper.arxiv == arxiv
    assert resolve_venue((paper.venue_text,), None, load_taxonomy()) == venue
    assert paper.to_dict()["authors"] == list(authors) and type(paper).from_dict(paper.to_dict()) == paper


def test_venue_lines_as_printed(tmp_path: Path) -> None:
    assert read_paper(iclr(tmp_path / "a.pdf")).venue_text == "Published as a conference paper at ICLR 2026"
    assert read_paper(neurips(tmp_path / "b.pdf")).venue_text == \
        "39th Conference on Neural Information Processing Systems (NeurIPS 2025)"
    icml_text = read_paper(icml(tmp_path / "c.pdf")).venue_text  # runs over two lines of the narrow column
    assert icml_text == ("Proceedings of the 43rd International Conference on Machine Learning, Seoul, South Korea. "
                         "PMLR 306, 2026")
    assert read_paper(plain(tmp_path / "d.pdf")).venue_text == ""


def test_a_paper_under_review_has_no_venue(tmp_path: Path) -> None:
    pdfgen.VENUE_LINES["review"] = "Under review as a conference paper at ICLR 2026"
    try:
        path = pdfgen.front_page(tmp_path / "r.pdf", ("Some Title Here",), ("Dana Author",), ABSTRACT,
                                 venue="review")
    finally:
        del pdfgen.VENUE_LINES["review"]
    assert read_paper(path).venue_text == ""


def test_title_case_keeps_acronyms() -> None:
    assert title_case("LORA: LOW-RANK ADAPTATION OF LARGE LANGUAGE MODELS", {"lora": "LoRA"}) == \
        "LoRA: Low-Rank Adaptation of Large Language Models"
    assert title_case("A STUDY OF RL FOR LLMS IN 3D: THE CASE OF GPT-4 AND AI") == \
        "A Study of RL for LLMs in 3D: The Case of GPT-4 and AI"


def test_the_metadata_title_is_only_a_fallback(tmp_path: Path) -> None:
    path = iclr(tmp_path / "a.pdf", metadata_title="Jackpot")  # a short metadata title loses to the page
    assert read_paper(path).title == JACKPOT
    same_size = pdfgen.Paper("From The Metadata Only", outline=False)
    same_size.flow([pdfgen.Para(pdfgen.INTRO)], columns=1)
    assert read_paper(same_size.save(tmp_path / "b.pdf")).title == "From The Metadata Only"


def test_read_shows_the_whole_two_line_title(tmp_path: Path) -> None:
    result = runner.invoke(app, ["read", str(iclr(tmp_path / "a.pdf")), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"# {JACKPOT}"
    listed = json.loads(runner.invoke(app, ["read", str(tmp_path / "a.pdf"), "--no-cache", "--json"]).stdout)
    assert (listed["title"], listed["authors"], listed["arxiv"]) == (JACKPOT, ["Ada Reader", "Bob Parser", "Chen Li"],
                                                                     "2602.06107")
    assert listed["abstract"] == ABSTRACT and listed["venue_text"] == "Published as a conference paper at ICLR 2026"


# ---------------------------------------------------------------- ingest pdf

def bad_and_good(folder: Path) -> Path:
    folder.mkdir()
    good = iclr(folder / "a_jackpot.pdf").read_bytes()
    neurips(folder / "b_loraflow.pdf")
    icml(folder / "c_budgeted.pdf")
    (folder / "d_encrypted.pdf").write_bytes(pdfgen.encrypted(good))
    (folder / "e_truncated.pdf").write_bytes(pdfgen.truncated(good))
    (folder / "f_login.pdf").write_bytes(pdfgen.NOT_PDF)
    pdfgen.empty(folder / "g_empty.pdf")
    scan = pdfgen.Paper("Scanned")
    scan.scanned_page()
    scan.save(folder / "h_scanned.pdf")
    (folder / "notes.txt").write_text("not a PDF name: not read\n", encoding="utf-8")
    return folder


def test_ingest_a_folder_of_pdfs(tmp_path: Path) -> None:
    folder = bad_and_good(tmp_path / "pdfs")
    corpus = tmp_path / "notes"
    result = runner.invoke(app, ["ingest", "pdf", str(folder), str(corpus)])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if ": error:" in line]
    assert errors == [
        f"{folder / 'd_encrypted.pdf'}: error: encrypted PDF: it needs a password; save an unprotected copy",
        f"{folder / 'e_truncated.pdf'}: error: truncated PDF (no %%EOF marker at the end); download it again",
        f"{folder / 'f_login.pdf'}: error: not a PDF (it starts with '<!DOCTYPE html>')",
        f"{folder / 'g_empty.pdf'}: error: empty file",
        f"{folder / 'h_scanned.pdf'}: error: no text layer on any of its 1 page(s) (a scanned paper?); run OCR on "
        "it first (e.g. ocrmypdf)"]
    assert "3 paper(s) read: 3 new stub(s)" in result.stdout and "3 PDF(s) filed beside their notes" in result.stdout
    notes = notes_in(corpus)
    sources = {"ICLR2026/jackpot_optimal_budgeted_rejection_sampling_for_stable_off_policy_llm.md":
               "a_jackpot.pdf", "ICML2026/budgeted_sampling_works.md": "c_budgeted.pdf",
               "NeurIPS2025/lora_flow_low_rank_adapters_for_mixture_of_experts_in_gpt_4_and_rl.md": "b_loraflow.pdf"}
    assert sorted(notes) == sorted(sources)
    for rel, name in sources.items():  # each PDF beside its note, byte for byte
        assert (corpus / rel).with_suffix(".pdf").read_bytes() == (folder / name).read_bytes()
    jackpot = notes[sorted(notes)[0]]
    assert jackpot["title"] == JACKPOT and jackpot["authors"] == ["Ada Reader", "Bob Parser", "Chen Li"]
    assert jackpot["links"] == {"arxiv": "https://arxiv.org/abs/2602.06107"} and jackpot["abstract"] == ABSTRACT
    assert jackpot["status"] == "stub" and jackpot["venue"] == "ICLR2026"
    files = [p.relative_to(corpus).as_posix() for p in corpus.rglob("*") if p.is_file()]
    assert len([f for f in files if not f.startswith(".papernotes/")]) == 6  # nothing half-written, no bad file
    again = runner.invoke(app, ["ingest", "pdf", str(folder / "a_jackpot.pdf"), str(folder / "c_budgeted.pdf"),
                                str(corpus)])
    assert again.exit_code == 0 and "0 new stub(s), 0 stub(s) updated, 2 already in" in again.stdout
    assert "filed" not in again.stdout


def test_the_printed_venue_wins_and_venue_fills_in(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    plain(folder / "plain.pdf")
    iclr(folder / "iclr.pdf")
    corpus = tmp_path / "notes"
    missing = runner.invoke(app, ["ingest", "pdf", str(folder), str(corpus)])
    assert missing.exit_code == 1
    assert f"{folder / 'plain.pdf'}: error: no venue for 'A Paper That Prints No Venue'; pass --venue" in \
        missing.stderr.splitlines()
    filled = runner.invoke(app, ["ingest", "pdf", str(folder), str(corpus), "--venue", "ICML2026"])
    assert filled.exit_code == 0, filled.output
    assert sorted(n["venue"] for n in notes_in(corpus).values()) == ["ICLR2026", "ICML2026"]
    assert (corpus / "ICML2026/a_paper_that_prints_no_venue.pdf").is_file()


def test_a_duplicate_pdf_joins_the_note_already_there(tmp_path: Path) -> None:
    corpus = tmp_path / "notes"
    csv = tmp_path / "list.csv"
    csv.write_text(f"title,venue,arxiv\n\"{JACKPOT.upper()}\",ICLR2026,\nBudgeted Sampling Works,ICML2026,\n",
                   encoding="utf-8")
    assert runner.invoke(app, ["ingest", "csv", str(csv), str(corpus)]).exit_code == 0
    hand = corpus / "ICML2026/budgeted_sampling_works.md"
    hand.write_text(hand.read_text(encoding="utf-8") + "\nMy own words.\n", encoding="utf-8")  # edited by hand
    folder = tmp_path / "pdfs"
    folder.mkdir()
    iclr(folder / "jackpot.pdf")
    iclr(folder / "jackpot_v2.pdf", metadata_title="another copy")  # the same paper twice in one run
    icml(folder / "budgeted.pdf")
    result = runner.invoke(app, ["ingest", "pdf", str(folder), str(corpus)])
    assert result.exit_code == 0, result.output
    assert "3 paper(s) read (1 duplicate(s) merged): 0 new stub(s), 1 stub(s) updated, 1 already in" in result.stdout
    assert f"{folder / 'jackpot_v2.pdf'}: warning: the same paper as {folder / 'jackpot.pdf'}, whose PDF is filed; " \
           "not filed" in result.stderr
    stub = corpus / "ICLR2026/jackpot_optimal_budgeted_rejection_sampling_for_stable_off_policy_llm.md"
    assert stub.with_suffix(".pdf").read_bytes() == (folder / "jackpot.pdf").read_bytes()
    assert read(stub.read_text(encoding="utf-8"))[0]["authors"] == ["Ada Reader", "Bob Parser", "Chen Li"]
    assert hand.with_suffix(".pdf").read_bytes() == (folder / "budgeted.pdf").read_bytes()
    assert hand.read_text(encoding="utf-8").endswith("My own words.\n")
    other = pdfgen.front_page(tmp_path / "other.pdf", ("Budgeted Sampling Works",), ("Ivo Sampler",), "Another print.",
                              venue="ICML")
    kept = runner.invoke(app, ["ingest", "pdf", str(other), str(corpus)])
    assert kept.exit_code == 0
    assert f"{other}: warning: not filed: ICML2026/budgeted_sampling_works.md already has another PDF " \
           "(ICML2026/budgeted_sampling_works.pdf), kept" in kept.stderr
    assert hand.with_suffix(".pdf").read_bytes() == (folder / "budgeted.pdf").read_bytes()


def test_ingest_pdf_arguments(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["ingest", "pdf", str(empty), str(tmp_path / "missing.pdf"), str(tmp_path / "c")])
    assert result.exit_code == 1
    assert [line for line in result.stderr.splitlines() if ": error:" in line] == [
        f"{empty}: error: no PDF in this folder", f"{tmp_path / 'missing.pdf'}: error: file not found"]
    assert not (tmp_path / "c").exists()


def test_draft_takes_the_abstract_from_the_pdf(tmp_path: Path) -> None:
    """The issue's case: a stub without an abstract, its PDF beside it (abstract without a heading)."""
    corpus = tmp_path / "notes"
    csv = tmp_path / "list.csv"
    csv.write_text(f"title,venue\n{LORA_FLOW},NeurIPS2025\n", encoding="utf-8")
    assert runner.invoke(app, ["ingest", "csv", str(csv), str(corpus)]).exit_code == 0
    (stub,) = corpus.rglob("*.md")
    neurips(stub.with_suffix(".pdf"))
    result = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive"])
    assert result.exit_code == 0, result.output
    assert read(stub.read_text(encoding="utf-8"))[0]["status"] == "drafted"
    assert "LoRA-Flow" in stub.read_text(encoding="utf-8").split("---", 2)[2]


# ---------------------------------------------------------------- new --pdf

def test_new_from_a_pdf(tmp_path: Path) -> None:
    corpus = tmp_path / "notes"
    pdf = iclr(tmp_path / "paper.pdf")
    result = runner.invoke(app, ["new", str(corpus), "--pdf", str(pdf), "--domain", "reinforcement_learning",
                                 "--lang", "en"])
    assert result.exit_code == 0, result.output
    note = corpus / "ICLR2026/reinforcement_learning" / \
        "jackpot_optimal_budgeted_rejection_sampling_for_stable_off_policy_llm.md"  # cut at a word's end
    front = read(note.read_text(encoding="utf-8"))[0]
    assert (front["title"], front["venue"], front["authors"]) == (JACKPOT, "ICLR2026",
                                                                  ["Ada Reader", "Bob Parser", "Chen Li"])
    assert front["abstract"] == ABSTRACT and front["links"] == {"arxiv": "2602.06107"}
    assert note.with_suffix(".pdf").read_bytes() == pdf.read_bytes()
    assert "## TL;DR" in note.read_text(encoding="utf-8")
    twice = runner.invoke(app, ["new", str(corpus), "--pdf", str(pdf), "--domain", "optimization"])
    assert twice.exit_code == 2
    assert twice.stderr.splitlines() == [f"error: {pdf}: the paper of {note.relative_to(corpus).as_posix()} (the same "
                                         "arXiv id or title); `papernotes ingest pdf` files its PDF beside that note"]
    given = runner.invoke(app, ["new", str(corpus), "--pdf", str(pdf), "--domain", "reinforcement_learning",
                                "--title", "Jackpot", "--arxiv", "2602.99999", "--venue", "ICML2026",
                                "--author", "Someone Else"])
    assert given.exit_code == 0, given.output
    front = read((corpus / "ICML2026/reinforcement_learning/jackpot.md").read_text(encoding="utf-8"))[0]
    assert (front["title"], front["venue"], front["authors"]) == ("Jackpot", "ICML2026", ["Someone Else"])


def test_new_from_a_pdf_refuses_and_writes_nothing(tmp_path: Path) -> None:
    corpus = tmp_path / "notes"
    no_venue = runner.invoke(app, ["new", str(corpus), "--pdf", str(plain(tmp_path / "p.pdf")), "--domain",
                                   "optimization"])
    assert no_venue.exit_code == 2
    assert f"error: {tmp_path / 'p.pdf'}: no venue printed on its first page; pass --venue" in no_venue.stderr
    broken = tmp_path / "t.pdf"
    broken.write_bytes(pdfgen.truncated(iclr(tmp_path / "full.pdf").read_bytes()))
    bad = runner.invoke(app, ["new", str(corpus), "--pdf", str(broken), "--domain", "optimization"])
    assert bad.exit_code == 1
    assert bad.stderr.splitlines() == [f"{broken}: error: truncated PDF (no %%EOF marker at the end); download it "
                                       "again"]
    assert not corpus.exists()
    fine = runner.invoke(app, ["new", str(corpus), "--pdf", str(tmp_path / "p.pdf"), "--domain", "optimization",
                               "--venue", "ICML2026"])
    assert fine.exit_code == 0, fine.output
    assert sorted(p.name for p in (corpus / "ICML2026/optimization").iterdir()) == [
        "a_paper_that_prints_no_venue.md", "a_paper_that_prints_no_venue.pdf"]


def test_new_still_asks_for_what_is_missing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["new", str(tmp_path / "c")], input="My Title\nICLR2024\noptimization\n")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "c/ICLR2024/optimization/my_title.md").is_file()
