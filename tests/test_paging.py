"""Listing pages split into numbered pages (issue 34, item 1): ``site/paging.py`` and the three listing kinds."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import write_note
from papernotes.site.build import build
from papernotes.site.paging import later_page_urls, page_url, paged, paged_groups
from sitecheck import clean_build, dead_links, site_contents

SIZE = 10


def test_a_list_that_fits_is_one_page_without_a_pager() -> None:
    assert list(paged("A/b/", list(range(10)), SIZE)) == [(list(range(10)), None)]
    assert list(paged("A/b/", [], SIZE)) == [([], None)]


def test_pages_slice_the_list_in_order_and_link_each_other() -> None:
    pages = list(paged("A/b/", list(range(23)), SIZE))
    assert [chunk for chunk, _ in pages] == [list(range(10)), list(range(10, 20)), [20, 21, 22]]
    pagers = [p for _, p in pages]
    assert all(p is not None for p in pagers)
    assert [p.number for p in pagers] == [1, 2, 3]
    assert [(p.first, p.last, p.total) for p in pagers] == [(1, 10, 23), (11, 20, 23), (21, 23, 23)]
    assert [link.url for link in pagers[0].pages] == ["A/b/", "A/b/page/2/", "A/b/page/3/"]
    assert pagers[0].prev is None and pagers[0].next.url == "A/b/page/2/"
    assert pagers[2].prev.url == "A/b/page/2/" and pagers[2].next is None
    assert page_url("A/b/", 1) == "A/b/" and later_page_urls("A/b/", 23, SIZE) == ["A/b/page/2/", "A/b/page/3/"]
    assert later_page_urls("A/b/", 10, SIZE) == []


def test_groups_cut_between_pages_appear_on_both() -> None:
    groups = [("x", list(range(7))), ("y", list(range(100, 108))), ("z", [200])]
    pages = list(paged_groups("t/", groups, SIZE))
    assert [[(k, list(v)) for k, v in shares] for shares, _ in pages] == [
        [("x", list(range(7))), ("y", [100, 101, 102])], [("y", list(range(103, 108))), ("z", [200])]]


def make_corpus(root: Path, notes: int) -> Path:
    (root / "papernotes.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "papernotes.toml").write_text(f"page_size = {SIZE}\n", encoding="utf-8")
    for i in range(notes):
        write_note(root, f"ICML2026/optimization/paper_{i:02d}.md", title=f"Paper number {i:02d}", venue="ICML2026",
                   domain="optimization", topics=["联邦学习"], summary=f"Summary {i:02d}.")
    return root


def listed(html: str) -> list[str]:
    return re.findall(r"<dt><a href=\"[^\"]*\">(Paper number \d\d)</a>", html)


def test_long_listings_are_split_and_every_page_tells_the_whole_count(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c", 23)
    out = tmp_path / "site"
    result = build(corpus, out)
    assert not result.errors, result.diagnostics
    for base in ("ICML2026/optimization/", "domains/optimization/", "topics/federated_learning/"):
        pages = [out / base / "index.html", out / base / "page/2/index.html", out / base / "page/3/index.html"]
        assert all(p.is_file() for p in pages), base
        assert not (out / base / "page/4").exists() and not (out / base / "page/1").exists()
        html = [p.read_text(encoding="utf-8") for p in pages]
        shown = [listed(h) for h in html]
        assert [len(s) for s in shown] == [10, 10, 3], base
        assert sorted(sum(shown, [])) == [f"Paper number {i:02d}" for i in range(23)]  # each note once
        assert all("23" in re.search(r'<p class="venue-line">(.*?)</p>', h).group(1) for h in html)
        assert '<link rel="next" href="page/2/">' in html[0] and 'rel="prev"' not in html[0]
        assert '<link rel="prev" href="../../">' in html[1] and '<link rel="next" href="../3/">' in html[1]
        assert '<link rel="prev" href="../2/">' in html[2] and 'rel="next"' not in html[2]
        assert html[1].count('aria-current="page"') == 1 and "11–20" in html[1]
        titles = [re.search(r"<title>(.*?)</title>", h).group(1) for h in html]
        assert len(set(titles)) == 3 and "第 2 页" in titles[1]
    assert dead_links(out) == []


def test_a_short_listing_has_no_pager(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c", SIZE)
    out = tmp_path / "site"
    build(corpus, out)
    html = (out / "ICML2026/optimization/index.html").read_text(encoding="utf-8")
    assert len(listed(html)) == SIZE and 'class="pages"' not in html and 'rel="next"' not in html
    assert not (out / "ICML2026/optimization/page").exists()


def test_a_shrinking_listing_loses_its_last_page_incrementally(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c", 23)
    out = tmp_path / "site"
    build(corpus, out)
    for i in range(18, 23):
        (corpus / f"ICML2026/optimization/paper_{i:02d}.md").unlink()
    result = build(corpus, out)
    assert result.removed >= 3 + 5  # three third pages and five note pages
    for base in ("ICML2026/optimization/", "domains/optimization/", "topics/federated_learning/"):
        assert (out / base / "page/2/index.html").is_file() and not (out / base / "page/3").exists()
    assert site_contents(out) == site_contents(clean_build(corpus, tmp_path / "clean").out)


def test_one_title_edit_renders_its_own_page_of_a_long_listing_only(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c", 35)
    out = tmp_path / "site"
    build(corpus, out)
    pages = {n: out / "ICML2026/optimization" / (f"page/{n}/" if n > 1 else "") / "index.html" for n in (1, 2, 3, 4)}
    before = {n: p.stat().st_mtime_ns for n, p in pages.items()}
    note = corpus / "ICML2026/optimization/paper_15.md"  # on page 2
    note.write_text(note.read_text(encoding="utf-8").replace("Paper number 15", "Paper number 15 renamed"),
                    encoding="utf-8")
    result = build(corpus, out)
    assert not result.errors
    after = {n: p.stat().st_mtime_ns for n, p in pages.items()}
    assert after[2] != before[2] and "Paper number 15 renamed" in pages[2].read_text(encoding="utf-8")
    assert [n for n in (1, 3, 4) if after[n] != before[n]] == []
    assert site_contents(out) == site_contents(clean_build(corpus, tmp_path / "clean").out)


@pytest.mark.parametrize("size", [0, 9])
def test_a_page_size_under_ten_is_a_config_error(tmp_path: Path, size: int) -> None:
    from typer.testing import CliRunner

    from papernotes.cli import app

    corpus = make_corpus(tmp_path / "c", 1)
    (corpus / "papernotes.toml").write_text(f"page_size = {size}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["build", str(corpus), "-o", str(tmp_path / "s")])
    assert result.exit_code == 2 and "page_size" in result.output


def test_a_long_pager_shows_the_ends_and_the_neighbours() -> None:
    pagers = [p for _, p in paged("t/", list(range(120 * SIZE)), SIZE)]
    numbers = lambda pager: [link.number if link else "…" for link in pager.window]  # noqa: E731
    assert numbers(pagers[0]) == [1, 2, 3, "…", 120]
    assert numbers(pagers[6]) == [1, "…", 5, 6, 7, 8, 9, "…", 120]
    assert numbers(pagers[3]) == [1, 2, 3, 4, 5, 6, "…", 120]
    assert numbers(pagers[119]) == [1, "…", 118, 119, 120]
