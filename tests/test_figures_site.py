"""Figures on note pages: the teaser and the front matter's figures, rendered from the PDF beside a note.

Generated PDFs only (``tests/pdfgen.py``): a paper with a vector Figure 1 and a raster Figure 2, one without
figures, one whose caption is hostile markup.
"""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from conftest import write_note
from papernotes.corpus.parse import parse_note
from papernotes.site import figures as site_figures
from papernotes.site.build import build
from pdfgen import FIGURE_1, FIGURE_2, ABSTRACT, Figure, Para, Paper, figures_paper, sample_paper

PIL = pytest.importorskip("PIL.Image")
pytest.importorskip("pypdfium2")

BASE = "https://example.org/notes/"
NOTE_URL = "ICML2024/optimization/gutter/"


def corpus_with(tmp_path: Path, config: str = "", **notes: dict) -> Path:
    """A corpus with the notes ``name -> front matter`` under ICML2024/optimization/."""
    root = tmp_path / "c"
    root.mkdir()
    (root / "papernotes.toml").write_text(f'base_url = "{BASE}"\n{config}', encoding="utf-8")
    for name, fields in notes.items():
        write_note(root, f"ICML2024/optimization/{name}.md", title=f"Paper {name}", venue="ICML2024",
                   domain="optimization", summary=f"The one-line summary of {name}.",
                   body="## 方法详解\n方法。\n", **fields)
    return root


def figure_tags(html: str) -> list[str]:
    return re.findall(r"<figure.*?</figure>", html, re.S)


def test_the_teaser_is_shown_under_the_summary_with_its_size_and_as_og_image(tmp_path: Path) -> None:
    root = corpus_with(tmp_path, 'languages = ["zh", "en"]\n', gutter={})
    figures_paper(root / "ICML2024/optimization/gutter.pdf")
    site = tmp_path / "site"
    result = build(root, site)
    assert not result.errors
    for prefix in ("", "en/"):
        page = site / prefix / NOTE_URL
        html = (page / "index.html").read_text(encoding="utf-8")
        tags = figure_tags(html)
        assert len(tags) == 1 and 'class="teaser"' in tags[0]
        assert html.index('class="tldr"') < html.index('<figure class="teaser"') < html.index('class="body"')
        img = re.search(r'<img src="([^"]+)" alt="([^"]*)" width="(\d+)" height="(\d+)" loading="lazy"', tags[0])
        assert img is not None, tags[0]
        src, alt, width, height = img.groups()
        assert src == "figure-1.webp" and unescape(alt) == FIGURE_1
        assert f"<figcaption>{FIGURE_1}</figcaption>" in tags[0]
        data = (page / src).read_bytes()
        assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
        with PIL.open(io.BytesIO(data)) as picture:
            assert picture.size == (int(width), int(height)) and picture.width >= 800
        og = re.search(r'<meta property="og:image" content="([^"]+)">', html)
        assert og is not None and og.group(1) == f"{BASE}{prefix}{NOTE_URL}figure-1.webp"
        assert not (page / "figure-2.webp").exists()  # Figure 2 only when front matter asks for it
    manifest = (site / "papernotes-manifest.json").read_text(encoding="utf-8")
    assert "figure-1" not in manifest  # the record lists pages, not the images beside them


def test_a_drafted_note_shows_the_teaser_under_its_summary_section(tmp_path: Path) -> None:
    """A draft opens its body with ## 一句话总结: the teaser goes under that section, before the others."""
    root = tmp_path / "c"
    root.mkdir()
    write_note(root, "ICML2024/optimization/gutter.md", title="Paper gutter", venue="ICML2024",
               domain="optimization", summary="The one-line summary.",
               body="## 一句话总结\nThe one-line summary.\n\n## 方法详解\n方法。\n")
    figures_paper(root / "ICML2024/optimization/gutter.pdf")
    assert not build(root, tmp_path / "site").errors
    html = (tmp_path / "site" / NOTE_URL / "index.html").read_text(encoding="utf-8")
    assert 'class="tldr"' not in html
    order = [html.index(mark) for mark in ('<h2 id="一句话总结">', '<figure class="teaser"', '<h2 id="方法详解">')]
    assert order == sorted(order), order
    assert html.count('<h2 id="一句话总结">') == 1 and html.count('<h2 id="方法详解">') == 1


def test_front_matter_adds_figures_removes_them_and_reports_bad_values_with_their_line(tmp_path: Path) -> None:
    root = corpus_with(tmp_path, more={"figures": [2]}, none={"figures": "none"}, bad={"figures": ["x", 9]},
                       plain={})
    for name in ("more", "none", "bad"):
        figures_paper(root / f"ICML2024/optimization/{name}.pdf")
    sample_paper(root / "ICML2024/optimization/plain.pdf")  # a PDF without figures: nothing to show
    site = tmp_path / "site"
    result = build(root, site)
    cell = site / "ICML2024/optimization"
    more = (cell / "more/index.html").read_text(encoding="utf-8")
    assert [t.split('"')[1] for t in figure_tags(more)] == ["teaser", "paper-figure"]
    section = re.search(r'<details class="figures"><summary>论文图表</summary>(.*?)</details>', more, re.S)
    assert section is not None and 'src="figure-2.webp"' in section.group(1) and FIGURE_2 in section.group(1)
    assert sorted(p.name for p in (cell / "more").iterdir()) == ["figure-1.webp", "figure-2.webp", "index.html"]
    assert sorted(p.name for p in (cell / "none").iterdir()) == ["index.html"]
    assert "<figure" not in (cell / "none/index.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in (cell / "plain").iterdir()) == ["index.html"]
    bad = (cell / "bad/index.html").read_text(encoding="utf-8")
    assert len(figure_tags(bad)) == 1  # the teaser still; the page builds
    line = next(i for i, text in enumerate((root / "ICML2024/optimization/bad.md").read_text().splitlines(), 1)
                if text.startswith("figures:"))
    said = [str(d) for d in result.diagnostics if d.code == "figures"]
    assert f"ICML2024/optimization/bad.md:{line}: warning: `figures` lists figure numbers, as in `figures: " \
           f"[2, 3]`, or is `none`; 'x' is not a figure number (ignored)" in said
    assert f"ICML2024/optimization/bad.md:{line}: warning: `figures`: ICML2024/optimization/bad.pdf has no " \
           f"Figure 9 (its figures are 1, 2)" in said
    assert len(said) == 2, said


def test_the_figures_key_reads_numbers_none_and_reports_the_rest() -> None:
    def read(value: str) -> tuple[tuple[int, ...], bool, list[str]]:
        note, problems = parse_note("n.md", f"---\ntitle: T\nvenue: ICML2024\ndomain: optimization\n"
                                            f"figures: {value}\n---\nbody\n")
        assert note is not None
        return note.figures, note.show_figures, [str(p) for p in problems if p.code == "figures"]

    assert read("[2, 3]") == ((2, 3), True, [])
    assert read("[3, 3, 1]") == ((3, 1), True, [])
    assert read("4") == ((4,), True, [])
    assert read('"2, 5"') == ((2, 5), True, [])
    assert read("none") == ((), False, []) and read("false") == ((), False, [])
    assert read("[]") == ((), True, [])
    figures, shown, said = read("[0, -1, 2.5, two, 2]")
    assert (figures, shown) == ((2,), True) and len(said) == 4 and all(s.startswith("n.md:5: warning:") for s in said)


def test_a_caption_is_text_however_it_reads(tmp_path: Path) -> None:
    hostile = 'Figure 1: <img src=x onerror="alert(1)"> & </figcaption><script>alert(2)</script>'
    root = corpus_with(tmp_path, gutter={})
    paper = Paper("Hostile Captions", header="")
    paper.front("Eve Mallory", ABSTRACT)
    paper.flow([Para("Some text before the figure. " * 8), Figure(hostile), Para("Text after. " * 20)])
    paper.save(root / "ICML2024/optimization/gutter.pdf")
    site = tmp_path / "site"
    build(root, site)
    html = (site / NOTE_URL / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "<img src=x" not in html and 'onerror="alert' not in html
    tag = figure_tags(html)[0]
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in tag and 'alt="Figure 1: &lt;img src=x onerror=&#34;' in tag


def test_figures_false_opens_no_pdf_and_the_cache_serves_another_site(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus_with(tmp_path, gutter={"figures": [2]})
    figures_paper(root / "ICML2024/optimization/gutter.pdf")
    build(root, tmp_path / "first")
    cached = sorted(p.name for p in (root / ".papernotes/figures").rglob("*.webp"))
    assert len(cached) == 2

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a PDF was read")

    monkeypatch.setattr(site_figures, "_find", refuse)
    monkeypatch.setattr(site_figures, "_render", refuse)
    build(root, tmp_path / "second")  # another site of the corpus: the images come from the cache
    for name in ("figure-1.webp", "figure-2.webp"):
        assert (tmp_path / "second" / NOTE_URL / name).read_bytes() == (tmp_path / "first" / NOTE_URL / name).read_bytes()
    pdf = root / "ICML2024/optimization/gutter.pdf"
    os.utime(pdf, ns=(pdf.stat().st_atime_ns, pdf.stat().st_mtime_ns + 10**9))  # touched: hashed again, not read
    result = build(root, tmp_path / "second")
    assert not result.up_to_date and result.rendered == 1  # the note's page, as it was; not its images
    monkeypatch.setattr(site_figures, "read_inside", refuse)
    (root / "papernotes.toml").write_text(f'base_url = "{BASE}"\nfigures = false\n', encoding="utf-8")
    build(root, tmp_path / "second")
    assert sorted(p.name for p in (tmp_path / "second" / NOTE_URL).iterdir()) == ["index.html"]


def test_without_the_pdf_extra_the_site_builds_and_says_so_once(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus_with(tmp_path, one={}, two={"figures": [2]})
    for name in ("one", "two"):
        figures_paper(root / f"ICML2024/optimization/{name}.pdf")
    monkeypatch.setattr(site_figures, "_renderer_available", lambda: False)
    result = build(root, tmp_path / "site")
    said = [str(d) for d in result.diagnostics if d.code == "figures"]
    assert len(said) == 1 and "pip install 'papernotes[pdf]'" in said[0] and "figures = false" in said[0], said
    assert not list((tmp_path / "site").rglob("figure-*"))


def test_a_pdf_linked_from_outside_the_corpus_is_never_read(tmp_path: Path) -> None:
    outside = figures_paper(tmp_path / "outside.pdf")[0]
    root = corpus_with(tmp_path, gutter={}, inside={})
    (root / "ICML2024/optimization/gutter.pdf").symlink_to(outside)
    figures_paper(root / "ICML2024/optimization/inside.pdf")  # a control: the same paper, inside the corpus
    build(root, tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site" / NOTE_URL).iterdir()) == ["index.html"]
    control = tmp_path / "site" / NOTE_URL.replace("gutter", "inside")
    assert any(p.name.startswith("figure-") for p in control.iterdir()), sorted(p.name for p in control.iterdir())
    # the reading cache holds the control's paper only
    assert len(list((root / ".papernotes/papers").rglob("*.json.gz"))) == 1


_AFTER_NO_OP = """
import sys
from pathlib import Path
from papernotes.site.build import build
result = build(Path(sys.argv[1]), Path(sys.argv[2]))
print(result.up_to_date, sorted({m for m in sys.modules if m.startswith(("pypdfium2", "PIL", "papernotes.intake"))}
                                | {m for m in sys.modules if m == "papernotes.site.figures"}))
"""


def test_an_up_to_date_build_opens_no_pdf_and_loads_nothing_for_figures(tmp_path: Path) -> None:
    root = corpus_with(tmp_path, gutter={})
    figures_paper(root / "ICML2024/optimization/gutter.pdf")
    build(root, tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", _AFTER_NO_OP, str(root), str(tmp_path / "site")], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split()[:1] == ["True"] and done.stdout.strip().endswith("[]"), done.stdout
