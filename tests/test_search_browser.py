"""The search page in real Chromium (Debian's, driven by Playwright) on a corpus written here.

Covers what only a browser shows: Chinese compounds, acronyms and facets return the expected
notes, the URL round-trips (and back/forward restore a search), keyboard navigation, a 390-px
phone layout, a site served under a sub-path, untrusted note text rendered as text, and formulas in
results rendered by the shipped KaTeX.
Skipped when no system Chromium is installed; Playwright never downloads a browser here.
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from chromium import needs_chromium

from conftest import write_note
from papernotes.site.build import build

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium
EVIL = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
LONG = "Averyveryverylongunbrokentitlewordthatwouldoverflowanarrowphonescreenifnotwrapped" * 2

NOTES = {
    "ICLR2025/model_compression/kd.md": dict(
        title="Compact Students", venue="ICLR2025", domain="model_compression", keywords=["知识蒸馏", "学生模型"],
        links={"arxiv": "2501.00001"},
        body="## 一句话总结\n提出一种新的知识蒸馏方法，让小模型学到大模型的知识。\n\n## 方法详解\n知识蒸馏……知识蒸馏。\n"),
    "ICML2025/model_compression/kd-again.md": dict(
        title="Compact Students", venue="ICML2025", domain="model_compression", keywords=["知识蒸馏"],
        links={"arxiv": "2501.00001"}, body="## 一句话总结\n同一篇论文，知识蒸馏。\n"),
    "ICLR2025/llm_nlp/knowledge.md": dict(
        title="Knowledge Editing in Language Models", venue="ICLR2025", domain="llm_nlp",
        body="## 一句话总结\n编辑模型中的知识。\n\n## 方法详解\n知识定位；文中一句提到蒸馏。\n"),
    "ICLR2025/model_compression/quant.md": dict(
        title="Low-Bit Weights", venue="ICLR2025", domain="model_compression", keywords=["模型量化"],
        body="## 一句话总结\n一种后训练模型量化方法，把权重量化到 4 比特。\n"),
    "ICLR2025/llm_nlp/lora.md": dict(
        title="LoRA Adapters at Scale", venue="ICLR2025", domain="llm_nlp", keywords=["LoRA", "PEFT"],
        body="## 一句话总结\n低秩适配 LoRA 的扩展。\n"),
    "NeurIPS2024/llm_nlp/lora-old.md": dict(
        title="Tuning Language Models with LoRA", venue="NeurIPS2024", domain="llm_nlp",
        body="## 一句话总结\n用 LoRA 微调。\n"),
    "ICLR2025/reinforcement_learning/explore.md": dict(
        title="Curious Exploration", venue="ICLR2025", domain="reinforcement_learning",
        body="## 一句话总结\nExploration bonuses leverage curiosity and drag the agent onward.\n"),
    "NeurIPS2024/llm_nlp/rag.md": dict(
        title="RAG over Long Documents", venue="NeurIPS2024", domain="llm_nlp",
        body="## 一句话总结\n检索增强生成 RAG。\n"),
    "NeurIPS2024/ai_safety/evil.md": dict(
        title=f"Zebra {EVIL}", venue="NeurIPS2024", domain="ai_safety",
        body=f"## 一句话总结\nzebra {EVIL} 总结\n\n## 方法详解\nzebra {EVIL}\n"),
    "NeurIPS2024/optimization/momentum.md": dict(
        title="Momentum Transfer for $\\eta$ Schedules", venue="NeurIPS2024", domain="optimization",
        body=("## 一句话总结\nMomentum transfer sets $\\eta_B=\\lambda\\eta_A$ at <img src=x onerror=\"window.__pwned = 3\"> "
              "cost $\\notacommand{x}$.\n")),
    "NeurIPS2024/ai_safety/long.md": dict(
        title=f"Zebra {LONG}", venue="NeurIPS2024", domain="ai_safety", body=f"## 一句话总结\nzebra {LONG}\n"),
}


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def build_and_serve(base: Path, notes: dict[str, dict]) -> Iterator[str]:
    """The site built from ``notes``, served from its parent directory: pages live under ``/site/``."""
    corpus = base / "corpus"
    corpus.mkdir()
    (corpus / "papernotes.toml").write_text('title = "t"\nlanguage = "zh"\nbase_url = "/site/"\n', encoding="utf-8")
    for rel, fields in notes.items():
        write_note(corpus, rel, **dict(fields))
    result = build(corpus, base / "site")
    assert result.errors == [], result.errors
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(base)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/site/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from build_and_serve(tmp_path_factory.mktemp("search-browser"), NOTES)


@pytest.fixture()
def page(browser, served):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    page.requests = []
    page.dialogs = []
    page.on("request", lambda request: page.requests.append(request.url))
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    # the ranking's warm-up runs when the page is idle after the first search: its errors count too
    page.wait_for_function("""!document.querySelector('script[src$="search.js"]') || !document.getElementById('results')
        || document.documentElement.getAttribute('data-search') === 'warm'
        || /加载失败|could not be loaded/.test(document.body.innerText)""")
    context.close()
    assert errors == []


def search(page, served: str, query: str = "") -> list[str]:  # type: ignore[no-untyped-def]
    page.goto(served + "search/" + query)
    return wait_done(page)


def wait_done(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The slugs of the results, once the page says its search is done."""
    page.wait_for_selector("#results[data-done]", state="attached")
    return page.eval_on_selector_all("#results dt > a", "els => els.map(a => a.pathname.split('/').filter(Boolean).pop())")


def type_query(page, text: str) -> list[str]:  # type: ignore[no-untyped-def]
    page.fill("#q", "")
    page.type("#q", text)
    page.wait_for_function("t => document.querySelector('#results').getAttribute('data-done') === t", arg=text)
    return wait_done(page)


def test_chinese_compounds_with_and_without_spaces(page, served: str) -> None:
    kd = search(page, served, "?q=知识蒸馏")
    assert kd[0] == "kd" and "knowledge" in kd and "quant" not in kd
    assert kd.count("kd") + kd.count("kd-again") == 1  # one paper, shown once
    assert page.inner_text("#results dd .also").strip().endswith("ICML2025")
    other = page.eval_on_selector("#results dd .also a", "a => a.pathname")  # from the shown note's row
    assert other == "/site/ICML2025/model_compression/kd-again/"
    # the facet counts count a paper once per value: its two notes share a domain and a year
    labels = page.eval_on_selector_all("#f-domain option, #f-year option, #f-venue option", "els => els.map(o => o.textContent)")
    for label in ("模型压缩 (1)", "2025 (2)", "ICML2025 (1)", "ICLR2025 (2)"):
        assert any(shown.endswith(label) for shown in labels), (label, labels)
    assert page.eval_on_selector_all("#results dt:first-of-type mark", "els => els.length") == 0  # English title
    assert "知识蒸馏" in page.eval_on_selector_all("#results dd mark", "els => els.map(e => e.textContent)")
    spaced = type_query(page, "知识 蒸馏")
    assert spaced[0] == "kd" and set(spaced) == set(kd)
    assert type_query(page, "模型量化")[0] == "quant"


def test_acronyms_match_whole_words(page, served: str) -> None:
    assert sorted(search(page, served, "?q=LoRA")) == ["lora", "lora-old"]
    assert search(page, served, "?q=rag") == ["rag"]  # not "leverage" nor "drag"
    assert set(page.eval_on_selector_all("#results mark", "els => els.map(e => e.textContent)")) == {"RAG"}
    assert type_query(page, "explorations") == ["explore"]  # plural stemmed
    assert page.eval_on_selector_all("#results dt mark", "els => els.map(e => e.textContent)") == ["Exploration"]


def test_a_chinese_term_also_finds_its_english_synonyms(page, served: str) -> None:
    # 低秩适配 is written in one note only; the shipped synonyms add the notes that write LoRA
    found = search(page, served, "?q=低秩适配")
    assert found[0] == "lora" and sorted(found) == ["lora", "lora-old"]
    assert "LoRA" in page.eval_on_selector_all("#results dt mark", "els => els.map(e => e.textContent)")


def test_notes_missing_one_word_follow_and_the_status_says_so(page, served: str) -> None:
    # "LoRA" and "RAG" are in no note together: each note with one of them, said so
    assert sorted(search(page, served, "?q=LoRA+RAG")) == ["lora", "lora-old", "rag"]
    assert page.inner_text("#status") == "没有论文包含全部词；以下 3 条结果缺少其中一个。"
    # one note has "LoRA" and "language": it comes first, then the others with one of the words
    found = type_query(page, "LoRA language")
    assert found[0] == "lora-old" and set(found) >= {"lora", "knowledge"}
    assert page.inner_text("#status") == f"1 条结果，其后 {len(found) - 1} 条缺少一个词。"


def test_facets_combine_and_live_in_the_url(page, served: str) -> None:
    assert sorted(search(page, served, "?q=lora")) == ["lora", "lora-old"]
    page.select_option("#f-venue", "NeurIPS2024")
    page.wait_for_function("document.querySelector('#results').getAttribute('data-done') !== null")
    assert wait_done(page) == ["lora-old"] and "venue=NeurIPS2024" in page.url and "q=lora" in page.url
    page.select_option("#f-domain", "llm_nlp")
    assert wait_done(page) == ["lora-old"] and "domain=llm_nlp" in page.url
    page.select_option("#f-year", "2025")
    page.wait_for_function("location.search.includes('year=2025')")
    assert wait_done(page) == []
    assert page.inner_text("#status") == "没有匹配的论文。"
    # a shared link restores the same search
    url = page.url
    other = page.context.new_page()
    assert wait_done_after(other, url) == []
    assert other.input_value("#q") == "lora" and other.input_value("#f-venue") == "NeurIPS2024"
    assert other.input_value("#f-year") == "2025"
    other.close()
    # facets alone list every note they select, in site order
    only = search(page, served, "?venue=ICLR2025&domain=model_compression")
    assert sorted(only) == ["kd", "quant"]
    counts = page.eval_on_selector_all("#f-venue option", "els => els.map(o => o.textContent)")
    assert any(c.endswith("ICLR2025 (2)") for c in counts), counts


def test_the_topic_facet_selects_the_notes_of_a_topic(page, served: str) -> None:
    assert sorted(search(page, served, "?topic=peft")) == ["lora", "lora-old"]
    assert search(page, served, "?q=lora&topic=peft&venue=NeurIPS2024") == ["lora-old"]
    assert search(page, served, "?q=lora&topic=knowledge_distillation") == []
    assert page.input_value("#f-topic") == "knowledge_distillation"


def wait_done_after(page, url: str) -> list[str]:  # type: ignore[no-untyped-def]
    page.goto(url)
    return wait_done(page)


def test_back_and_forward_restore_a_search(page, served: str) -> None:
    search(page, served, "?q=lora")
    page.select_option("#f-venue", "ICLR2025")
    page.wait_for_function("location.search.includes('venue=ICLR2025')")
    assert wait_done(page) == ["lora"]
    page.go_back()
    page.wait_for_function("!location.search.includes('venue=')")
    assert sorted(wait_done(page)) == ["lora", "lora-old"]
    assert page.input_value("#f-venue") == ""
    page.go_forward()
    page.wait_for_function("location.search.includes('venue=ICLR2025')")
    assert wait_done(page) == ["lora"] and page.input_value("#f-venue") == "ICLR2025"


def test_keyboard_navigation(page, served: str) -> None:
    search(page, served)
    page.click("h1")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("lora")
    page.wait_for_function("document.querySelector('#results').getAttribute('data-done') === 'lora'")
    links = page.eval_on_selector_all("#results dt > a", "els => els.map(a => a.href)")
    assert len(links) == 2
    assert page.eval_on_selector_all("#results dt.active", "els => els.length") == 1
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # stops at the last result
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    assert page.eval_on_selector("#results dt.active > a", "a => a.href") == links[1]
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == links[1]
    page.go_back()
    assert wait_done(page) and page.input_value("#q") == "lora"


def test_phone_layout_has_no_horizontal_scroll(page, served: str) -> None:
    assert "long" in search(page, served, "?q=zebra")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    boxes = page.eval_on_selector_all("#q, select, #results dt", "els => els.map(e => e.getBoundingClientRect().right)")
    assert max(boxes) <= 390


def test_untrusted_note_text_is_shown_as_text(page, served: str) -> None:
    hits = search(page, served, "?q=zebra")
    assert "evil" in hits
    title = page.eval_on_selector("#results a[href$='evil/']", "a => a.textContent")
    assert "<script>" in title and "onerror" in title
    assert page.eval_on_selector_all("#results script, #results img", "els => els.length") == 0
    assert page.evaluate("window.__pwned") is None and page.dialogs == []
    summary = page.eval_on_selector("#results a[href$='evil/']", "a => a.closest('dt').nextElementSibling.textContent")
    assert "<img src=x" in summary


def test_formulas_in_results_render_with_the_shipped_katex(page, served: str) -> None:
    """Summaries and titles show their formulas as the listing pages do; the text around them stays text, a
    formula KaTeX rejects shows its TeX, and KaTeX is loaded once, when a result first needs it."""
    assert search(page, served, "?q=zebra") and not any("katex" in url for url in page.requests)
    assert type_query(page, "momentum")[0] == "momentum"
    page.wait_for_selector("#results dd .math .katex")
    dd = "#results a[href$='momentum/'] >> xpath=../following-sibling::dd[1]"
    maths = page.eval_on_selector(dd, """dd => [...dd.querySelectorAll('.math')].map(m => [
        m.classList.contains('math-error'), m.querySelector('.katex-html') ? m.querySelector('.katex-html').textContent
        : m.textContent])""")
    assert maths[0][0] is False and "\\eta" not in maths[0][1] and "η" in maths[0][1] and "λ" in maths[0][1]
    assert maths[1] == [True, "\\notacommand{x}"]
    assert page.eval_on_selector("#results a[href$='momentum/'] .math", "m => !!m.querySelector('.katex')")
    assert "<img src=x" in page.eval_on_selector(dd, "dd => dd.textContent")
    assert page.eval_on_selector_all("#results img, #results script", "els => els.length") == 0
    assert page.evaluate("window.__pwned") is None and page.dialogs == []
    type_query(page, "momentum transfer")
    page.wait_for_selector("#results dd .math .katex")
    assert sum(url.split("?")[0].endswith("katex.min.js") for url in page.requests) == 1


def test_everything_comes_from_the_site_itself(page, served: str) -> None:
    search(page, served, "?q=知识蒸馏")
    assert page.requests and all(url.startswith(served) for url in page.requests), page.requests
    fetched = [url.split("/site/search/")[-1].split("?")[0] for url in page.requests if "/site/search/" in url]
    assert "index.json" in fetched and any(f.startswith("t/") for f in fetched)
    manifest_shards = len(page.evaluate("fetch('index.json').then(r => r.json()).then(m => m.shards)"))
    assert sum(f.startswith("t/") for f in fetched) < manifest_shards or manifest_shards <= 2


def test_a_prefix_is_read_from_the_shards_of_its_frequent_terms(browser, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The page uses the manifest's ``prefixes``: "模" spans more shards than it reads, and its notes of 模型 (the
    most frequent of its terms, in a later shard than 模一, 模丁 …, which sort first) are among its results."""
    import json

    from papernotes.site.search import encode

    notes = {f"ICLR2025/llm_nlp/j{i:02d}.md": dict(title=f"Junk {i}", venue="ICLR2025", domain="llm_nlp",
                                                  body=f"## 一句话总结\n规模{chr(0x4E00 + i)}。\n") for i in range(40)}
    notes.update({f"ICLR2025/llm_nlp/m{i}.md": dict(title=f"Model {i}", venue="ICLR2025", domain="llm_nlp",
                                                   body="## 一句话总结\n模型压缩。\n") for i in range(6)})
    monkeypatch.setattr(encode, "SHARD_BYTES", 40)
    sites = build_and_serve(tmp_path, notes)
    served = next(sites)
    try:
        wide = json.loads((tmp_path / "site/search/index.json").read_text(encoding="utf-8"))["prefixes"]["模"]
        page = browser.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url.split("?")[0]))
        found = search(page, served, "?q=模")
        while page.is_visible("#more"):  # every result, page by page
            page.click("#more")
            page.wait_for_function("n => document.querySelectorAll('#results dt').length > n", arg=len(found))
            found = page.eval_on_selector_all("#results dt > a", "els => els.map(a => a.pathname.split('/').filter(Boolean).pop())")
        assert {f"m{i}" for i in range(6)} <= set(found), found
        assert {f"{served}search/t/{n}.bin" for n in wide} <= set(requested)
        page.close()
    finally:
        next(sites, None)
