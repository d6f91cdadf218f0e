"""Editions: ``languages = ["zh", "en"]`` builds the site once per language from one corpus of notes and translations."""
from __future__ import annotations

import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import EXAMPLES, example_notes, write_note
from papernotes.corpus.parse import parse_note
from papernotes.errors import ConfigError
from papernotes.site.build import build
from sitecheck import clean_build, dead_links, page_lines, site_contents
from sitecheck import resolve_link as _resolve_link

def resolve_link(site: Path, page: Path, href: str) -> Path:
    return Path(os.path.normpath(_resolve_link(site, page, href)))


CONFIG = 'title = "Notes"\nlanguage = "zh"\nlanguages = ["zh", "en"]\n'


def _digest(root: Path, rel: str) -> str:
    note, _ = parse_note(rel, (root / rel).read_text(encoding="utf-8"))
    assert note is not None
    return note.text_digest


def bilingual_corpus(root: Path, config: str = CONFIG) -> Path:
    """Translated, untranslated and stale notes, originals in both languages."""
    root.mkdir(parents=True)
    (root / "papernotes.toml").write_text(config, encoding="utf-8")
    write_note(root, "ICML2026/optimization/adam.md", id="adam", title="Adam 再探", venue="ICML2026",
               domain="optimization", lang="zh", topics=["optimizer"], summary="自适应矩估计的新分析。",
               body="## 一句话总结\n自适应矩估计，参见 [SGD](sgd.md)。\n\n## 方法详解\n$m_t = \\beta m_{t-1}$\n")
    write_note(root, "ICML2026/optimization/adam.en.md", id="adam", title="Adam revisited", venue="ICML2026",
               domain="optimization", lang="en", topics=["optimizer"], summary="A new analysis of Adam.",
               translation_of={"digest": _digest(root, "ICML2026/optimization/adam.md")},
               body="## TL;DR\nAdaptive moments; see [SGD](sgd.md).\n\n## Method\n$m_t = \\beta m_{t-1}$\n")
    write_note(root, "ICML2026/optimization/sgd.md", id="sgd", title="SGD 的隐式偏置", venue="ICML2026",
               domain="optimization", lang="zh", topics=["optimizer"], summary="未翻译的笔记。",
               body="## 一句话总结\n只有中文。\n")
    write_note(root, "ICML2026/optimization/lion.md", id="lion", title="Lion 优化器", venue="ICML2026",
               domain="optimization", lang="zh", topics=["optimizer"], summary="符号动量。",
               body="## 一句话总结\n改过的原文。\n")
    write_note(root, "ICML2026/optimization/lion.en.md", id="lion", title="The Lion optimizer", venue="ICML2026",
               domain="optimization", lang="en", topics=["optimizer"], summary="Sign momentum.",
               translation_of={"digest": "0" * 40}, body="## TL;DR\nAn older translation.\n")
    write_note(root, "ICLR2026/optimization/muon.md", id="muon", title="Muon at scale", venue="ICLR2026",
               domain="optimization", lang="en", topics=["optimizer"], summary="Orthogonalised updates.",
               body="## TL;DR\nEnglish only.\n")
    write_note(root, "ICLR2026/llm_reasoning/cot.md", id="cot", title="Chain of thought", venue="ICLR2026",
               domain="llm_reasoning", lang="en", topics=["reasoning"], summary="Think step by step.",
               body="## TL;DR\nWritten in English.\n")
    write_note(root, "ICLR2026/llm_reasoning/cot.zh.md", id="cot", title="思维链", venue="ICLR2026",
               domain="llm_reasoning", lang="zh", topics=["reasoning"], summary="一步一步地想。",
               translation_of={"digest": _digest(root, "ICLR2026/llm_reasoning/cot.md")},
               body="## 一句话总结\n中文译文。\n")
    return root


class _Heads(HTMLParser):
    """``<link rel="alternate" hreflang>`` targets and the language switch's links of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.alternates: dict[str, str] = {}
        self.switch: dict[str, str] = {}
        self._in_switch = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and a.get("rel") == "alternate" and a.get("hreflang"):
            self.alternates[a["hreflang"] or ""] = a["href"] or ""
        elif tag == "nav" and a.get("class") == "langswitch":
            self._in_switch = True
        elif tag == "a" and self._in_switch:
            self.switch[a["hreflang"] or ""] = a["href"] or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "nav":
            self._in_switch = False


def heads(page: Path) -> _Heads:
    parser = _Heads()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def pages_of(site: Path, prefix: str = "") -> set[str]:
    """Every HTML page of one edition, relative to the edition's root."""
    base = site / prefix
    return {p.relative_to(base).as_posix() for p in base.rglob("*.html")
            if prefix or p.relative_to(site).parts[0] not in ("en", "zh")}


@pytest.fixture(scope="module")
def bilingual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("bilingual")
    corpus = bilingual_corpus(base / "c")
    result = build(corpus, base / "site", workers=1)
    assert result.errors == [] and result.notes == 5
    return base / "site"


def test_both_editions_have_every_page_and_no_dead_link(bilingual: Path) -> None:
    zh, en = pages_of(bilingual), pages_of(bilingual, "en")
    assert zh == en and "ICML2026/optimization/adam/index.html" in en
    assert dead_links(bilingual) == []
    assert not (bilingual / "en/assets").exists() and (bilingual / "assets/site.css").is_file()


def test_each_page_links_to_itself_in_the_other_edition_both_ways(bilingual: Path) -> None:
    for rel in pages_of(bilingual):
        if rel == "404.html":
            continue
        zh_page, en_page = bilingual / rel, bilingual / "en" / rel
        there = heads(zh_page)
        assert resolve_link(bilingual, zh_page, there.alternates["en"]) == en_page, rel
        assert resolve_link(bilingual, zh_page, there.switch["en"]) == en_page, rel
        back = heads(en_page)
        assert resolve_link(bilingual, en_page, back.alternates["zh"]) == zh_page, rel
        assert resolve_link(bilingual, en_page, back.switch["zh"]) == zh_page, rel


def test_translations_stand_in_for_their_originals(bilingual: Path) -> None:
    en = (bilingual / "en/ICML2026/optimization/adam/index.html").read_text(encoding="utf-8")
    assert "Adam revisited" in en and "Adaptive moments" in en and "自适应" not in en
    assert '<html lang="en">' in en and "Venue" in en
    # the translation's link to sgd.md (an original) leads to the English edition's page of it
    assert re.search(r'<a href="\.\./sgd/">SGD</a>', en)
    zh = (bilingual / "ICML2026/optimization/adam/index.html").read_text(encoding="utf-8")
    assert "Adam 再探" in zh and "Adam revisited" not in zh
    # an English original with a Chinese translation: Chinese in the default edition, English under /en/
    assert "思维链" in (bilingual / "ICLR2026/llm_reasoning/cot/index.html").read_text(encoding="utf-8")
    assert "Chain of thought" in (bilingual / "en/ICLR2026/llm_reasoning/cot/index.html").read_text(encoding="utf-8")
    # a stale translation is still the English edition's text
    assert "An older translation" in (bilingual / "en/ICML2026/optimization/lion/index.html").read_text(encoding="utf-8")


def test_untranslated_notes_are_shown_marked_and_counted(bilingual: Path) -> None:
    lines = page_lines((bilingual / "en/ICML2026/optimization/index.html").read_text(encoding="utf-8"), "article")
    assert lines[:2] == ["📐 Optimization & Theory¶", "🧪 ICML2026 · 3 paper notes"]
    assert lines[2] == "📌 Same area in other venues: 🔬 ICLR2026 (1)"
    assert lines[3] == "🔥 Top topics: Optimizers ×3"
    assert lines[4:] == ["Adam revisited: A new analysis of Adam.", "The Lion optimizer: Sign momentum.",
                         "SGD 的隐式偏置 Chinese: 未翻译的笔记。"]
    zh = page_lines((bilingual / "ICML2026/optimization/index.html").read_text(encoding="utf-8"), "article")
    assert zh[1] == "🧪 ICML2026 · 3 篇论文解读" and zh[3] == "🔥 高频主题： 优化器 ×3"
    marked = (bilingual / "ICLR2026/optimization/index.html").read_text(encoding="utf-8")
    assert 'lang="en">Muon at scale</a> <span class="untranslated"' in marked
    page = (bilingual / "en/ICML2026/optimization/sgd/index.html").read_text(encoding="utf-8")
    assert 'class="untranslated-note"' in page and '<article class="note" lang="zh-CN">' in page
    assert 'class="untranslated-note"' not in (bilingual / "en/ICML2026/optimization/adam/index.html").read_text()


def test_a_stale_translation_says_so_and_links_its_original(tmp_path: Path) -> None:
    corpus = bilingual_corpus(tmp_path / "c")
    site = tmp_path / "site"
    build(corpus, site, workers=1)
    lion = site / "en/ICML2026/optimization/lion/index.html"
    notice = re.search(r'<p class="untranslated-note stale-translation"[^>]*>(.*?)</p>', lion.read_text("utf-8"))
    assert notice is not None and "may be out of date" in notice.group(1)
    href = re.search(r'<a href="([^"]+)" hreflang="zh"', notice.group(1))
    assert href is not None and resolve_link(site, lion, href.group(1)) == site / "ICML2026/optimization/lion/index.html"
    for fresh in ("en/ICML2026/optimization/adam/index.html", "ICLR2026/llm_reasoning/cot/index.html",
                  "ICML2026/optimization/lion/index.html", "en/ICLR2026/llm_reasoning/cot/index.html"):
        assert "stale-translation" not in (site / fresh).read_text("utf-8"), fresh
    # recording the original's digest (what `translate` does when it redoes the translation) clears it
    path = corpus / "ICML2026/optimization/lion.en.md"
    path.write_text(path.read_text("utf-8").replace("0" * 40, _digest(corpus, "ICML2026/optimization/lion.md")),
                    encoding="utf-8")
    assert build(corpus, site, workers=1).rendered >= 1
    assert "stale-translation" not in lion.read_text("utf-8")
    # and editing the original's text makes it stale again
    original = corpus / "ICML2026/optimization/adam.md"
    original.write_text(original.read_text("utf-8").replace("自适应矩估计，", "自适应矩估计（改），"), encoding="utf-8")
    build(corpus, site, workers=1)
    assert "stale-translation" in (site / "en/ICML2026/optimization/adam/index.html").read_text("utf-8")
    assert "stale-translation" not in lion.read_text("utf-8")


def test_search_index_per_edition(bilingual: Path) -> None:
    zh = json.loads((bilingual / "search/index.json").read_text(encoding="utf-8"))
    en = json.loads((bilingual / "en/search/index.json").read_text(encoding="utf-8"))
    assert zh["docs"] == en["docs"] == 5
    en_docs = [row for f in sorted((bilingual / "en/search/d").glob("*.json")) for row in json.loads(f.read_text())]
    zh_docs = [row for f in sorted((bilingual / "search/d").glob("*.json")) for row in json.loads(f.read_text())]
    assert "Adam revisited" in {title for title, _, _ in en_docs} and "Adam 再探" in {t for t, _, _ in zh_docs}
    assert sorted(url for _, _, url in en_docs) == sorted(url for _, _, url in zh_docs)
    assert "Optimization & Theory" in json.dumps(en["domains"], ensure_ascii=False)


def test_hidden_untranslated_notes_leave_the_other_edition_only(tmp_path: Path) -> None:
    corpus = bilingual_corpus(tmp_path / "c", CONFIG + 'untranslated = "hide"\n')
    build(corpus, tmp_path / "site", workers=1)
    site = tmp_path / "site"
    assert (site / "ICML2026/optimization/sgd/index.html").is_file()
    assert not (site / "en/ICML2026/optimization/sgd").exists()
    # muon is English and untranslated: the site language's edition shows every note all the same
    assert (site / "ICLR2026/optimization/muon/index.html").is_file()
    assert (site / "en/ICLR2026/optimization/muon/index.html").is_file()
    en_cell = page_lines((site / "en/ICML2026/optimization/index.html").read_text(encoding="utf-8"), "article")
    assert en_cell[1] == "🧪 ICML2026 · 2 paper notes"
    # a page the other edition lacks switches to that edition's home
    sgd = site / "ICML2026/optimization/sgd/index.html"
    assert resolve_link(site, sgd, heads(sgd).switch["en"]) == site / "en/index.html"
    assert dead_links(site) == []


def test_edits_rebuild_like_a_clean_build(tmp_path: Path) -> None:
    corpus = bilingual_corpus(tmp_path / "c")
    site = tmp_path / "site"
    build(corpus, site, workers=1)
    edits = [
        ("ICML2026/optimization/adam.en.md", lambda t: t.replace("Adaptive moments", "Adaptive moments, edited")),
        ("ICML2026/optimization/adam.en.md", lambda t: t.replace("Adam revisited", "Adam, revisited again")),
        ("ICML2026/optimization/sgd.md", lambda t: t.replace("domain: optimization", "domain: llm_reasoning")),
        ("ICLR2026/llm_reasoning/cot.zh.md", None),
    ]
    for rel, change in edits:
        path = corpus / rel
        if change is None:
            path.unlink()
        else:
            path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
        again = build(corpus, site, workers=1)
        assert again.errors == [] and not again.up_to_date
        clean = tmp_path / "clean"
        clean_build(corpus, clean)
        assert site_contents(site) == site_contents(clean), rel
        shutil.rmtree(clean)
    assert "Adam, revisited again" in (site / "en/ICML2026/optimization/index.html").read_text(encoding="utf-8")
    assert "Chain of thought" in (site / "ICLR2026/llm_reasoning/cot/index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("config", [CONFIG, CONFIG + 'untranslated = "hide"\n'], ids=["shown", "hidden"])
def test_body_edits_render_only_their_pages_in_each_edition(tmp_path: Path, config: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A body edit on a site with two editions plans only the pages that show the edited file, in every edition
    (an original's translations too: their stale notice may come or go), and the site equals a clean build."""
    import papernotes.site.replan as replan

    corpus = bilingual_corpus(tmp_path / "c", config)
    site = tmp_path / "site"
    build(corpus, site, workers=1)
    hidden = "hide" in config

    def whole_site(*args: object, **kwargs: object) -> None:
        raise AssertionError("a body edit planned the whole site")

    stale = 'class="untranslated-note stale-translation"'
    cot_zh = site / "ICLR2026/llm_reasoning/cot/index.html"
    edits: list[tuple[str, str, str | None, int]] = [  # (file, old text, new text, pages rendered)
        ("ICML2026/optimization/lion.md", "改过的原文。", "又改过的原文。", 1),  # its translation was stale already
        ("ICLR2026/llm_reasoning/cot.md", "Written in English.", "Rewritten in English.", 2),  # zh translation: stale
        ("ICLR2026/llm_reasoning/cot.zh.md", "中文译文。", "新的中文译文。", 1),
        ("ICLR2026/optimization/muon.md", "English only.", "Still English only.", 2),  # shown in both editions
        ("ICML2026/optimization/sgd.md", "只有中文。", "还是只有中文。", 1 if hidden else 2),
        ("ICML2026/optimization/lion.en.md", "0" * 40, None, 1),  # records its original's digest: not stale now
        # links to other notes resolve against each edition's pages (sgd is untranslated: the original's page)
        ("ICML2026/optimization/adam.md", "自适应矩估计，", "自适应矩估计（改），", 2),  # its translation: stale now
        ("ICML2026/optimization/adam.en.md", "Adaptive moments;", "Adaptive moment estimates;", 1),
    ]
    for rel, old, new, rendered in edits:
        path = corpus / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, rel
        path.write_text(text.replace(old, new or _digest(corpus, "ICML2026/optimization/lion.md")), encoding="utf-8")
        with monkeypatch.context() as patched:
            patched.setattr(replan, "plan_whole", whole_site)
            patched.setattr(replan, "plan_scoped", whole_site)
            again = build(corpus, site, workers=1)
        assert again.errors == [] and again.rendered == rendered, (rel, again.rendered)
        clean = tmp_path / "clean"
        clean_build(corpus, clean)
        assert site_contents(site) == site_contents(clean), rel
        shutil.rmtree(clean)
        if rel == "ICLR2026/llm_reasoning/cot.md":
            assert stale in cot_zh.read_text(encoding="utf-8")
    assert "新的中文译文" in cot_zh.read_text(encoding="utf-8")
    assert stale not in (site / "en/ICML2026/optimization/lion/index.html").read_text(encoding="utf-8")
    adam_en = site / "en/ICML2026/optimization/adam/index.html"
    link = re.search(r'<a href="([^"]+)">SGD</a>', adam_en.read_text(encoding="utf-8"))
    if hidden:  # the English edition leaves the untranslated sgd out: nothing to link to
        assert link is None
    else:
        assert link is not None
        assert resolve_link(site, adam_en, link.group(1)) == site / "en/ICML2026/optimization/sgd/index.html"


def test_a_one_language_site_has_no_switch(tmp_path: Path) -> None:
    corpus = bilingual_corpus(tmp_path / "c", 'title = "Notes"\n')
    build(corpus, tmp_path / "site", workers=1)
    assert not (tmp_path / "site/en").exists()
    html = (tmp_path / "site/ICML2026/optimization/index.html").read_text(encoding="utf-8")
    assert "langswitch" not in html and "hreflang" not in html and 'class="untranslated"' not in html


def test_languages_are_validated(tmp_path: Path) -> None:
    corpus = bilingual_corpus(tmp_path / "c", 'languages = ["zh", "zh"]\n')
    with pytest.raises(ConfigError, match="listed twice"):
        build(corpus, tmp_path / "site")
    (corpus / "papernotes.toml").write_text('languages = ["fr"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="languages"):
        build(corpus, tmp_path / "site")


def test_the_bilingual_examples(example_site) -> None:
    site, result = example_site
    assert result.errors == [] and result.notes == len(example_notes())
    assert pages_of(site) == pages_of(site, "en")
    translated = {p.name.removesuffix(".en.md") for p in EXAMPLES.rglob("*.en.md")}
    en_titles = page_lines((site / "en/ICML2024/optimization/index.html").read_text(encoding="utf-8"), "article")
    assert en_titles[0] == "📐 Optimization & Theory¶" and len(translated) >= 10


def test_a_problem_of_an_untranslated_note_is_reported_once(tmp_path: Path) -> None:
    corpus = bilingual_corpus(tmp_path / "c")
    sgd = corpus / "ICML2026/optimization/sgd.md"
    sgd.write_text(sgd.read_text(encoding="utf-8") + "\n见 [缺失](../nowhere/missing.md)。\n", encoding="utf-8")
    for _ in range(2):  # built, then up to date
        found = [str(d) for d in build(corpus, tmp_path / "site", workers=1).diagnostics if "broken link" in str(d)]
        assert len(found) == 1 and found[0].startswith("ICML2026/optimization/sgd.md:"), found
