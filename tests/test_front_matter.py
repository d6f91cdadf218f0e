"""The first page's front matter in any layout: venue lines as data, small caps, figure text, plausibility.

Every PDF is generated (``tests/pdfgen.py``, and pypdf for a form XObject);
``tests/test_real_papers.py`` holds the real papers.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, FloatObject, NameObject
from typer.testing import CliRunner

import pdfgen
from papernotes.cli import app
from papernotes.corpus.frontmatter import read
from papernotes.errors import ConfigError
from papernotes.intake.paper import read_paper
from papernotes.intake.paper.extract import extract_document
from papernotes.intake.paper.front import read_front
from papernotes.intake.plausible import abstract_problem, authors_problem, title_problem
from papernotes.intake.venues import resolve_venue
from papernotes.taxonomy import load_taxonomy, slugify

runner = CliRunner()
ABSTRACT = pdfgen.ABSTRACT
TITLE = ("Gutter Networks for Reading", "Two-Column Papers")
FULL_TITLE = "Gutter Networks for Reading Two-Column Papers"


def page(path: Path, **kwargs: object) -> Path:
    return pdfgen.front_page(path, TITLE, ("Ada Reader^{1}  Bob Parser^{2}",), ABSTRACT,
                             affiliations=("^{1}Gutter University ^{2}Column Institute",), **kwargs)  # type: ignore[arg-type]


# ---------------------------------------------------------------- venue lines, as text

@pytest.mark.parametrize("line, year, venue", [
    ("Proceedings of the 33rd International Conference on Machine Learning, New York, NY, USA, 2016. "
     "JMLR: W&CP volume 48", None, "ICML2016"),
    ("Proceedings of the 38th International Conference on Machine Learning, PMLR 139, 2021", None, "ICML2021"),
    ("31st Conference on Neural Information Processing Systems (NIPS 2017), Long Beach, CA, USA", None,
     "NeurIPS2017"),
    ("Published as a conference paper at ICLR 2021", None, "ICLR2021"),
    ("This CVPR paper is the Open Access version, provided by the Computer Vision Foundation", 2023, "CVPR2023"),
    ("This ICCV paper is the Open Access version, provided by the Computer Vision Foundation", 2021, "ICCV2021"),
    ("Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing, pages 6960-6967",
     None, "EMNLP2021"),
    ("Findings of the Association for Computational Linguistics: EMNLP 2021, pages 1-10", None, "EMNLP2021"),
    ("Findings of the Association for Computational Linguistics: ACL 2023", None, "ACL2023"),
    ("Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational "
     "Linguistics", None, "NAACL2019"),
    ("The Thirty-Second AAAI Conference on Artificial Intelligence (AAAI-18)", None, "AAAI2018"),
    ("Proceedings of the Twenty-Eighth International Joint Conference on Artificial Intelligence (IJCAI-19)", None,
     "IJCAI2019"),
    ("Published as a conference paper at COLM 2024", None, "COLM2024"),
    ("Published in Transactions on Machine Learning Research (06/2023)", None, "TMLR2023"),
    ("Journal of Machine Learning Research 21 (2020) 1-67 Submitted 4/19; Published 6/20", None, "JMLR2020"),
    ("Published as a workshop paper at the Reliable ML Workshop at ICLR 2024", None, ""),
    ("ICML 2024 Workshop on Foundation Models", None, ""),
    ("Preprint. Under review.", None, ""),
    ("Proceedings of the 12th International Conference on Machine Learning and Applications, 2013", None, ""),
])
def test_printed_venue_lines_map_to_venue_ids(line: str, year: int | None, venue: str) -> None:
    assert resolve_venue((line,), year, load_taxonomy()) == venue


def test_venue_patterns_are_data_a_site_extends(tmp_path: Path) -> None:
    extra = tmp_path / "venues.toml"
    extra.write_text("[printed]\nlines = ['^\\W*presented\\s+at\\b']\n\n[[series]]\nid = \"GUTTER\"\nicon = \"📐\"\n"
                     "printed = ['\\bGutter\\s+Meeting\\s+on\\s+Reading\\b']\n", encoding="utf-8")
    taxonomy = load_taxonomy(venues=[extra])
    assert taxonomy.printed.is_cue("Presented at the Gutter Meeting on Reading 2025")
    assert not load_taxonomy().printed.is_cue("Presented at the Gutter Meeting on Reading 2025")
    assert resolve_venue(("the 3rd Gutter Meeting on Reading, 2025",), None, taxonomy) == "GUTTER2025"
    assert resolve_venue(("Published as a conference paper at ICLR 2026",), None, taxonomy) == "ICLR2026"
    bad = tmp_path / "bad.toml"
    bad.write_text("[printed]\nlines = ['(unclosed']\nshades = []\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_taxonomy(venues=[bad])
    messages = [d.message for d in caught.value.diagnostics]
    assert len(messages) == 2 and any("not a regular expression" in m for m in messages)
    assert any("has no `shades`" in m for m in messages)


# ---------------------------------------------------------------- venue lines, as printed

@pytest.mark.parametrize("where, line, venue", [
    ("header", "The Thirty-Second AAAI Conference on Artificial Intelligence (AAAI-18)", "AAAI2018"),
    ("header", "Journal of Machine Learning Research 21 (2020) 1-67 Submitted 4/19; Published 6/20", "JMLR2020"),
    ("header", "Published as a conference paper at COLM 2024", "COLM2024"),
    ("footer", "Proceedings of the Twenty-Eighth International Joint Conference on Artificial Intelligence "
               "(IJCAI-19)", "IJCAI2019"),
    ("footer", "Published in Transactions on Machine Learning Research (06/2023)", "TMLR2023"),
    ("footer", "Findings of the Association for Computational Linguistics: EMNLP 2021", "EMNLP2021"),
    ("header", "Published as a workshop paper at the Reliable ML Workshop at ICLR 2024", ""),
    ("footer", "Preprint. Under review.", ""),
])
def test_a_generated_page_gives_its_venue(tmp_path: Path, where: str, line: str, venue: str) -> None:
    paper = read_paper(page(tmp_path / "p.pdf", **{where: line}))
    assert paper.title == FULL_TITLE and paper.authors == ("Ada Reader", "Bob Parser")
    assert paper.venue_text == ("" if "Under review" in line else line)  # as printed
    assert (resolve_venue((paper.venue_text,), None, load_taxonomy()) if paper.venue_text else "") == venue


def test_ieee_membership_beside_names_is_not_an_author(tmp_path: Path) -> None:
    path = pdfgen.front_page(tmp_path / "ieee.pdf", TITLE, ("Ada Reader, Member, IEEE, and Bob Parser, Fellow, IEEE",),
                             ABSTRACT)
    assert read_paper(path).authors == ("Ada Reader", "Bob Parser")


def test_a_series_named_in_the_body_is_not_a_venue_line(tmp_path: Path) -> None:
    path = pdfgen.front_page(tmp_path / "p.pdf", TITLE, ("Ada Reader",),
                             "We compare with the systems of the AAAI 2018 and ICML 2024 challenges. " + ABSTRACT)
    assert read_paper(path).venue_text == ""


# ---------------------------------------------------------------- small caps, figure text

def test_a_small_caps_title_reads_as_words(tmp_path: Path) -> None:
    path = page(tmp_path / "sc.pdf", small_caps=True)
    runs = {f.text for f in extract_document(str(path), path.read_bytes()).pages[0].fragments}
    assert {"G", "UTTER"} <= runs  # drawn as ICLR draws it
    assert read_paper(path).title == FULL_TITLE


def _with_form_text(path: Path, text: str, at: tuple[float, float]) -> Path:
    """``path`` with ``text`` in 24 pt drawn by a form XObject placed at ``at`` (a figure included as a PDF)."""
    writer = PdfWriter(clone_from=path)
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    form = DecodedStreamObject()
    form.set_data(f"BT /FX 24 Tf 0 0 Td ({text}) Tj ET".encode())
    form.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
                 NameObject("/BBox"): ArrayObject([FloatObject(v) for v in (0, 0, 400, 40)]),
                 NameObject("/Resources"): DictionaryObject({NameObject("/Font"): DictionaryObject(
                     {NameObject("/FX"): font})})})
    first = writer.pages[0]
    resources = first["/Resources"].get_object()
    resources[NameObject("/XObject")] = DictionaryObject({NameObject("/Fm9"): writer._add_object(form)})
    draw = DecodedStreamObject()
    draw.set_data(f"q 0.5 0 0 0.5 {at[0]} {at[1]} cm /Fm9 Do Q".encode())
    contents = first["/Contents"]
    old = list(contents) if isinstance(contents, ArrayObject) else [contents]
    first[NameObject("/Contents")] = ArrayObject([*old, writer._add_object(draw)])
    out = path.with_name(f"form_{path.name}")
    with out.open("wb") as f:
        writer.write(f)
    return out


def test_text_inside_a_form_is_where_the_page_shows_it(tmp_path: Path) -> None:
    label = "Simple Instructions Requiring Rounds"
    path = _with_form_text(page(tmp_path / "p.pdf"), label, (320, 80))
    frags = [f for f in extract_document(str(path), path.read_bytes()).pages[0].fragments if f.text == label]
    assert len(frags) == 1
    assert (round(frags[0].x), round(frags[0].y), round(frags[0].size)) == (320, 80, 12)  # scaled by the cm
    assert read_paper(path).title == FULL_TITLE


def test_text_inside_a_figure_box_is_never_the_title(tmp_path: Path) -> None:
    path = page(tmp_path / "p.pdf")
    doc = extract_document(str(path), path.read_bytes())
    assert read_front(doc).title == FULL_TITLE
    boxed = read_front(doc, boxes=[(0.0, 640.0, 612.0, 792.0)])  # a figure over the title block
    assert boxed.title == "" and boxed.doubts


# ---------------------------------------------------------------- plausibility

@pytest.mark.parametrize("title, why", [
    ("G1 Â |o1 | Â wheremin App̂i,tq(=(ooi,tR|q|(q,q,o,oio,<i)t)) Am̂eani,t clip", "math"),
    ("Figure 1: Left: our method introduces simple yet significant modifications", "a caption"),
    ("word " * 41, "41 words"),
    ("0.1 0.2 0.3 12 14", "no words"),
])
def test_implausible_titles(title: str, why: str) -> None:
    assert why in (title_problem(title) or "")


def test_plausible_fields() -> None:
    assert title_problem("An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale") is None
    assert title_problem("ToolLLM: Facilitating Large Language Models to Master 16000+ Real-world APIs") is None
    assert authors_problem(["Carlo D\u2019Eramo", "\u0141ukasz Kaiser"]) is None
    assert "digits" in (authors_problem(["Ada Reader1"]) or "")
    assert "e-mail" in (authors_problem(["ada@read.edu"]) or "")
    assert "affiliation" in (authors_problem(["Gutter University"]) or "")
    assert authors_problem([]) == "no authors"
    assert "heading" in (abstract_problem("We read columns. 1 I NTRODUCTION Papers are") or "")
    assert "footnote" in (abstract_problem("We read columns. \u2217Equal contribution") or "")


def test_an_implausible_title_falls_back_warns_and_is_reviewed(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    pdfgen.front_page(folder / "gutter_networks_for_reading.pdf", ("x = f(y) + g(z) <= h(w) for all inputs",), ("Ada Reader",),
                      ABSTRACT, venue="ICLR")
    corpus = tmp_path / "notes"
    result = runner.invoke(app, ["ingest", "pdf", str(folder), str(corpus)])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if ": warning: " in line]
    assert len(warnings) == 1 and warnings[0].startswith(f"{folder / 'gutter_networks_for_reading.pdf'}: warning: ")
    assert "file name" in warnings[0] and "(math)" in warnings[0]
    shown = runner.invoke(app, ["read", str(folder / "gutter_networks_for_reading.pdf"), "--no-cache"])
    assert shown.exit_code == 0 and shown.stderr.count(": warning: the title is the file name") == 1
    note = corpus / "ICLR2026/gutter_networks_for_reading.md"
    front = read(note.read_text(encoding="utf-8"))[0]
    assert front["title"] == "gutter networks for reading" and "math" in front["review"]
    check = runner.invoke(app, ["check", str(corpus), "--no-formulas", "--no-classifier"])
    assert check.exit_code == 0
    assert f"ICLR2026/gutter_networks_for_reading.md:{_line(note, 'review')}: warning: marked for review" in \
        check.stderr


def _line(path: Path, key: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if line.startswith(f"{key}:"))


def test_check_warns_on_any_note_with_implausible_front_matter(tmp_path: Path) -> None:
    folder = tmp_path / "ICML2024" / "optimization"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("---\ntitle: 'Figure 2: Results on the hold-out set'\nvenue: ICML2024\n"
                                 "domain: optimization\nauthors: [Ada Reader, ada@read.edu]\n"
                                 "abstract: We read columns. 1 INTRODUCTION Papers are\n---\nbody\n", encoding="utf-8")
    (folder / "b.md").write_text("---\ntitle: Gutter Networks\nvenue: ICML2024\ndomain: optimization\n---\nbody\n",
                                 encoding="utf-8")
    (folder / "c.md").write_text("---\ntitle: Column Networks\nvenue: ICML2024\ndomain: optimization\n"
                                 "authors: [Ada Reader]\nabstract: We read columns.\n---\nbody\n", encoding="utf-8")
    result = runner.invoke(app, ["check", str(tmp_path), "--no-formulas", "--no-classifier"])
    found = sorted(line.split(": warning: ")[0] + " " + " ".join(line.split(": warning: ")[1].split()[:4])
                   for line in result.stderr.splitlines()
                   if any(k in line for k in ("not plausible", "not a name", "no authors", "not all abstract")))
    assert found == ["ICML2024/optimization/a.md:2 the title is not",
                     "ICML2024/optimization/a.md:5 author 'ada@read.edu' is not",
                     "ICML2024/optimization/a.md:6 the abstract is not",
                     "ICML2024/optimization/b.md:1 no authors: list the"]
    assert "(a caption)" in result.stderr and "(an e-mail)" in result.stderr and "'1 INTRODUCTION'" in result.stderr


def test_slugs_end_at_a_word() -> None:
    title = "Jackpot: Optimal Budgeted Rejection Sampling for Stable Off-Policy LLM Reinforcement Learning"
    assert slugify(title) == "jackpot_optimal_budgeted_rejection_sampling_for_stable_off_policy_llm"
    assert slugify("a" * 90) == "a" * 80
    assert slugify("Short Title") == "short_title"

