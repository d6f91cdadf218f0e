"""End to end: build the example corpus and check pages, links, counts and the atomic swap."""
from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from conftest import EXAMPLES, example_notes, write_note
from papernotes.corpus.frontmatter import read
from papernotes.site.build import build
from papernotes.errors import BuildError
from sitecheck import dead_links, internal_links, page_lines, resolve_link


def corpus_cells() -> Counter[tuple[str, str]]:
    """(venue, domain) -> number of notes, read from the example files themselves."""
    cells: Counter[tuple[str, str]] = Counter()
    for path in example_notes():
        meta, _, _ = read(path.read_text(encoding="utf-8"))
        cells[(meta["venue"], meta["domain"])] += 1
    return cells


def test_builds_every_kind_of_page(example_site) -> None:
    site, result = example_site
    assert result.errors == [] and result.notes == len(example_notes())
    for rel in ("index.html", "404.html", "ICML2024/index.html", "ICML2024/optimization/index.html",
                "domains/index.html", "domains/optimization/index.html", "topics/index.html",
                "topics/optimizer/index.html", "search/index.html", "search/index.json",
                "assets/site.css", "assets/katex/katex.min.js"):
        assert (site / rel).is_file(), rel


def test_venue_domain_page_has_the_seed_structure(example_site) -> None:
    site, _ = example_site
    html = (site / "ICML2024/optimization/index.html").read_text(encoding="utf-8")
    lines = page_lines(html, "article")
    cells = corpus_cells()
    n = cells[("ICML2024", "optimization")]
    assert lines[0] == "📐 优化/理论¶"
    assert lines[1] == f"🧪 ICML2024 · {n} 篇论文解读"
    # the same domain at every other venue that has it, newest venue first, with counts
    others = [(v, c) for (v, d), c in cells.items() if d == "optimization" and v != "ICML2024"]
    order = {"ICLR2024": 0, "NeurIPS2023": 1}
    expected = " · ".join(f"{ {'ICLR2024': '🔬', 'NeurIPS2023': '🧠'}[v]} {v} ({c})"
                          for v, c in sorted(others, key=lambda vc: order[vc[0]]))
    assert lines[2] == f"📌 同领域跨会议浏览： {expected}"
    assert re.fullmatch(r"🔥 高频主题： .+ ×\d+( · .+ ×\d+){0,4}", lines[3])
    counts = [int(c) for c in re.findall(r"×(\d+)", lines[3])]
    assert counts == sorted(counts, reverse=True) and min(counts) >= 2
    papers = lines[4:]
    assert len(papers) == n and all(": " in line for line in papers)
    slugs = [re.search(r'<dt><a href="([^"/]+)/"', m).group(1) for m in re.findall(r"<dt>.*?</dt>", html)]
    assert slugs == sorted(slugs) and len(slugs) == n
    assert 'class="math math-inline">\\(' in html  # summaries keep their math


def test_cross_venue_links_point_at_pages_with_those_counts(example_site) -> None:
    site, _ = example_site
    page = site / "ICML2024/optimization/index.html"
    html = page.read_text(encoding="utf-8")
    cross = re.search(r'<p class="cross">(.*?)</p>', html).group(1)
    links = re.findall(r'<a href="([^"]+)">[^<]*\((\d+)\)</a>', cross)
    assert len(links) >= 2, cross  # the loop below asserts nothing when the pattern stops matching
    for href, count in links:
        target = resolve_link(site, page, href)
        assert target.read_text(encoding="utf-8").count("<dt>") == int(count)


def test_every_internal_link_resolves(example_site) -> None:
    site, _ = example_site
    assert dead_links(site) == []
    html404 = (site / "404.html").read_text(encoding="utf-8")
    assert all(h.startswith("/") for h in internal_links(html404))


def test_every_count_equals_the_notes_behind_it(example_site) -> None:
    site, result = example_site
    cells = corpus_cells()
    home = (site / "index.html").read_text(encoding="utf-8")
    numbers = [int(x) for x in re.findall(r'class="stat-number">(\d+)<', home)]
    assert numbers == [sum(cells.values()), len({v for v, _ in cells}), len({d for _, d in cells})]
    # every "label N" / "(N)" link on every page: the target lists exactly N notes
    checked = in_page = 0
    for page in site.rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        for href, n1, n2 in re.findall(r'<a (?:class="tag" )?href="([^"]+)">[^<]*?(?:\((\d+)\)|<span class="count">×?(\d+)</span>)</a>', html):
            if href.startswith("#"):  # a group on the same page: count its entries
                listed = html.split(f'id="{href[1:]}"', 1)[1].split("</dl>", 1)[0].count("<dt>")
                in_page += 1
            else:
                listed = resolve_link(site, page, href).read_text(encoding="utf-8").count("<dt>")
            assert listed == int(n1 or n2), (page, href)
            checked += 1
    # the pattern found the counted links of the cross-venue lines, the topic pages' venue groups and more
    assert checked > 2 * len(cells) and in_page > 0, (checked, in_page)
    for (venue, domain), n in cells.items():
        html = (site / venue / domain / "index.html").read_text(encoding="utf-8")
        assert html.count("<dt>") == n
        assert f"· {n} 篇论文解读" in html
        venue_html = (site / venue / "index.html").read_text(encoding="utf-8")
        assert f'{n} 篇</span>' in venue_html


def test_hot_topic_counts_are_honest(example_site) -> None:
    site, _ = example_site

    def listed(page: Path) -> set[Path]:
        html = page.read_text(encoding="utf-8")
        return {resolve_link(site, page, h).resolve() for h in re.findall(r'<dt><a href="([^"]+)"', html)}

    checked = 0
    for page in site.rglob("index.html"):
        hot = re.search(r'<p class="hot">(.*?)</p>', page.read_text(encoding="utf-8"))
        if not hot:
            continue
        for href, count in re.findall(r'<a href="([^"]+)">[^<]* ×(\d+)</a>', hot.group(1)):
            with_topic = listed(resolve_link(site, page, href))
            if listed(page):  # the notes on this page that have the topic
                n = len(listed(page) & with_topic)
            else:  # a venue page lists domains, not notes: its notes are the ones under it
                n = sum(1 for p in with_topic if p.is_relative_to(page.parent.resolve()))
            assert n == int(count), (page, href)
            checked += 1
    assert checked > 10


def test_note_page_has_metadata_sections_and_neighbours(example_site) -> None:
    site, _ = example_site
    notes = sorted((site / "ICML2024/optimization").glob("*/index.html"))
    html = notes[1].read_text(encoding="utf-8")
    for needle in ('class="crumbs"', 'class="meta"', 'class="ratings"', 'class="pager"', 'class="toc"',
                   'class="prev"', 'class="next"', "<h2 id=", 'class="table-wrap"', "katex.min.js"):
        assert needle in html, needle
    assert 'class="tldr"' not in html  # the summary section is already the first thing in the body
    first = notes[0].read_text(encoding="utf-8")
    assert 'class="prev"' not in first and 'class="next"' in first


def test_no_network_resources_anywhere(example_site) -> None:
    site, _ = example_site
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        fetched = re.sub(r'<link rel="(canonical|alternate)"[^>]*>', "", html)  # named, never loaded
        assert not re.search(r'<(script|link|img)[^>]+(src|href)="(https?:)?//', fetched), page
    css = (site / "assets/site.css").read_text(encoding="utf-8") + (site / "assets/katex/katex.min.css").read_text()
    assert "http://" not in css and "https://" not in css


def test_rebuild_is_incremental_and_removes_deleted_pages(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    site = tmp_path / "site"
    first = build(corpus, site)
    assert not first.up_to_date and first.rendered == first.pages
    again = build(corpus, site)
    assert again.up_to_date and again.rendered == 0
    note = example_notes(corpus / "ICML2024/optimization")[0]
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace("## 一句话总结\n", "## 一句话总结\n新的总结，唯一标记 QQZZ。\n\n", 1), encoding="utf-8")
    edited = build(corpus, site)
    assert 0 < edited.rendered < 40  # the summary is shown by listings, feeds and other notes' related lists
    assert "QQZZ" in (site / "ICML2024/optimization" / note.stem / "index.html").read_text(encoding="utf-8")
    note.unlink()
    removed = build(corpus, site)
    assert removed.removed >= 1 and not (site / "ICML2024/optimization" / note.stem).exists()
    assert dead_links(site) == []
    assert (site / "ICML2024/optimization/index.html").read_text(encoding="utf-8").count("<dt>") == \
        len(example_notes(corpus / "ICML2024/optimization"))


def test_bad_note_is_reported_and_the_rest_builds(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    bad = corpus / "ICML2024/optimization/broken.md"
    bad.write_text("---\ntitle: Broken\nvenue: ICML2024\n---\n## 一句话总结\nx\n", encoding="utf-8")
    result = build(corpus, tmp_path / "site")
    assert [str(d) for d in result.errors] == ["ICML2024/optimization/broken.md:1: error: missing required field `domain`"]
    assert result.notes == len(example_notes())
    with pytest.raises(BuildError):
        build(corpus, tmp_path / "strict-site", strict=True)
    assert not (tmp_path / "strict-site").exists()


def test_failed_build_leaves_the_previous_site_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    site = tmp_path / "site"
    build(corpus, site)
    before = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    for note in corpus.rglob("*.md"):  # change every page
        note.write_text(note.read_text(encoding="utf-8").replace("## 一句话总结\n", "## 一句话总结\n改。\n", 1),
                        encoding="utf-8")
    import papernotes.site.theme as theme

    calls = {"n": 0}
    real = theme.Theme.render

    def flaky(self, page):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] > 30:
            raise RuntimeError("disk on fire")
        return real(self, page)

    monkeypatch.setattr(theme.Theme, "render", flaky)
    with pytest.raises(RuntimeError):
        build(corpus, site, workers=1)
    after = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert after == before
    assert not any(p.name.startswith(".site.") for p in tmp_path.iterdir() if p.name.endswith(("building", "staging")))
    monkeypatch.undo()
    assert build(corpus, site).errors == []


def test_refuses_to_overwrite_a_directory_it_did_not_build(tmp_path: Path) -> None:
    other = tmp_path / "precious"
    other.mkdir()
    (other / "thesis.tex").write_text("do not delete", encoding="utf-8")
    with pytest.raises(BuildError, match="not built by papernotes"):
        build(EXAMPLES, other)
    assert (other / "thesis.tex").read_text(encoding="utf-8") == "do not delete"


def test_english_site_from_the_same_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    (corpus / "papernotes.toml").write_text('title = "Notes"\nlanguage = "en"\n', encoding="utf-8")
    site = tmp_path / "site"
    build(corpus, site)
    lines = page_lines((site / "ICML2024/optimization/index.html").read_text(encoding="utf-8"), "article")
    assert lines[0] == "📐 Optimization & Theory¶"
    assert re.fullmatch(r"🧪 ICML2024 · \d+ paper notes", lines[1])
    assert lines[2].startswith("📌 Same area in other venues: ")
    assert lines[3].startswith("🔥 Top topics: ")


def test_unknown_domain_and_venue_are_errors_until_a_taxonomy_file_adds_them(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "X/y/a.md", title="A", venue="NEWCONF2030", domain="brand_new")
    write_note(corpus, "X/y/b.md", title="B", venue="ICML2024", domain="brand_new")
    write_note(corpus, "X/y/c.md", title="C", venue="ICML2031", domain="optimization")  # a known series, any year
    result = build(corpus, tmp_path / "site")
    problems = [d for d in result.diagnostics if d.code != "base-url"]  # feeds need an absolute base_url
    assert sorted((d.path, d.code) for d in problems) == [("X/y/a.md", "unknown-venue"), ("X/y/b.md", "unknown-domain")]
    assert all(d.is_error for d in problems) and result.notes == 1
    assert (tmp_path / "site/ICML2031/optimization/c/index.html").is_file()
    assert not (tmp_path / "site/NEWCONF2030").exists()
    (corpus / "taxonomy").mkdir()
    (corpus / "taxonomy/venues.toml").write_text('[[series]]\nid = "NEWCONF"\nmonth = 5\n', encoding="utf-8")
    (corpus / "taxonomy/domains.toml").write_text('[[domain]]\nslug = "brand_new"\nzh = "新领域"\nen = "Brand new"\n',
                                                  encoding="utf-8")
    (corpus / "papernotes.toml").write_text('[taxonomy]\nvenues = ["taxonomy/venues.toml"]\n'
                                            'domains = ["taxonomy/domains.toml"]\n', encoding="utf-8")
    result = build(corpus, tmp_path / "site")
    assert {d.code for d in result.diagnostics} == {"base-url"} and result.notes == 3
    assert (tmp_path / "site/NEWCONF2030/brand_new/a/index.html").is_file()


def test_note_links_to_other_notes_are_rewritten_or_marked_broken(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "V/d/a.md", title="A", venue="ICML2024", domain="optimization",
               body="## 一句话总结\nSee [B](../e/b.md#method) and [gone](../e/missing.md).\n")
    write_note(corpus, "V/e/b.md", title="B", venue="ICML2024", domain="llm_nlp")
    site = tmp_path / "site"
    result = build(corpus, site)
    html = (site / "ICML2024/optimization/a/index.html").read_text(encoding="utf-8")
    assert '<a href="../../llm_nlp/b/#method">B</a>' in html
    assert '<span class="broken-link" title="../e/missing.md">gone</span>' in html
    assert [d.code for d in result.diagnostics] == ["base-url", "broken-link"]
    assert dead_links(site) == []


def test_a_body_edit_with_links_does_not_guess_the_pages_it_links_to(tmp_path: Path) -> None:
    """Without the record of the site's pages (an older cache, a lost row), a body edit of a note whose links
    name site pages plans the site again instead of resolving them against nothing."""
    import sqlite3

    from papernotes.corpus.load import cache_path

    corpus = tmp_path / "c"
    write_note(corpus, "V/d/a.md", title="A", venue="ICML2024", domain="optimization", summary="S.",
               body="## 一句话总结\nS.\n\n## 方法\nSee [the venue](/ICML2024/) and [B](../e/b.md).\n")
    write_note(corpus, "V/e/b.md", title="B", venue="ICML2024", domain="llm_nlp")
    site = tmp_path / "site"
    build(corpus, site)
    assert build(corpus, site).up_to_date
    with sqlite3.connect(cache_path(corpus)) as db:
        assert db.execute("DELETE FROM blobs WHERE key LIKE 'urls:%'").rowcount == 1
    note = corpus / "V/d/a.md"
    note.write_text(note.read_text(encoding="utf-8").replace("See", "Now see"), encoding="utf-8")
    assert build(corpus, site).rendered == 1  # the body edit's page alone, whichever way it was planned
    html = (site / "ICML2024/optimization/a/index.html").read_text(encoding="utf-8")
    assert 'Now see <a href="../../">the venue</a>' in html and '<a href="../../llm_nlp/b/">B</a>' in html


def test_a_corpus_with_a_broken_note_is_up_to_date_on_the_next_build(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "V/d/a.md", title="A", venue="ICML2024", domain="optimization")
    (corpus / "V/d/broken.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    first = build(corpus, tmp_path / "site")
    assert [d.code for d in first.errors] == ["front-matter"]
    again = build(corpus, tmp_path / "site")
    assert again.up_to_date and [d.code for d in again.errors] == ["front-matter"]


def test_render_workers_are_replaced_and_make_the_same_site(tmp_path: Path, worker_pids) -> None:  # type: ignore[no-untyped-def]
    import papernotes.site.render as render

    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    for note in example_notes(corpus)[::7]:  # problems found by the workers, reported in the pages' order
        note.write_text(note.read_text(encoding="utf-8") + "\n[gone](missing.md)\n", encoding="utf-8")
    serial = build(corpus, tmp_path / "serial", workers=1, use_cache=False)
    ran_in = worker_pids(render, "_render_range")
    forked = build(corpus, tmp_path / "forked", workers=2, use_cache=False)
    assert len(serial.diagnostics) >= 5 and forked.diagnostics == serial.diagnostics
    files = {p.relative_to(tmp_path / "serial"): p.read_bytes() for p in (tmp_path / "serial").rglob("*") if p.is_file()}
    assert files == {p.relative_to(tmp_path / "forked"): p.read_bytes()
                     for p in (tmp_path / "forked").rglob("*") if p.is_file()}
    # a fresh worker every RECYCLE_CHUNKS chunks: what one copied of the parent goes with it
    chunks = ran_in()
    assert len(chunks) > 2 * render.RECYCLE_CHUNKS
    assert len(set(chunks)) >= len(chunks) / render.RECYCLE_CHUNKS
