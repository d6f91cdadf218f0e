"""One figure record per PDF: what reading a paper finds of its figures is what the site shows, found once,
kept once in the reading cache, and made again when (and only when) the code that reads or renders changes.

Generated PDFs only (``tests/pdfgen.py``). The code is "changed" through ``PAPERNOTES_CODE_CHANGED``
(``papernotes.codeversion``), which changes the versions exactly as an edit of the named modules would.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import write_note
from papernotes.codeversion import CHANGED_ENV
from papernotes.site import figures as site_figures
from papernotes.site.build import build
from pdfgen import FIGURE_1, figures_paper

pytest.importorskip("PIL.Image")
pytest.importorskip("pypdfium2")

from papernotes.intake.paper import cache_dir, read_paper  # noqa: E402
from papernotes.intake.paper import figures as paper_figures, read as paper_read  # noqa: E402
from papernotes.intake.paper.cache import load, load_figures  # noqa: E402

NOTE = "ICML2024/optimization/gutter"


def corpus(tmp_path: Path, *names: str) -> Path:
    """A corpus whose notes ``names`` (under ICML2024/optimization/) each have the figures paper beside them."""
    root = tmp_path / "c"
    for name in names or ("gutter",):
        write_note(root, f"ICML2024/optimization/{name}.md", title=f"Paper {name}", venue="ICML2024",
                   domain="optimization", summary="The summary.", body="## 方法详解\n方法。\n", figures=[2])
        figures_paper(root / f"ICML2024/optimization/{name}.pdf")
    (root / "papernotes.toml").write_text('base_url = "https://example.org/"\n', encoding="utf-8")
    return root


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Count the calls of ``module.name`` (still made): how often a PDF is searched, read or rendered."""
    calls: list[int] = []
    original: Callable[..., Any] = getattr(module, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def shown(site: Path) -> list[str]:
    return sorted(p.name for p in (site / NOTE).iterdir() if p.name.startswith("figure-"))


def test_a_paper_read_before_shows_its_figures_without_searching_the_pdf_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus(tmp_path)
    paper = read_paper(root / f"{NOTE}.pdf", cache_dir(root))  # as drafting or checking the note does
    assert [f.label for f in paper.figures if f.located] == ["Figure 1", "Figure 2"]
    found = counting(monkeypatch, paper_read, "find_figures")
    assert not build(root, tmp_path / "site").errors
    assert found == [] and shown(tmp_path / "site") == ["figure-1.webp", "figure-2.webp"]
    assert FIGURE_1 in (tmp_path / "site" / NOTE / "index.html").read_text(encoding="utf-8")
    assert list((root / ".papernotes/figures").rglob("*.json")) == []  # no figure record of the site's own


def test_figures_the_site_found_are_those_reading_the_paper_keeps(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus(tmp_path)
    assert not build(root, tmp_path / "site").errors
    records = list(cache_dir(root).rglob("*.json.gz"))
    assert len(records) == 1  # one record for the PDF, in the reading cache
    sha = records[0].name.split(".")[0]
    record = load_figures(cache_dir(root), sha)
    assert record is not None and record.error == "" and len(record.figures) == 2 and len(record.tables) == 1
    assert load(cache_dir(root), sha) is None  # its text was never read
    found = counting(monkeypatch, paper_read, "find_figures")
    extracted = counting(monkeypatch, paper_read, "extract_document")
    paper = read_paper(root / f"{NOTE}.pdf", cache_dir(root))
    assert found == [] and extracted == [1]  # the text read, the figures taken from the record
    assert (paper.figures, paper.tables) == (record.figures, record.tables) and paper.sections
    assert load(cache_dir(root), sha) == paper and list(cache_dir(root).rglob("*.json.gz")) == records
    assert read_paper(root / f"{NOTE}.pdf", cache_dir(root)) == paper and extracted == [1]


def test_a_changed_reader_reads_a_cached_paper_again_an_unchanged_one_serves_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus(tmp_path)
    pdf, folder = root / f"{NOTE}.pdf", cache_dir(root)
    extracted = counting(monkeypatch, paper_read, "extract_document")
    found = counting(monkeypatch, paper_read, "find_figures")
    first = read_paper(pdf, folder)
    assert (extracted, found) == ([1], [1])
    monkeypatch.setenv(CHANGED_ENV, "papernotes.site.theme")  # a change elsewhere
    assert read_paper(pdf, folder) == first and (extracted, found) == ([1], [1])
    monkeypatch.setenv(CHANGED_ENV, "papernotes.intake.paper.sections")  # the reader's code changed
    assert read_paper(pdf, folder) == first and (extracted, found) == ([1, 1], [1, 1])
    assert read_paper(pdf, folder) == first and (extracted, found) == ([1, 1], [1, 1])  # and is cached again


def test_the_site_finds_figures_again_for_a_changed_reader_and_renders_again_for_a_changed_renderer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus(tmp_path)
    assert not build(root, tmp_path / "site-a").errors
    found = counting(monkeypatch, paper_read, "find_figures")
    rendered = counting(monkeypatch, paper_figures, "render_figure")
    monkeypatch.setenv(CHANGED_ENV, "papernotes.site.theme,papernotes.check.grounding")
    assert not build(root, tmp_path / "site-b").errors
    assert (found, rendered) == ([], []) and shown(tmp_path / "site-b") == ["figure-1.webp", "figure-2.webp"]
    monkeypatch.setenv(CHANGED_ENV, "papernotes.intake.paper.front")  # reading changed, not rendering
    assert not build(root, tmp_path / "site-c").errors
    assert (found, rendered) == ([1], [])  # found again; the same boxes: the same images
    monkeypatch.setenv(CHANGED_ENV, "papernotes.intake.paper.picture")  # rendering changed (and so reading)
    assert not build(root, tmp_path / "site-d").errors
    assert (found, rendered) == ([1, 1], [1, 1])
    assert shown(tmp_path / "site-d") == ["figure-1.webp", "figure-2.webp"]
    for name in shown(tmp_path / "site-d"):  # rendered by the same code: the same bytes, under a new name
        assert (tmp_path / "site-d" / NOTE / name).read_bytes() == (tmp_path / "site-a" / NOTE / name).read_bytes()
    images = sorted(p.name for p in (root / ".papernotes/figures").rglob("*.webp"))
    assert len(images) == 4, images  # the old renderer's and the new one's


def test_a_cold_cache_filled_by_workers_is_the_one_the_next_build_reads(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    names = ("one", "two", "three")
    root = corpus(tmp_path, *names)
    monkeypatch.setattr(site_figures, "PARALLEL_PAPERS", 2)
    monkeypatch.setattr(site_figures, "can_fork", lambda: True)  # whatever threads the test runner left
    shared = counting(monkeypatch, site_figures, "share")
    assert not build(root, tmp_path / "site", workers=2).errors
    assert shared == [1]  # the papers went to forked workers
    shas = {hashlib.sha256((root / f"ICML2024/optimization/{n}.pdf").read_bytes()).hexdigest() for n in names}
    assert {p.name.split(".")[0] for p in cache_dir(root).rglob("*.json.gz")} == shas  # one record a PDF
    for name in names:
        page = tmp_path / "site/ICML2024/optimization" / name
        assert sorted(p.name for p in page.iterdir()) == ["figure-1.webp", "figure-2.webp", "index.html"]
    found = counting(monkeypatch, paper_read, "find_figures")
    rendered = counting(monkeypatch, paper_figures, "render_figure")
    assert not build(root, tmp_path / "other", workers=2).errors  # another site: all from the caches
    assert (found, rendered) == ([], [])
    assert len(list((tmp_path / "other").rglob("figure-*.webp"))) == 6
