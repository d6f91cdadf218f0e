"""Citations (``papernotes/cite.py``): BibTeX and CSL-JSON that real parsers read back, stable keys, the
``citation_*`` meta tags and Cite box of note pages, the ``.bib`` files of the site and ``papernotes export``.

BibTeX is read back with bibtexparser (the ``ingest`` extra, installed with ``test``) and its LaTeX decoded
with pylatexenc (bibtexparser's own dependency), so an escape our writer gets wrong shows as a changed
title or name. Building a site never imports either.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import bibtexparser
from hypothesis import given, settings
from hypothesis import strategies as st
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from typer.testing import CliRunner

from papernotes.cite import (
    Citation,
    base_key,
    bibtex,
    bibtex_entry,
    csl_item,
    csl_json,
    latex_escape,
    plain,
    unique_keys,
)
from papernotes.cli import app

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

_DB = get_default_latex_context_db()
# pylatexenc renders \textasciicircum as the modifier letter ˆ (U+02C6); LaTeX prints a caret
_DB.add_context_category("literal-caret", prepend=True, macros=[MacroTextSpec("textasciicircum", "^")])
_LATEX = LatexNodes2Text(latex_context=_DB)


def decode(value: str) -> str:
    return _LATEX.latex_to_text(value)


def names(field: str) -> list[str]:
    """A BibTeX ``author`` field split at `` and `` outside braces, each name decoded."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(field):
        ch = field[i]
        if ch == "\\":
            i += 2
            continue
        depth += ch == "{"
        depth -= ch == "}"
        if depth == 0 and field.startswith(" and ", i):
            parts.append(field[start:i])
            start = i = i + 5
            continue
        i += 1
    parts.append(field[start:])
    return [decode(p) for p in parts]


def parse(text: str) -> list:  # type: ignore[type-arg]
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    return library.entries


def cite(title: str, authors: tuple[str, ...] = ("Ada Lovelace",), kind: str = "conference",
         container: str = "Conference on Things", arxiv: str = "2402.14740") -> Citation:
    return Citation(base_key(authors, "2024", title), kind, plain(title), tuple(plain(a) for a in authors), "2024",
                    plain(container), arxiv)


# ------------------------------------------------------------------ escaping survives a real parser

SPECIALS = "{}%&$#_~^\\"
TEXT = st.text(st.one_of(st.sampled_from(list(SPECIALS + "-`'!?<>,@\"=and ")), st.characters(
    blacklist_categories=("Cc", "Cs", "Zl", "Zp"))), min_size=1, max_size=60).filter(lambda s: plain(s) != "")


def test_latex_specials_and_unicode_survive_bibtexparser() -> None:
    title = r"50% of {ReLU} & $x_1$ #1 ~ a^2 \cite -- ``q'' ?` — Gallé 中文 @misc{x,"
    authors = ("Zoë O'Brien-Núñez", "Smith and Sons", "Doe, J. {Jr}", "张伟", "A_B \\ C%")
    [entry] = parse(bibtex_entry(cite(title, authors)))
    assert decode(entry["title"]) == title
    assert names(entry["author"]) == list(authors)
    assert entry["eprint"] == "2402.14740" and entry.entry_type == "inproceedings"


@settings(max_examples=300, deadline=None)
@given(title=TEXT, authors=st.lists(TEXT, min_size=1, max_size=4), container=TEXT)
def test_any_title_and_names_round_trip_through_bibtex(title: str, authors: list[str], container: str) -> None:
    c = cite(title, tuple(authors), container=container)
    [entry] = parse(bibtex_entry(c))
    assert decode(entry["title"]) == c.title
    assert names(entry["author"]) == list(c.authors)
    assert decode(entry["booktitle"]) == c.container
    assert re.fullmatch(r"[a-z0-9]+", entry.key)


@given(st.text(max_size=40))
def test_the_escaped_text_has_no_bare_special(text: str) -> None:
    escaped = latex_escape(text)
    bare = re.sub(r"\\(textbackslash|textasciitilde|textasciicircum)\{\}|\\[{}%&$#_]|\{\}", "", escaped)
    assert not set(bare) & set(SPECIALS), escaped
    assert "\n" not in escaped and "--" not in escaped  # a ligature broken with {} (-{}-)


# ------------------------------------------------------------------ keys


def test_keys_are_surname_year_and_first_title_word() -> None:
    assert base_key(("Arash Ahmadian",), "2024", "Back to Basics: Revisiting REINFORCE") == "ahmadian2024back"
    assert base_key(("Gallé, Matthias",), "2024", "The Lion Optimizer") == "galle2024lion"  # "the" skipped
    assert base_key(("张伟",), "2025", "扩散模型") == "paper2025"
    assert base_key((), "2023", "On Scaling") == "2023scaling"


def test_keys_are_made_unique_in_order() -> None:
    same = [cite("Scaling Laws", ("Jane Smith",)) for _ in range(3)] + [cite("Scaling Laws", ("J. Smithb",))]
    keys = [c.key for c in unique_keys(same)]
    assert keys[0] == "smith2024scaling" and len(set(keys)) == 4
    assert keys[1:3] == ["smith2024scalingb", "smith2024scalingc"]
    entries = parse(bibtex(unique_keys(same)))
    assert [e.key for e in entries] == keys


# ------------------------------------------------------------------ CSL-JSON

# What csl-data.json of citation-style-language/schema (MIT) requires of the items we write. We do not vendor
# a JSON Schema validator, so this checks the schema's rules for the variables cite.csl_item uses: every item
# an object with `type` (from the schema's enum) and `id` (string or number); no property outside the schema
# (additionalProperties: false); names as name-variables (family/given/literal strings); `issued` as a
# date-variable whose date-parts is 1-2 arrays of 1-3 numbers or strings; the rest strings.
CSL_TYPES = {"article", "article-journal", "paper-conference", "webpage", "report"}  # the subset we may write
CSL_STRINGS = {"title", "container-title", "URL", "number", "publisher", "DOI"}
NAME_KEYS = {"family", "given", "literal", "dropping-particle", "non-dropping-particle", "suffix"}


def assert_csl(items: object) -> None:
    assert isinstance(items, list)
    for item in items:
        assert isinstance(item, dict) and {"type", "id"} <= item.keys(), item
        assert item["type"] in CSL_TYPES and isinstance(item["id"], (str, int))
        assert item.keys() <= {"type", "id", "author", "issued"} | CSL_STRINGS, item.keys()
        for name in item.get("author", []):
            assert isinstance(name, dict) and name and name.keys() <= NAME_KEYS
            assert all(isinstance(v, str) and v for v in name.values())
        if "issued" in item:
            parts = item["issued"]["date-parts"]
            assert item["issued"].keys() == {"date-parts"} and 1 <= len(parts) <= 2
            assert all(1 <= len(p) <= 3 and all(isinstance(x, (int, str)) for x in p) for p in parts)
        assert all(isinstance(item[k], str) for k in CSL_STRINGS & item.keys())


def test_csl_json_keeps_every_field_and_fits_the_schema() -> None:
    found = [cite("A & B: {x}", ("Ada Lovelace", "Smith, John", "张伟")),
             cite("Preprint", kind="preprint", container=""), cite("J", kind="journal", container="JMLR", arxiv="")]
    items = json.loads(csl_json(found))
    assert_csl(items)
    assert items[0]["title"] == "A & B: {x}" and items[0]["type"] == "paper-conference"
    assert items[0]["author"] == [{"family": "Lovelace", "given": "Ada"}, {"family": "Smith", "given": "John"},
                                  {"literal": "张伟"}]
    assert items[0]["issued"] == {"date-parts": [[2024]]} and items[0]["container-title"] == "Conference on Things"
    assert items[1]["type"] == "article" and items[1]["publisher"] == "arXiv" and "container-title" not in items[1]
    assert items[2]["type"] == "article-journal" and "URL" not in items[2]
    assert csl_item(found[0])["URL"] == "https://arxiv.org/abs/2402.14740"


# ------------------------------------------------------------------ the built site


class _Meta(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.meta: list[tuple[str, str]] = []
        self.links: list[str] = []
        self.bib = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and (a.get("name") or "").startswith("citation_"):
            self.meta.append((a["name"] or "", a.get("content") or ""))
        if tag == "a" and a.get("type") == "application/x-bibtex":
            self.bib = a.get("href") or ""


def meta_of(html: str) -> _Meta:
    found = _Meta()
    found.feed(html)
    return found


def test_a_note_page_carries_the_papers_highwire_tags_and_a_cite_box(example_site) -> None:
    site, _ = example_site
    page = site / "ACL2024/llm_alignment/back_to_basics_revisiting_reinforce-style_optimization_for_learning_from_human"
    html = (page / "index.html").read_text(encoding="utf-8")
    tags = meta_of(html).meta
    assert tags == [
        ("citation_title", "Back to Basics: Revisiting REINFORCE-Style Optimization for Learning from Human "
                           "Feedback in LLMs"),
        ("citation_author", "Arash Ahmadian"), ("citation_author", "Chris Cremer"),
        ("citation_author", "Matthias Gallé"), ("citation_author", "Marzieh Fadaee"),
        ("citation_publication_date", "2024"),
        ("citation_conference_title", "Annual Meeting of the Association for Computational Linguistics"),
        ("citation_arxiv_id", "2402.14740"), ("citation_pdf_url", "https://arxiv.org/pdf/2402.14740")]
    box = re.search(r'<section class="cite".*?<pre class="bibtex" id="bibtex"><code>(.*?)</code></pre>\n'
                    r'<button type="button" class="copy-cite" data-copy="bibtex" [^>]*hidden>', html, re.S)
    assert box is not None and "<h2 id=\"cite-heading\">引用</h2>" in html
    [entry] = parse(box.group(1).replace("&#39;", "'").replace("&amp;", "&"))
    assert entry.key == "ahmadian2024back" and entry["year"] == "2024"
    en = (site / "en" / page.relative_to(site) / "index.html").read_text(encoding="utf-8")
    assert '<h2 id="cite-heading">Cite</h2>' in en and ">Copy BibTeX</button>" in en


def test_the_bib_of_a_venue_domain_page_holds_exactly_its_papers(example_site) -> None:
    site, _ = example_site
    cell = site / "ICML2024/optimization"
    listing = (cell / "index.html").read_text(encoding="utf-8")
    href = meta_of(listing).bib
    assert href == "../../bib/ICML2024-optimization.bib"
    notes = re.findall(r'<dt><a href="([^"/]+)/"', listing)
    assert len(notes) >= 3
    titles = sorted(dict(meta_of((cell / n / "index.html").read_text(encoding="utf-8")).meta)["citation_title"]
                    for n in notes)
    entries = parse((cell / href).resolve().read_text(encoding="utf-8"))
    assert sorted(decode(e["title"]) for e in entries) == titles
    assert len({e.key for e in entries}) == len(entries)
    assert {e["booktitle"] for e in entries} == {"International Conference on Machine Learning"}
    # the site's file holds every paper once, the same as `papernotes export`
    everything = parse((site / "bib/all.bib").read_text(encoding="utf-8"))
    assert meta_of((site / "index.html").read_text(encoding="utf-8")).bib == "bib/all.bib"
    assert len(everything) == 47 == len({e.key for e in everything})  # the examples' originals
    assert {e.key for e in entries} <= {e.key for e in everything}


def test_export_writes_the_sites_bib_and_csl_json(example_site, tmp_path: Path) -> None:
    site, _ = example_site
    result = runner.invoke(app, ["export", str(EXAMPLES)])
    assert result.exit_code == 0, result.output
    assert result.stdout == (site / "bib/all.bib").read_text(encoding="utf-8")
    out = tmp_path / "papers.json"
    result = runner.invoke(app, ["export", str(EXAMPLES), "--format", "csl-json", "-o", str(out)])
    assert result.exit_code == 0 and f"wrote 47 citation(s) to {out}" in result.stdout
    items = json.loads(out.read_text(encoding="utf-8"))
    assert_csl(items)
    assert [i["id"] for i in items] == [e.key for e in parse((site / "bib/all.bib").read_text(encoding="utf-8"))]


def test_export_reports_a_broken_note_and_fails_after_writing_the_rest(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "ICML2024", corpus / "ICML2024")
    count = len([p for p in corpus.rglob("*.md") if not p.name.endswith((".en.md", ".zh.md"))])
    (corpus / "ICML2024/optimization/broken.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    out = tmp_path / "out.bib"
    result = runner.invoke(app, ["export", str(corpus), "-o", str(out)])
    assert result.exit_code == 1
    assert "ICML2024/optimization/broken.md:" in result.stderr and "error" in result.stderr
    assert len(parse(out.read_text(encoding="utf-8"))) == count
    missing = runner.invoke(app, ["export", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "corpus directory not found" in missing.stderr


def test_a_journal_series_is_cited_as_a_journal(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "tax").mkdir(parents=True)
    (corpus / "tax/venues.toml").write_text('[[series]]\nid = "TMLR"\nname = "TMLR"\nkind = "journal"\n'
                                            'en = "Transactions on Machine Learning Research"\n', encoding="utf-8")
    (corpus / "papernotes.toml").write_text('[taxonomy]\nvenues = ["tax/venues.toml"]\n', encoding="utf-8")
    note = corpus / "TMLR2025/optimization/a.md"
    note.parent.mkdir(parents=True)
    note.write_text('---\ntitle: "Q & A: <b>Bold</b> \\"quoted\\""\nvenue: TMLR2025\ndomain: optimization\n'
                    'authors: ["O\'Neil, Kate"]\n---\n\n## TL;DR\nx\n', encoding="utf-8")
    site = tmp_path / "site"
    assert runner.invoke(app, ["build", str(corpus), "-o", str(site)]).exit_code == 0
    html = (site / "TMLR2025/optimization/a/index.html").read_text(encoding="utf-8")
    assert meta_of(html).meta == [("citation_title", 'Q & A: <b>Bold</b> "quoted"'),
                                  ("citation_author", "O'Neil, Kate"), ("citation_publication_date", "2025"),
                                  ("citation_journal_title", "Transactions on Machine Learning Research")]
    assert '<meta name="citation_title" content="Q &amp; A: &lt;b&gt;Bold&lt;/b&gt; &#34;quoted&#34;">' in html
    [entry] = parse((site / "bib/TMLR2025-optimization.bib").read_text(encoding="utf-8"))
    assert entry.entry_type == "article" and entry["journal"] == "Transactions on Machine Learning Research"
    assert entry.key == "oneil2025q" and "eprint" not in entry.fields_dict


def test_a_bad_venue_kind_is_a_taxonomy_error(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "v.toml").write_text('[[series]]\nid = "X"\nkind = "blog"\n', encoding="utf-8")
    (corpus / "papernotes.toml").write_text('[taxonomy]\nvenues = ["v.toml"]\n', encoding="utf-8")
    result = runner.invoke(app, ["export", str(corpus)])
    assert result.exit_code != 0
    assert "series X: `kind` must be one of conference, journal, preprint" in result.stderr


def test_citing_needs_no_bibtex_library() -> None:
    """bibtexparser and pylatexenc are the ingest extra's: the writer and the site's .bib kind work without them."""
    code = ("import sys; sys.modules['bibtexparser'] = sys.modules['pylatexenc'] = None\n"
            "import papernotes.site.kinds.bib, papernotes.cli.export\n"
            "from papernotes.cite import Citation, bibtex_entry\n"
            "print(bibtex_entry(Citation('k', 'preprint', 'T_1', ('A B',), '2024', '', '')), end='')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "@misc{k,\n  title = {T\\_1},\n  author = {A B},\n  year = {2024},\n}\n"
