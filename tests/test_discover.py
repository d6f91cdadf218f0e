"""Finding papers besides search: related papers, trends, feeds, sitemap, robots.txt and page metadata.

Feeds are read with feedparser, the sitemap is validated against the sitemaps.org
schema (its two XSDs, transcribed below, checked with xmlschema), and every URL a
feed or the sitemap names must be a page of the built site.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import feedparser
import pytest
import xmlschema

from conftest import EXAMPLES, example_notes, write_note
from papernotes.site.build import build
from sitecheck import clean_build, dead_links, site_contents

BASE = "https://example.org/papernotes/"

# The sitemaps.org 0.9 schemas (sitemap.xsd and siteindex.xsd), as published, minus their documentation.
_COMMON = """
  <xsd:simpleType name="tLoc"><xsd:restriction base="xsd:anyURI">
    <xsd:minLength value="12"/><xsd:maxLength value="2048"/></xsd:restriction></xsd:simpleType>
  <xsd:simpleType name="tLastmod"><xsd:union>
    <xsd:simpleType><xsd:restriction base="xsd:date"/></xsd:simpleType>
    <xsd:simpleType><xsd:restriction base="xsd:dateTime"/></xsd:simpleType></xsd:union></xsd:simpleType>
"""
SITEMAP_XSD = f"""<?xml version="1.0" encoding="UTF-8"?>
<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" elementFormDefault="qualified">
  <xsd:element name="urlset"><xsd:complexType><xsd:sequence>
    <xsd:element ref="url" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType></xsd:element>
  <xsd:element name="url"><xsd:complexType><xsd:sequence>
    <xsd:element name="loc" type="tLoc"/>
    <xsd:element name="lastmod" type="tLastmod" minOccurs="0"/>
    <xsd:element name="changefreq" minOccurs="0"><xsd:simpleType><xsd:restriction base="xsd:string">
      <xsd:enumeration value="always"/><xsd:enumeration value="hourly"/><xsd:enumeration value="daily"/>
      <xsd:enumeration value="weekly"/><xsd:enumeration value="monthly"/><xsd:enumeration value="yearly"/>
      <xsd:enumeration value="never"/></xsd:restriction></xsd:simpleType></xsd:element>
    <xsd:element name="priority" minOccurs="0"><xsd:simpleType><xsd:restriction base="xsd:decimal">
      <xsd:minInclusive value="0.0"/><xsd:maxInclusive value="1.0"/></xsd:restriction></xsd:simpleType></xsd:element>
  </xsd:sequence></xsd:complexType></xsd:element>
  {_COMMON}
</xsd:schema>"""
SITEINDEX_XSD = f"""<?xml version="1.0" encoding="UTF-8"?>
<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" elementFormDefault="qualified">
  <xsd:element name="sitemapindex"><xsd:complexType><xsd:sequence>
    <xsd:element name="sitemap" maxOccurs="unbounded"><xsd:complexType><xsd:sequence>
      <xsd:element name="loc" type="tLoc"/><xsd:element name="lastmod" type="tLastmod" minOccurs="0"/>
    </xsd:sequence></xsd:complexType></xsd:element></xsd:sequence></xsd:complexType></xsd:element>
  {_COMMON}
</xsd:schema>"""


def page_of(site: Path, url: str) -> Path:
    """The built file an absolute URL of the site names (``AssertionError`` for a foreign URL)."""
    assert url.startswith(BASE), url
    rel = unquote(urlsplit(url).path)[len(urlsplit(BASE).path):]
    return site / (rel + "index.html" if rel == "" or rel.endswith("/") else rel)


def test_every_feed_parses_and_links_to_built_pages(example_site) -> None:
    site, _ = example_site
    feeds = sorted((site / "feeds").rglob("*.xml"))
    families = {f.parent.name for f in feeds}
    assert families == {"feeds", "venues", "domains", "topics"}
    for path in feeds:
        feed = feedparser.parse(path.read_bytes())
        assert not feed.bozo, (path, feed.get("bozo_exception"))
        assert feed.version == "atom10" and feed.feed.title and feed.entries, path
        assert page_of(site, feed.feed.id) == path
        assert page_of(site, feed.feed.link).is_file()
        dates = [e.updated for e in feed.entries]
        assert dates == sorted(dates, reverse=True) and feed.feed.updated == dates[0]
        for entry in feed.entries:
            assert page_of(site, entry.link).is_file() and entry.id == entry.link
    everything = feedparser.parse((site / "feeds/all.xml").read_bytes())
    assert len(everything.entries) == len(example_notes())  # 47 notes: under FEED_ENTRIES
    english = feedparser.parse((site / "en/feeds/all.xml").read_bytes())  # the English edition's, its own URLs
    assert len(english.entries) == len(example_notes()) and english.feed.language == "en"
    assert all(e.link.startswith(f"{BASE}en/") and page_of(site, e.link).is_file() for e in english.entries)
    # a topic's feed holds exactly the notes its page lists
    topic = feedparser.parse((site / "feeds/topics/llm.xml").read_bytes())
    listed = re.findall(r'<dt><a href="([^"]+)"', (site / "topics/llm/index.html").read_text(encoding="utf-8"))
    assert sorted(page_of(site, e.link).parent.name for e in topic.entries) == sorted(h.rstrip("/").rsplit("/", 1)[-1] for h in listed)


def test_sitemap_validates_and_lists_every_page(example_site) -> None:
    site, _ = example_site
    data = (site / "sitemap.xml").read_text(encoding="utf-8")
    xmlschema.XMLSchema(SITEMAP_XSD).validate(data)
    locs = re.findall(r"<loc>([^<]+)</loc>", data)
    pages = {p for p in site.rglob("index.html") if "search" not in p.parts}
    english = {p for p in pages if p.relative_to(site).parts[0] == "en"}
    assert {page_of(site, u) for u in locs} == pages - english  # every page but search, and nothing else
    en_locs = re.findall(r"<loc>([^<]+)</loc>", (site / "en/sitemap.xml").read_text(encoding="utf-8"))
    assert {page_of(site, u) for u in en_locs} == english  # the English edition's sitemap: its pages
    # one robots.txt, at the root (the only one crawlers read), names both editions' sitemaps
    robots = (site / "robots.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in robots if line.startswith("Sitemap:")] == [f"Sitemap: {BASE}sitemap.xml",
                                                                         f"Sitemap: {BASE}en/sitemap.xml"]
    assert robots[:2] == ["User-agent: *", "Allow: /"] and not (site / "en/robots.txt").exists()


def test_robots_txt_is_plain_text(tmp_path: Path) -> None:
    """robots.txt is not HTML: a URL's ``&`` and ``'`` stay as they are (HTML escaping would break them)."""
    corpus = tmp_path / "c"
    write_note(corpus, "V/d/a.md", title="A", venue="ICML2024", domain="optimization")
    (corpus / "papernotes.toml").write_text('base_url = "https://example.org/o\'neil&co/"\n', encoding="utf-8")
    build(corpus, tmp_path / "site")
    robots = (tmp_path / "site/robots.txt").read_text(encoding="utf-8")
    assert "Sitemap: https://example.org/o'neil&co/sitemap.xml" in robots.splitlines(), robots
    sitemap = (tmp_path / "site/sitemap.xml").read_text(encoding="utf-8")  # XML still escapes
    assert "o&#39;neil&amp;co/" in sitemap and "o'neil&co/" not in sitemap


def test_a_large_site_gets_a_sitemap_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import papernotes.site.kinds.sitemap as sitemap

    monkeypatch.setattr(sitemap, "SITEMAP_LIMIT", 40)
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    site = tmp_path / "site"
    build(corpus, site)
    index = (site / "sitemap.xml").read_text(encoding="utf-8")
    xmlschema.XMLSchema(SITEINDEX_XSD).validate(index)
    parts = re.findall(r"<loc>([^<]+)</loc>", index)
    assert len(parts) > 1
    locs = []
    for url in parts:
        text = page_of(site, url).read_text(encoding="utf-8")
        xmlschema.XMLSchema(SITEMAP_XSD).validate(text)
        locs += re.findall(r"<loc>([^<]+)</loc>", text)
    assert len(locs) == len(set(locs)) and all(page_of(site, u).is_file() for u in locs)
    assert all(len(re.findall("<loc>", page_of(site, u).read_text(encoding="utf-8"))) <= 40 for u in parts)


def test_without_an_absolute_base_url_no_feed_and_one_warning(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "V/d/a.md", title="A", venue="ICML2024", domain="optimization")
    result = build(corpus, tmp_path / "site")
    warned = [d for d in result.diagnostics if d.code == "base-url"]
    assert len(warned) == 1 and "no Atom feeds" in warned[0].message
    assert not (tmp_path / "site/feeds").exists() and not (tmp_path / "site/sitemap.xml").exists()
    assert "Sitemap" not in (tmp_path / "site/robots.txt").read_text(encoding="utf-8")
    html = (tmp_path / "site/ICML2024/optimization/a/index.html").read_text(encoding="utf-8")
    assert 'rel="canonical"' not in html and "og:url" not in html
    assert "the file does not exist (create it with base_url" in warned[0].message  # no papernotes.toml yet
    (corpus / "papernotes.toml").write_text('base_url = "/notes/"\n', encoding="utf-8")
    warned = [d for d in build(corpus, tmp_path / "site").diagnostics if d.code == "base-url"]
    assert [d.message.split(":")[0] for d in warned] == ["base_url '/notes/' is not absolute (https"]


def structured_data(html: str) -> list[object]:
    return [json.loads(block) for block in re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)]


def test_json_ld_on_listing_and_note_pages(example_site) -> None:
    site, _ = example_site
    cell = site / "ICML2024/optimization/index.html"
    [items] = structured_data(cell.read_text(encoding="utf-8"))
    listed = re.findall(r'<dt><a href="([^"]+)"', cell.read_text(encoding="utf-8"))
    assert items["@type"] == "ItemList" and items["numberOfItems"] == len(listed)
    assert [page_of(site, i["url"]) for i in items["itemListElement"]] == [(cell.parent / h / "index.html").resolve()
                                                                          for h in listed]
    note = site / listed[0].join(("ICML2024/optimization/", "index.html"))
    html = note.read_text(encoding="utf-8")
    [article] = structured_data(html)
    assert article["@type"] == "ScholarlyArticle" and page_of(site, article["url"]) == note
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", article["datePublished"])
    assert f'<link rel="canonical" href="{article["url"]}">' in html
    for page in [site / "index.html", site / "topics/llm/index.html", site / "domains/optimization/index.html"]:
        structured_data(page.read_text(encoding="utf-8"))  # whatever a page has, it parses


def test_a_title_cannot_break_out_of_the_structured_data(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    hostile = 'Attack </script><script>alert("x")</script> & <b>bold</b>'
    write_note(corpus, "ICML2024/optimization/zz.md", title=hostile, venue="ICML2024", domain="optimization",
               summary="A </script> summary", keywords=["</script>"], authors=["</script><script>x()</script>"])
    site = tmp_path / "site"
    assert build(corpus, site).errors == []
    for page in [site / "ICML2024/optimization/zz/index.html", site / "ICML2024/optimization/index.html"]:
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html and "<script>x()" not in html
        [data] = structured_data(html)
        names = [data.get("headline")] + [i["name"] for i in data.get("itemListElement", [])]
        assert hostile in names  # the title arrives whole, as data
    feed = feedparser.parse((site / "feeds/venues/ICML2024.xml").read_bytes())
    assert not feed.bozo and hostile in [e.title for e in feed.entries]


def test_feed_dates_are_the_venue_dates_or_a_valid_front_matter_date(tmp_path: Path) -> None:
    from dataclasses import replace

    import datetime as dt

    from papernotes.site.trends import note_date
    from papernotes.taxonomy import load_taxonomy

    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "papernotes.toml").write_text(f'base_url = "{BASE}"\n', encoding="utf-8")
    write_note(corpus, "b.md", title="Beta", venue="ICML2024", domain="optimization")
    write_note(corpus, "c.md", title="Gamma", venue="ICLR2024", domain="optimization")
    site = tmp_path / "site"
    build(corpus, site)
    first = (site / "feeds/all.xml").read_bytes()
    venues = load_taxonomy()
    dates = {e.title: e.updated[:10] for e in feedparser.parse(first).entries}
    assert dates == {"Beta": venues.venue("ICML2024").date.isoformat(), "Gamma": venues.venue("ICLR2024").date.isoformat()}
    shutil.rmtree(site)
    shutil.rmtree(corpus / ".papernotes")
    build(corpus, site)
    assert (site / "feeds/all.xml").read_bytes() == first  # nothing depends on the time of the build
    # front matter ``date`` wins when it is a date (YAML date or ISO text), else the venue's date stands
    from papernotes.corpus.load import load_corpus
    from papernotes.cache import BuildCache
    from papernotes.site.resolve import resolve

    with BuildCache(None) as cache:
        notes = list(load_corpus(corpus, cache).notes)
    [entry, _] = sorted(resolve(notes, [], venues)[0], key=lambda e: e.note.title)
    with_date = lambda value: replace(entry, note=replace(entry.note, extra={"date": value}))  # noqa: E731
    assert note_date(with_date(dt.date(2024, 5, 2))) == dt.date(2024, 5, 2)
    assert note_date(with_date("2024-05-03")) == dt.date(2024, 5, 3)
    assert note_date(with_date("soon")) == venues.venue("ICML2024").date


def test_topic_and_domain_pages_chart_their_notes_per_venue(example_site) -> None:
    site, _ = example_site
    for page in [site / "topics/llm/index.html", site / "domains/optimization/index.html"]:
        html = page.read_text(encoding="utf-8")
        svg = re.search(r"<svg viewBox[^>]*role=\"img\"[^>]*>(.*?)</svg>", html, re.S)
        assert svg and "<title" in svg.group(1) and "<desc" in svg.group(1)
        desc = re.search(r"<desc[^>]*>(.*?)</desc>", svg.group(1)).group(1)
        shown = {venue: int(n) for venue, n in re.findall(r"(\w+): (\d+)", desc)}
        assert len(shown) == len([d for d in site.iterdir() if d.is_dir() and d.name[0].isupper()])  # every venue
        # the numbers are the page's own groups: "🧪 ICML2024 (3)"
        groups = {v: int(n) for v, n in re.findall(r"<h2[^>]*>(?:<a [^>]+>)?\S+ (\w+)(?:</a>)? <span class=\"count\">\((\d+)\)", html)}
        assert {v: n for v, n in shown.items() if n} == groups
        rows = re.findall(r"<tr><td>(\w+)</td><td>(\d+)</td><td>([\d.]+)%</td></tr>", html)
        assert {v: int(n) for v, n, _ in rows} == shown  # the table fallback says the same
        heights = [float(h) for h in re.findall(r'<rect class="bar"[^>]*height="([\d.]+)"', html)]
        assert max(heights) > 0 and [h > 0 for h in heights] == [n > 0 for n in shown.values()]


def test_home_page_shows_the_fastest_growing_topics_per_series(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    for i in range(4):  # federated learning: 1 of 5 notes at ICLR2024, 4 of 6 at ICLR2025
        write_note(corpus, f"new/f{i}.md", title=f"Federated thing {i}", venue="ICLR2025", domain="federated_learning",
                   topics=["federated_learning"])
    for i in range(2):
        write_note(corpus, f"new/o{i}.md", title=f"Other thing {i}", venue="ICLR2025", domain="optimization",
                   topics=["optimizer"])
    write_note(corpus, "old/f.md", title="Old federated", venue="ICLR2024", domain="federated_learning",
               topics=["federated_learning"])
    for i in range(4):
        write_note(corpus, f"old/o{i}.md", title=f"Old other {i}", venue="ICLR2024", domain="optimization",
                   topics=["optimizer"])
    write_note(corpus, "icml.md", title="Lonely", venue="ICML2024", domain="optimization", topics=["optimizer"])
    site = tmp_path / "site"
    build(corpus, site)
    from sitecheck import page_lines

    lines = page_lines((site / "index.html").read_text(encoding="utf-8"))
    start = lines.index("增长最快的主题")
    assert lines[start + 1] == "ICLR: ICLR2024 → ICLR2025"
    assert lines[start + 2] == "联邦学习 +46.7 个百分点 （1 → 4 篇）"  # 4/6 − 1/5 of the notes
    assert not any(line.startswith("ICML:") for line in lines)  # one edition: no growth to show
    assert "优化器" not in lines[start + 3]  # shrinking (4/5 → 2/6) is not growth


def test_feeds_and_sitemap_follow_additions_and_removals(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    site = tmp_path / "site"
    build(corpus, site)
    sitemap = (site / "sitemap.xml").read_bytes()
    target = sorted(corpus.glob("ICLR2024/optimization/*.md"))[0]
    target.write_text(target.read_text(encoding="utf-8") + "\nA body edit.\n", encoding="utf-8")
    build(corpus, site)
    assert (site / "sitemap.xml").read_bytes() == sitemap  # a body edit changes no URL
    url = f"{BASE}ICLR2024/optimization/{target.stem}/"
    target.unlink()
    write_note(corpus, "ICLR2024/optimization/zz_new.md", title="Zeroth-order federated LoRA", venue="ICLR2024",
               domain="optimization")
    build(corpus, site)
    locs = re.findall(r"<loc>([^<]+)</loc>", (site / "sitemap.xml").read_text(encoding="utf-8"))
    assert url not in locs and f"{BASE}ICLR2024/optimization/zz_new/" in locs
    links = [e.link for e in feedparser.parse((site / "feeds/venues/ICLR2024.xml").read_bytes()).entries]
    assert url not in links and f"{BASE}ICLR2024/optimization/zz_new/" in links
    assert dead_links(site) == []
    clean = tmp_path / "clean"
    clean_build(corpus, clean)

    assert site_contents(site) == site_contents(clean)
