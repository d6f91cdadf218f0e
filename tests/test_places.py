"""Trust you can check: each number of a note page carries its place in the paper; each note says where it came from.

A generated paper (``tests/pdfgen.results_paper``: tables with captions, a prose paragraph) goes through the
real pipeline, ``ingest pdf`` → ``draft --engine extractive`` → ``build``, and the built page is read as a
browser without JavaScript would get it. The last test does the same on the real papers of
``../shared/papers`` when they are there.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")

sys.path.insert(0, str(Path(__file__).parent))
import pdfgen  # noqa: E402
from conftest import write_note  # noqa: E402
from papertruth import PAPERS  # noqa: E402

from papernotes.cli import app  # noqa: E402
from papernotes.config import SiteConfig, load_config  # noqa: E402
from papernotes.corpus.frontmatter import read, update  # noqa: E402
from papernotes.corpus.parse import parse_note  # noqa: E402
from papernotes.errors import ConfigError  # noqa: E402
from papernotes.intake.grounding import ground, note_numbers  # noqa: E402
from papernotes.intake.paper import cache_dir, read_paper  # noqa: E402
from papernotes.intake.paper.cache import load  # noqa: E402
from papernotes.site.build import build  # noqa: E402
from papernotes.site.contexts import SiteLabels  # noqa: E402
from papernotes.site.places import wrap_numbers  # noqa: E402
from papernotes.intake.places import NumberPlace, Place  # noqa: E402
from papernotes.site.theme import labels_for  # noqa: E402

runner = CliRunner()
NUM = re.compile(r'<(a|span) class="place( off)?"(?: href="([^"]*)")?(?: tabindex="0")? title="([^"]*)">([^<]*)</\1>')
SHARED = PAPERS  # ../shared/papers (PAPERNOTES_SHARED names another shared folder)


def drafted_corpus(root: Path, pdf_maker=pdfgen.results_paper, config: str = 'language = "en"\n') -> Path:
    """A corpus whose one note was ingested from a generated PDF and drafted offline, with a domain."""
    corpus = root / "c"
    corpus.mkdir(parents=True)
    (corpus / "papernotes.toml").write_text(config, encoding="utf-8")
    pdf = pdf_maker(root / "paper.pdf")
    result = runner.invoke(app, ["ingest", "pdf", str(pdf), str(corpus), "--venue", "ICLR2024"])
    assert result.exit_code == 0, result.output
    drafted = runner.invoke(app, ["draft", str(corpus), "--engine", "extractive"])
    assert drafted.exit_code == 0, drafted.output
    (note,) = corpus.glob("ICLR2024/*.md")
    note.write_text(update(note.read_text(encoding="utf-8"), {"domain": "llm_reasoning"}), encoding="utf-8")
    return corpus


def only_note(corpus: Path) -> Path:
    (note,) = corpus.glob("ICLR2024/*.md")
    return note


def page_of(site: Path, note: Path) -> str:
    (page,) = site.glob(f"{note.parent.name}/*/{note.stem}/index.html")
    return page.read_text(encoding="utf-8")


def findings(corpus: Path, note: Path) -> list:
    parsed, _ = parse_note(note.relative_to(corpus).as_posix(), note.read_text(encoding="utf-8"))
    assert parsed is not None and parsed.grounding is not None
    paper = load(cache_dir(corpus), parsed.grounding.pdf_sha256)
    assert paper is not None, "draft left the paper in the corpus's paper cache"
    _, body, _ = read(note.read_text(encoding="utf-8"))
    return ground(note_numbers(body), paper)


@pytest.fixture(scope="module")
def drafted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(corpus, site): the generated paper drafted and built once; read-only."""
    base = tmp_path_factory.mktemp("places")
    corpus = drafted_corpus(base)
    result = build(corpus, base / "site")
    assert not result.errors, result.errors
    return corpus, base / "site"


def test_every_supported_number_of_the_draft_has_its_place_in_the_markup(drafted: tuple[Path, Path]) -> None:
    corpus, site = drafted
    note = only_note(corpus)
    page = page_of(site, note)
    found = findings(corpus, note)
    supported = {f.number.text for f in found if f.supported}
    assert len(supported) >= 10 and not [f for f in found if not f.supported]
    wrapped = NUM.findall(page)
    assert len(wrapped) >= len(supported)
    places = {text: title for _, off, _, title, text in wrapped if not off}
    assert supported <= set(places), supported - set(places)
    # no JavaScript needed: the place is the number's title, and a keyboard reaches it (no PDF to link: a span)
    assert all(kind == "span" for kind, *_ in wrapped)
    assert all(re.fullmatch(r"p\. \d+( · (Table|Figure) \d+)?", title) for title in places.values())
    # a number of the main results table stands in that table, on the page the reader found it
    tables = {t.label: t.page for t in read_paper(corpus.parent / "paper.pdf").tables}
    assert "Table 2" in tables
    assert places["0.8460"] == f"p. {tables['Table 2']} · Table 2"
    assert f'<td class="num"><span class="place" tabindex="0" title="p. {tables["Table 2"]} · Table 2">0.4400</span></td>' in page


def test_the_provenance_line_says_who_drafted_it_when_and_the_grounding(drafted: tuple[Path, Path]) -> None:
    corpus, site = drafted
    note = only_note(corpus)
    front, _, _ = read(note.read_text(encoding="utf-8"))
    assert front is not None and re.fullmatch(r"\d{4}-\d{2}-\d{2}", front["draft_date"])
    assert "draft_model" not in front and "draft_prompt" not in front  # offline: no model, no prompt
    checked = front["grounding"]["checked"]
    line = re.search(r'<p class="provenance">(.*?)</p>', page_of(site, note), re.S)
    assert line is not None
    assert line.group(1) == (f'<span class="drafted">drafted by extractive · <time datetime="{front["draft_date"]}">'
                             f'{front["draft_date"]}</time></span><span class="edited">not edited by hand since</span>'
                             f'<span class="grounding">numbers checked against the paper: {checked}/{checked}</span>')


def test_edits_an_unsupported_number_an_arxiv_link_and_a_report_link(tmp_path: Path) -> None:
    corpus = drafted_corpus(tmp_path, config='language = "en"\nreport_url = '
                            '"https://github.com/me/notes/issues/new?title=Mistake%20in%20{title}&body={path}"\n')
    note = only_note(corpus)
    text = note.read_text(encoding="utf-8")
    assert "0.8460" in text
    # a person changes a number (marked as the draft would mark it) and gives the arXiv id
    text = update(text.replace("0.8460", "0.8461⚠", 1), {"links": {"arxiv": "2401.01234"}})
    note.write_text(text, encoding="utf-8")
    result = build(corpus, tmp_path / "site")
    assert not result.errors
    page = page_of(tmp_path / "site", note)
    assert '<span class="edited">edited by hand since</span>' in page
    tables = {t.label: t.page for t in read_paper(tmp_path / "paper.pdf").tables}
    wrapped = NUM.findall(page)
    assert wrapped and all(href.startswith("https://arxiv.org/pdf/2401.01234#page=") for _, _, href, _, _ in wrapped)
    off = [(href, title, text) for _, o, href, title, text in wrapped if o]
    n = tables["Table 2"]
    assert off == [(f"https://arxiv.org/pdf/2401.01234#page={n}",
                    f"not in the paper; nearest: 0.8460 (p. {n} · Table 2)", "0.8461")]
    # the mark stays, around the number and its ⚠
    assert '<mark class="ungrounded" title="This number is not in the paper"><a class="place off"' in page
    assert "0.8461</a>⚠</mark>" in page
    title = parse_note(note.relative_to(corpus).as_posix(), text)[0].title
    path = note.relative_to(corpus).as_posix().replace("/", "%2F")
    link = re.search(r'<a class="report" href="([^"]*)" rel="noopener">Report a mistake</a>', page)
    assert link is not None
    assert link.group(1) == ("https://github.com/me/notes/issues/new?title=Mistake%20in%20"
                             + re.sub(r"[^A-Za-z0-9_.~-]", lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode()),
                                      title).replace("&", "&amp;") + f"&amp;body={path}")


def test_a_published_pdf_sits_beside_the_page_and_the_numbers_link_into_it(tmp_path: Path) -> None:
    corpus = drafted_corpus(tmp_path, config='language = "en"\npublish_pdfs = true\n')
    note = only_note(corpus)
    result = build(corpus, tmp_path / "site")
    assert not result.errors
    (folder,) = (tmp_path / "site").glob(f"ICLR2024/*/{note.stem}")
    assert (folder / "paper.pdf").read_bytes() == note.with_suffix(".pdf").read_bytes()
    wrapped = NUM.findall((folder / "index.html").read_text(encoding="utf-8"))
    assert wrapped and all(kind == "a" and re.fullmatch(r"paper\.pdf#page=\d+", href) for kind, _, href, _, _ in wrapped)
    # the PDF goes with its setting: off again, the file goes and the numbers link nowhere
    (corpus / "papernotes.toml").write_text('language = "en"\n', encoding="utf-8")
    assert not build(corpus, tmp_path / "site").errors
    assert not (folder / "paper.pdf").exists()
    assert all(kind == "span" for kind, *_ in NUM.findall((folder / "index.html").read_text(encoding="utf-8")))


@contextmanager
def opened_files() -> Iterator[list[str]]:
    """The files this process opens meanwhile (``sys.addaudithook``: a hook stays, so it records only when asked)."""
    seen: list[str] = []
    _RECORDING.append(seen)
    try:
        yield seen
    finally:
        _RECORDING.remove(seen)


_RECORDING: list[list[str]] = []


def _audit(event: str, args: tuple) -> None:
    if _RECORDING and event == "open" and isinstance(args[0], (str, Path)):
        _RECORDING[-1].append(str(args[0]))


sys.addaudithook(_audit)


def test_a_no_op_build_opens_no_pdf_and_no_paper(tmp_path: Path) -> None:
    corpus = drafted_corpus(tmp_path)
    site = tmp_path / "site"
    assert not build(corpus, site, workers=1).errors
    before = page_of(site, only_note(corpus))
    with opened_files() as seen:
        result = build(corpus, site, workers=1)
    assert not result.errors and result.rendered == 0
    assert seen, "the audit hook records opens"
    assert not [f for f in seen if f.endswith(".pdf") or "/papers/" in f]
    assert page_of(site, only_note(corpus)) == before and NUM.search(before)
    # an edit re-renders the page from the paper cache alone: the PDF is not opened then either
    note = only_note(corpus)
    note.write_text(note.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    with opened_files() as seen:
        assert not build(corpus, site, workers=1).errors
    assert not [f for f in seen if f.endswith(".pdf")]
    assert "One more line." in page_of(site, note) and NUM.search(page_of(site, note))


LABELS_EN = labels_for("en")


def test_numbers_are_wrapped_only_in_text_never_in_tags_code_math_or_links() -> None:
    places = {"0.46": NumberPlace("0.46", True, Place(3, ("table", 1))), "12%": NumberPlace("12%", True, Place(2)),
              "7": NumberPlace("7", True, Place(4))}
    fragment = ('<p title="0.46">We get 0.46 and <code>0.46</code>, <a href="x#0.46">0.46</a>, '
                '<span class="math math-inline">\\(0.46\\)</span>, 12% &amp; 7 GPUs &#55;0.46;</p>'
                '<h2 id="a">0.46</h2><table><tr><td>7</td><td><strong>0.46</strong></td></tr></table>')
    out = wrap_numbers(fragment, places, "https://arxiv.org/pdf/2401.01234", LABELS_EN)
    assert out == ('<p title="0.46">We get <a class="place" href="https://arxiv.org/pdf/2401.01234#page=3" '
                   'title="p. 3 · Table 1">0.46</a> and <code>0.46</code>, <a href="x#0.46">0.46</a>, '
                   '<span class="math math-inline">\\(0.46\\)</span>, <a class="place" '
                   'href="https://arxiv.org/pdf/2401.01234#page=2" title="p. 2">12%</a> &amp; 7 GPUs &#55;'
                   '<a class="place" href="https://arxiv.org/pdf/2401.01234#page=3" title="p. 3 · Table 1">0.46</a>;'
                   '</p><h2 id="a">0.46</h2><table><tr><td><a class="place" href="https://arxiv.org/pdf/2401.01234#page=4" '
                   'title="p. 4">7</a></td><td><strong><a class="place" href="https://arxiv.org/pdf/2401.01234#page=3" '
                   'title="p. 3 · Table 1">0.46</a></strong></td></tr></table>')
    # Chinese labels
    zh = wrap_numbers("<p>0.46</p>", places, "", labels_for("zh"))
    assert zh == '<p><span class="place" tabindex="0" title="第 3 页 · 表 1">0.46</span></p>'
    # nothing known, nothing changed
    assert wrap_numbers(fragment, {}, "", LABELS_EN) == fragment
    assert isinstance(LABELS_EN, SiteLabels)


def test_report_url_is_checked_when_the_config_is_read(tmp_path: Path) -> None:
    (tmp_path / "papernotes.toml").write_text('title = "x"\n\nreport_url = "https://github.com/a/b/issues/new?'
                                              'title={title}&body={page}"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    (problem,) = caught.value.diagnostics
    assert problem.line == 3 and "report_url" in problem.message and "unknown placeholder {page}" in problem.message
    assert "{path}, {title}, {url}" in problem.message
    result = runner.invoke(app, ["build", str(tmp_path), "-o", str(tmp_path / "site")])
    assert result.exit_code != 0 and "report_url" in result.output and "Traceback" not in result.output
    assert SiteConfig(report_url="mailto:me@example.org?subject={title}").report_link(title="A/B", path="x") == \
        "mailto:me@example.org?subject=A%2FB"


def test_init_keeps_pdfs_out_of_the_repository(tmp_path: Path) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    site = tmp_path / "s"
    assert runner.invoke(app, ["init", str(site)]).exit_code == 0
    (site / "ICLR2015" / "paper.pdf").write_bytes(b"%PDF-1.4 a paper\n")
    (site / ".papernotes").mkdir()
    (site / ".papernotes" / "x").write_text("cache")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run([git, "init", "-q", str(site)], check=True, env=env)
    subprocess.run([git, "-C", str(site), "add", "."], check=True, env=env)
    files = subprocess.run([git, "-C", str(site), "ls-files"], check=True, capture_output=True, text=True,
                           env=env).stdout.split()
    assert "papernotes.toml" in files and ".gitignore" in files and any(f.endswith(".md") for f in files)
    assert not [f for f in files if f.endswith(".pdf") or f.startswith(".papernotes/")]


def test_an_imported_note_says_where_it_came_from(tmp_path: Path) -> None:
    docs = tmp_path / "mk" / "docs"
    (docs / "ICML2024" / "optimization").mkdir(parents=True)
    (tmp_path / "mk" / "mkdocs.yml").write_text("site_name: Old Notes\nrepo_url: https://github.com/me/old\n")
    (docs / "ICML2024" / "optimization" / "foo.md").write_text(
        "# Foo\n\n**会议**: ICML 2024\n\n## 一句话总结\nFoo works.\n", encoding="utf-8")
    result = runner.invoke(app, ["import-mkdocs", str(docs), str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    front, _, _ = read((tmp_path / "c" / "ICML2024" / "optimization" / "foo.md").read_text(encoding="utf-8"))
    assert front is not None and front["imported_from"] == {"site": "Old Notes", "path": "ICML2024/optimization/foo.md",
                                                           "repo": "https://github.com/me/old"}
    assert not build(tmp_path / "c", tmp_path / "site").errors
    page = (tmp_path / "site" / "ICML2024" / "optimization" / "foo" / "index.html").read_text(encoding="utf-8")
    assert ('<p class="provenance"><span class="imported">导入自 <a href="https://github.com/me/old" rel="noopener">'
            "Old Notes: ICML2024/optimization/foo.md</a></span></p>") in page
    # a re-import writes the same bytes: the note is unchanged, not rewritten
    again = runner.invoke(app, ["import-mkdocs", str(docs), str(tmp_path / "c")])
    assert again.exit_code == 0 and "1 unchanged" in " ".join(again.output.split()), again.output


def test_a_hand_written_note_shows_no_provenance_and_a_hostile_one_cannot_inject(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "ICML2024/optimization/a.md", title="A", venue="ICML2024", domain="optimization")
    write_note(corpus, "ICML2024/optimization/b.md", title="B", venue="ICML2024", domain="optimization",
               draft_engine='<script>alert(1)</script>', draft_date='"><img src=x onerror=alert(1)>',
               imported_from={"site": "x", "repo": "javascript:alert(1)"})
    assert not build(corpus, tmp_path / "site").errors
    a = (tmp_path / "site" / "ICML2024" / "optimization" / "a" / "index.html").read_text(encoding="utf-8")
    b = (tmp_path / "site" / "ICML2024" / "optimization" / "b" / "index.html").read_text(encoding="utf-8")
    assert 'class="provenance"' not in a
    assert "<script>alert" not in b and "<img src=x" not in b and "javascript:" not in b
    assert "由 &lt;script&gt;alert(1)&lt;/script&gt; 起草" in b


@pytest.mark.slow
def test_every_supported_number_of_the_real_papers_drafts_has_a_place(tmp_path: Path) -> None:
    pdfs = sorted(SHARED.glob("*.pdf")) if SHARED.is_dir() else []
    if not pdfs:
        pytest.skip(f"{SHARED} is absent")
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "papernotes.toml").write_text('language = "en"\n', encoding="utf-8")
    for pdf in pdfs:  # one by one: a paper the reader cannot take is left out, the others go on
        runner.invoke(app, ["ingest", "pdf", str(pdf), str(corpus), "--venue", "ICLR2024"])
    notes = sorted(corpus.glob("*/*.md"))  # filed by the venue each PDF prints
    assert len(notes) >= 10  # today 13 of 16: one PDF is refused (a lone surrogate), two titles read alike
    assert runner.invoke(app, ["draft", str(corpus), "--engine", "extractive"]).exit_code == 0
    for note in notes:
        note.write_text(update(note.read_text(encoding="utf-8"), {"domain": "llm_reasoning"}), encoding="utf-8")
    assert not build(corpus, tmp_path / "site").errors
    supported = placed = 0
    for note in notes:
        places = {text: title for _, off, _, title, text in NUM.findall(page_of(tmp_path / "site", note)) if not off}
        numbers = {f.number.text for f in findings(corpus, note) if f.supported}
        supported += len(numbers)
        placed += len(numbers & set(places))
        assert numbers <= set(places), (note.name, numbers - set(places))
    assert supported >= 300 and placed == supported


def test_a_model_s_draft_records_its_model_prompt_and_date_and_an_offline_redraft_forgets_them(tmp_path: Path) -> None:
    from llm_server import LLMServer, default_responder
    from test_draft import llm_settings, make_corpus

    from papernotes.intake.draft import draft
    from papernotes.intake.prompt import prompt_version

    with LLMServer(default_responder) as server:
        corpus = make_corpus(tmp_path / "c", llm_settings(server), language="en")
        result = draft(corpus, limit=1, lang="en")
    (path,) = result.drafted
    front, _, _ = read((corpus / path).read_text(encoding="utf-8"))
    assert front is not None and front["draft_engine"] == "openai" and front["draft_model"] == "test-model"
    assert front["draft_prompt"] == prompt_version("draft", "en")
    assert re.fullmatch(r"draft\.en@[0-9a-f]{8}", front["draft_prompt"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", front["draft_date"])
    note = corpus / path
    for other in corpus.glob("ICLR2024/*.md"):
        if other != note:
            other.unlink()
    note.write_text(update(note.read_text(encoding="utf-8"), {"domain": "llm_reasoning"}), encoding="utf-8")
    assert not build(corpus, tmp_path / "site").errors
    (page,) = (tmp_path / "site").glob(f"ICLR2024/*/{Path(path).stem}/index.html")
    assert (f'drafted by openai · model test-model · prompt {front["draft_prompt"]} · <time datetime="'
            f'{front["draft_date"]}">') in page.read_text(encoding="utf-8")
    # redrafted offline: no model wrote it any more
    assert draft(corpus, engine="extractive", force=True).drafted
    again, _, _ = read((corpus / path).read_text(encoding="utf-8"))
    assert again is not None and again["draft_engine"] == "extractive"
    assert "draft_model" not in again and "draft_prompt" not in again
