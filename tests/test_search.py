"""The search index: tokeniser (Python and the shipped JS agree), ranking, shards, incremental builds.

The browser side is exercised here through ``static/search-core.js`` itself, run in QuickJS
(the ``quickjs-ng`` dependency); ``test_search_browser.py`` drives the real page in Chromium.
"""
from __future__ import annotations

import json
import marshal
import os
import sqlite3
import time
from collections import Counter
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from conftest import watch_forks, write_note
from papernotes.site.build import build
from papernotes.site.search import corpus_bodies, search_files, updatable
from papernotes.site.search.documents import shown
from papernotes.site.search.encode import decode_shard
from papernotes.site.search.index import STORE_NAME
from papernotes.site.search.tokenize import (
    NoteText,
    code_of,
    dequantise,
    field_terms,
    new_session,
    note_record,
    note_records,
    quantise,
)
from papernotes.text import FOLDED_CJK_RUN, LATIN_WORD, compounds, stem

quickjs = pytest.importorskip("quickjs")
CORE = (resources.files("papernotes") / "static" / "search-core.js").read_text(encoding="utf-8")

SAMPLES = [
    "LoRA: Low-Rank Adaptation of Large Language Models",
    "Efficient exploration with policy gradients; leverage the drag",
    "知识蒸馏与模型量化：大语言模型的压缩",
    "基于 GPT-4 的检索增强生成 (RAG) 方法",
    "ＬｏＲＡ 全角字母与 Ｑｕａｎｔｉｚａｔｉｏｎ",
    "Jürgen Schmidhuber and Ångström studies of the policies",
    "The classes, the models, its analysis; a focus on corpus",
    "图",
    "x² and ﬁnetuning with 3D Gaussians",
    "State-of-the-art text-to-images with GPT-4, multi\u2011agent in-context a-b--c 2023-2024 Jürgen-Ångström-",
]


class Core:
    """``search-core.js`` in QuickJS, fed with the files of a built site."""

    def __init__(self, site: Path | None = None) -> None:
        self.ctx = quickjs.Context()
        self.ctx.eval(CORE)
        self.ctx.eval("""
        var S = PapernotesSearch, IDX = null, M = null;
        function bytesOf(s) { var b = new Uint8Array(s.length); for (var i = 0; i < s.length; i++) b[i] = s.charCodeAt(i); return b; }
        function call(name, arg) { return JSON.stringify(S[name](JSON.parse(arg))); }
        function shard(s) { var d = S.decodeShard(bytesOf(s)), out = {};
          d.terms.forEach(function (t, i) { var p = [];
            for (var k = d.starts[i]; k < d.starts[i + 1]; k++) p.push([d.docs[k], d.impacts[k]]); out[t] = p; });
          return JSON.stringify(out); }
        function init(m) { M = JSON.parse(m); IDX = new S.Index(M); }
        function wanted(q) { var out = {}; S.parseQuery(q).forEach(function (c) { c.groups.forEach(function (g) {
          S.shardsFor(M.shards, g, M.prefixes).forEach(function (n) { out[n] = 1; }); }); }); return Object.keys(out).join(","); }
        function give(n, s) { IDX.shards[n] = S.decodeShard(bytesOf(s)); }
        function delta(s) { IDX.delta = S.decodeShard(bytesOf(s)); }
        function ranked(q) { var where = {}, cl = S.parseQuery(q);
          cl.forEach(function (c) { c.groups.forEach(function (g) { where[g.term + '|' + g.prefix] = S.shardsFor(M.shards, g, M.prefixes); }); });
          return IDX.rank(cl, function (g) { return where[g.term + '|' + g.prefix]; }); }
        function full(q) { return ranked(q).full; }
        function alternatives(q) { return JSON.stringify(IDX.alternatives(q)); }
        function upcoming(q) { return JSON.stringify(IDX.upcoming(q)); }
        function ahead(f, q) { return JSON.stringify(S.shardsAhead(JSON.parse(f), q)); }
        function wantedAll(q) { var out = {}; [q].concat(IDX.alternatives(q)).forEach(function (a) {
          S.parseQuery(a).forEach(function (c) { c.groups.forEach(function (g) {
            S.shardsFor(M.shards, g, M.prefixes).forEach(function (n) { out[n] = 1; }); }); }); }); return Object.keys(out).join(","); }
        function rankAll(q) { var where = {}, qs = [q].concat(IDX.alternatives(q)).map(S.parseQuery);
          qs.forEach(function (cl) { cl.forEach(function (c) { c.groups.forEach(function (g) {
            where[g.term + '|' + g.prefix] = S.shardsFor(M.shards, g, M.prefixes); }); }); });
          var r = IDX.rankAll(qs, function (g) { return where[g.term + '|' + g.prefix]; });
          var d = IDX.dedupe(r.docs, r.scores, r.order, r.full); return JSON.stringify(d.slice(0, d.length)); }
        function rank(q) { var where = {}, cl = S.parseQuery(q);
          cl.forEach(function (c) { c.groups.forEach(function (g) { where[g.term + '|' + g.prefix] = S.shardsFor(M.shards, g, M.prefixes); }); });
          var r = IDX.rank(cl, function (g) { return where[g.term + '|' + g.prefix]; }); var d = IDX.dedupe(r.docs, r.scores, r.order, r.full); return JSON.stringify(d.slice(0, d.length)); }
        """)
        self.site = site
        if site is not None:
            manifest = (site / "search/index.json").read_text(encoding="utf-8")
            self.manifest = json.loads(manifest)
            self.ctx.get("init")(manifest)
            if self.manifest["delta"]:
                self.ctx.get("delta")((site / "search/t/delta.bin").read_bytes().decode("latin-1"))

    def call(self, name: str, arg: object) -> object:
        return json.loads(self.ctx.get("call")(name, json.dumps(arg)))

    def shard(self, data: bytes) -> dict[str, list[list[int]]]:
        return json.loads(self.ctx.get("shard")(data.decode("latin-1")))

    def search(self, query: str) -> list[dict]:
        self._load(query)
        return json.loads(self.ctx.get("rank")(query))

    def search_all(self, query: str) -> list[dict]:
        """``search`` with the query's synonyms, as the search page ranks."""
        assert self.site is not None
        for n in filter(None, self.ctx.get("wantedAll")(query).split(",")):
            self.ctx.get("give")(int(n), (self.site / f"search/t/{n}.bin").read_bytes().decode("latin-1"))
        return json.loads(self.ctx.get("rankAll")(query))

    def alternatives(self, query: str) -> list[str]:
        return json.loads(self.ctx.get("alternatives")(query))

    def upcoming(self, query: str) -> list[str]:
        return json.loads(self.ctx.get("upcoming")(query))

    def full(self, query: str) -> int:
        """How many documents match every word of ``query`` (the first ones ``search`` returns)."""
        self._load(query)
        return int(self.ctx.get("full")(query))

    def _load(self, query: str) -> None:
        assert self.site is not None
        for n in filter(None, self.ctx.get("wanted")(query).split(",")):
            self.ctx.get("give")(int(n), (self.site / f"search/t/{n}.bin").read_bytes().decode("latin-1"))


def doc_urls(site: Path) -> list[str]:
    """URL of each document id, from the document files."""
    urls: list[str] = []
    for k in range(len(list((site / "search/d").glob("*.json")))):
        urls.extend(row[2] for row in json.loads((site / f"search/d/{k}.json").read_text(encoding="utf-8")))
    return urls


# ------------------------------------------------------------------ tokeniser

def test_latin_words_are_whole_words_lower_cased_and_stemmed() -> None:
    assert field_terms("LoRA") == ["lora"]
    assert "lora" not in field_terms("exploration") and "rag" not in field_terms("leverage the drag")
    assert field_terms("Models model MODELS") == ["model"] * 3
    assert [stem(w) for w in ("policies", "classes", "focus", "analysis", "gans", "llms", "gas")] == \
        ["policy", "class", "focus", "analysis", "gan", "llm", "gas"]
    assert field_terms("the models of a corpus") == ["model", "corpus"]
    assert field_terms("Jürgen Ångström") == ["jurgen", "angstrom"]
    assert field_terms("ＬｏＲＡ") == ["lora"]


def test_chinese_is_indexed_as_bigrams_and_a_lone_character_as_itself() -> None:
    assert field_terms("知识蒸馏") == ["知识", "识蒸", "蒸馏"]
    assert field_terms("图 与 LoRA 微调") == ["lora", "图", "与", "微调"]


def _terms_of(record) -> dict[int, int]:  # type: ignore[no-untyped-def]
    return dict(zip(np.frombuffer(record.codes, np.int64).tolist(), record.impacts))


def test_bodies_leave_out_noise() -> None:
    new_session()
    record = note_record("", (), (), "", (), "LoRA 微调 LoRA $\\alpha + x$ [link](http://example.com/exploration) "
                                             "<b>x</b> 7 a 图")
    # lora ×2, 微调, link; no alpha, URL, tag, 7, a, lone 图
    assert set(_terms_of(record)) == {code_of("lora"), code_of("微调"), code_of("link")}
    assert set(record.words) == {"lora", "link"}
    # reported with their codes, which the store keeps without hashing the words again
    assert len(record.word_codes) == 8 * len(record.words)
    assert sorted(record.vocabulary()) == sorted((code_of(w), w) for w in record.words)
    again = note_record("", (), (), "", (), "LoRA 微调 LoRA $\\alpha$ [l](http://e.com/exploration) 42 图")
    assert len(again.impacts) == 2 and again.words == ()  # each word is reported once per session


def test_unclosed_math_openers_are_text_up_to_the_next_one() -> None:
    # "\\[ a \\[ b \\]": the formula is the last opener's; the first one is text, and the scan from it stops
    # at the next opener (a lazy match to the end of the body from each of 100,000 openers took 190 s)
    from papernotes.site.search.tokenize import _NOISE

    assert _NOISE.sub("#", "x \\[ a+b \\] y \\( c \\) z") == "x # y # z"
    assert _NOISE.sub("#", "\\[ a \\[ b \\] c") == "\\[ a # c"
    assert _NOISE.sub("#", "\\( a \\( b \\) c \\[ d") == "\\( a # c \\[ d"
    assert _NOISE.sub("#", "\\[" * 100_000) == "\\[" * 100_000


def reference_record(note: NoteText) -> dict[int, int]:
    """Term code → impact of one note, computed term by term from the rules in ``tokenize``'s docstring
    (``note_records`` computes them for many notes at once with numpy)."""
    from papernotes.site.search import tokenize as tk

    def saturated(tf: int, norm: float = 1.0) -> float:
        return tf * (tk.K1 + 1) / (tf + tk.K1 * norm)

    meta: dict[str, float] = {}
    fields = ((tk.W_TITLE, tk.plain(note.title)), (tk.W_KEYWORDS, "\n".join([*note.keywords, *(n for _, n in note.topics)])),
              (tk.W_SUMMARY, tk.plain(note.summary)), (tk.W_AUTHORS, "\n".join(note.authors)))
    for weight, text in fields:
        for term, tf in Counter(field_terms(text)).items():
            meta[term] = meta.get(term, 0.0) + weight * saturated(tf)
    text = tk.normalise(tk._NOISE.sub(" ", note.body))
    body = Counter(t for w in [*LATIN_WORD.findall(text), *compounds(text)]
                   if len(w) > 1 and not w.isdigit() and (t := tk.latin_term(w)))
    body.update(run[i:i + 2] for run in FOLDED_CJK_RUN.findall(text) for i in range(len(run) - 1))
    norm = 1 - tk.B_BODY + tk.B_BODY * sum(body.values()) / tk.PIVOT
    scores = {term: tk.W_BODY * tf * (tk.K1 + 1) / (tf + tk.K1 * norm) for term, tf in body.items()}
    for term, score in meta.items():
        scores[term] = scores[term] + score if term in scores else score
    out = {code_of(term): quantise(score) for term, score in scores.items()}
    return {**out, **{code_of("#" + slug): 1 for slug, _ in note.topics}}


TRICKY = [
    NoteText("LoRA: Low-Rank Adaptation", ("lora", "低秩适配"), (("peft", "参数高效微调"),), "A **LoRA** summary $x$",
             ("Edward Hu", "Yelong Shen"), "LoRA 微调 LoRA models model 知识蒸馏 图 a 7 x2 " * 3),
    NoteText("İstanbul ＬｏＲＡ ﬁnetuning 﨎 著", (), (), "", (), "İSTANBUL ＱＵＡＮＴ ﬃ 﨎著 ﬁne"),
    NoteText("", (), (), "", (), ""),
    NoteText("İzmir Ölçü", (), (), "", (), "İZMİR ÇAĞ models İ"),
    NoteText("$$a\nb$$ title", ("k$1$", "<i>x</i>"), (("a", "甲"), ("b", "乙")), "\\(x\\) summary", (),
             "$$\nformula 公式\n$$ text <span>tag</span> [link](http://example.com/z) http://x.org/y 的"),
    NoteText("图", ("与",), (), "单", ("王",), "单 字"),
    NoteText("Jürgen Schmidhuber", (), (), "the policies of classes", ("Ångström",), "Jürgen's policies, Ångström " * 40),
    NoteText("Text-to-Image with GPT-4", ("in-context",), (), "multi-agent", (),
             "text-to-images, state-of-the-art; 3-4 x-y a-b--c‐d‑e 大模型-based -lead trail- GPT-4o " * 3),
]


def test_many_notes_at_once_make_the_records_of_one_at_a_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from papernotes.site.search import tokenize

    corpus = [*TRICKY, *(NoteText(f"Paper {i}", (f"kw{i % 3}",), (), SAMPLES[i % len(SAMPLES)], (), " ".join(SAMPLES) * (i % 4))
                         for i in range(40))]
    for chars in (tokenize.BATCH_CHARS, 500):  # one batch, and many
        monkeypatch.setattr(tokenize, "BATCH_CHARS", chars)
        new_session()
        records = list(note_records(corpus))
        assert [_terms_of(r) for r in records] == [reference_record(n) for n in corpus]
        reported = [w for r in records for w in r.words]
        assert len(reported) == len(set(reported))  # once each


def test_a_title_says_more_than_a_body_mention() -> None:
    def impact(record, term: str) -> int:  # type: ignore[no-untyped-def]
        codes = np.frombuffer(record.codes, np.int64).tolist()
        return record.impacts[codes.index(code_of(term))]

    in_title = note_record("Knowledge distillation", (), (), "", (), "其他内容")
    in_keywords = note_record("Something", ("knowledge distillation",), (), "", (), "其他内容")
    in_summary = note_record("Something", (), (), "knowledge distillation", (), "其他内容")
    in_body = note_record("Something else", (), (), "", (), "knowledge distillation 出现一次")
    everywhere = note_record("Knowledge", ("knowledge",), (), "knowledge", (), "knowledge " * 5)
    order = [impact(r, "knowledge") for r in (everywhere, in_title, in_keywords, in_summary, in_body)]
    assert order == sorted(order, reverse=True) and len(set(order)) == 5
    for q in (1, 50, 128, 255):
        assert quantise(dequantise(q)) == q
    assert abs(dequantise(quantise(3.0)) / 3.0 - 1) < 0.02


def test_the_javascript_tokeniser_agrees_with_python() -> None:
    core = Core()
    for text in SAMPLES:
        assert core.call("fieldTerms", text) == field_terms(text), text


def test_queries_become_clauses() -> None:
    core = Core()
    compound = core.call("parseQuery", "知识蒸馏")
    assert [g["term"] for g in compound[0]["groups"]] == ["知识", "识蒸", "蒸馏"] and compound[0]["need"] == 2
    spaced = core.call("parseQuery", "知识 蒸馏")
    assert [(c["groups"][0]["term"], c["need"]) for c in spaced] == [("知识", 1), ("蒸馏", 1)]
    compounds = {q: [([g["term"] for g in c["groups"]], c["need"]) for c in core.call("parseQuery", q)]
                 for q in ("text-to-image", "in-context", "GPT-4", "multi\u2011agents", "in-to", "3-4")}
    assert compounds == {"text-to-image": [(["text", "image", "texttoimage"], 2)],
                         "in-context": [(["context", "incontext"], 1)],
                         "GPT-4": [(["gpt", "gpt4"], 1), (["4"], 1)],  # a bare number adds to the score only
                         "multi\u2011agents": [(["multi", "agent", "multiagent"], 2)], "in-to": [],
                         "3-4": [(["34"], 1), (["3"], 1), (["4"], 1)]}
    mixed = core.call("parseQuery", "the LoRA models 4 的")
    assert [(c["groups"][0]["term"], c["groups"][0]["prefix"], c["soft"]) for c in mixed] == [
        ("lora", True, False), ("model", True, False), ("4", False, True), ("的", False, True)]


# ------------------------------------------------------------------ a small corpus

NOTES = {
    "ICLR2025/model_compression/kd.md": dict(
        title="Compact Students by Knowledge Distillation", venue="ICLR2025", domain="model_compression",
        keywords=["知识蒸馏"], links={"arxiv": "2501.00001"},
        body="## 一句话总结\n提出一种新的知识蒸馏方法。\n\n## 方法详解\n知识蒸馏让学生模型模仿教师，知识蒸馏的损失……\n"),
    "ICLR2025/model_compression/kd-dup.md": dict(
        title="Compact students by knowledge distillation!", venue="ICML2025", domain="model_compression",
        keywords=["知识蒸馏"], body="## 一句话总结\n同一篇论文的另一份笔记。\n"),
    "ICLR2025/llm_nlp/mention.md": dict(
        title="A Survey of Language Agents", venue="ICLR2025", domain="llm_nlp",
        body="## 一句话总结\n综述智能体。\n\n## 方法详解\n知识很重要。另有蒸馏水的比喻，并顺带提到知识蒸馏。\n"),
    "ICLR2025/llm_nlp/lora.md": dict(
        title="LoRA Adapters for Models", venue="ICLR2025", domain="llm_nlp", keywords=["LoRA"],
        body="## 一句话总结\n低秩适配 LoRA。\n"),
    "ICLR2025/reinforcement_learning/explore.md": dict(
        title="Curious Exploration", venue="ICLR2025", domain="reinforcement_learning",
        body="## 一句话总结\nexploration, leverage and drag.\n"),
    "NeurIPS2024/llm_nlp/rag.md": dict(
        title="RAG with Long Context", venue="NeurIPS2024", domain="llm_nlp",
        body="## 一句话总结\n检索增强生成 RAG。\n"),
}


def write_corpus(root: Path, notes: dict[str, dict] = NOTES) -> Path:
    (root / "papernotes.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "papernotes.toml").write_text('title = "t"\nlanguage = "zh"\n', encoding="utf-8")
    for rel, fields in notes.items():
        write_note(root, rel, **dict(fields))
    return root


@pytest.fixture()
def small(tmp_path: Path) -> tuple[Path, Path]:
    corpus = write_corpus(tmp_path / "corpus")
    site = tmp_path / "site"
    result = build(corpus, site)
    assert result.errors == [], result.errors
    return corpus, site


def titles(site: Path, hits: list[dict]) -> list[str]:
    urls = doc_urls(site)
    return [urls[h["doc"]].split("/")[-2] for h in hits]


def test_ranking_on_a_small_corpus(small: tuple[Path, Path]) -> None:
    _, site = small
    core = Core(site)
    kd = core.search("知识蒸馏")
    assert titles(site, kd)[0] == "kd" and "mention" in titles(site, kd)
    assert titles(site, kd)[:2] == ["kd", "mention"]  # the duplicate is folded into the first
    assert len(kd[0]["also"]) == 1
    assert titles(site, core.search("LoRA")) == ["lora"]
    assert titles(site, core.search("lor")) == ["lora"]  # a word prefix
    assert titles(site, core.search("RAG")) == ["rag"]
    assert titles(site, core.search("model")) == ["lora"]  # the title says "Models"
    # no note has both words: the notes with one of them, the rarer word's first (relaxed: see below)
    assert sorted(titles(site, core.search("exploration LoRA"))) == ["explore", "lora"]
    assert core.full("exploration LoRA") == 0 and core.full("LoRA adapters") == 1


def test_few_notes_with_every_word_are_followed_by_those_missing_one(tmp_path: Path) -> None:
    notes = {f"ICLR2025/image_generation/d{i}.md": dict(title=f"Diffusion Sampler {i}", venue="ICLR2025",
                                                        domain="image_generation",
                                                        body="## 一句话总结\ndiffusion model, faster.\n")
             for i in range(12)}
    notes["ICLR2025/image_generation/both.md"] = dict(title="Diffusion Acceleration", venue="ICLR2025",
                                                      domain="image_generation", body="## 一句话总结\nmodel acceleration.\n")
    notes["ICLR2025/image_generation/other.md"] = dict(title="Acceleration of Model Solvers", venue="ICLR2025",
                                                       domain="image_generation", body="## 一句话总结\nsolvers.\n")
    corpus = write_corpus(tmp_path / "corpus", notes)
    site = tmp_path / "site"
    assert build(corpus, site).errors == []
    core = Core(site)
    # one note has all three words; then the notes that miss one of them, best first
    found = titles(site, core.search("diffusion model acceleration"))
    assert found[0] == "both" and core.full("diffusion model acceleration") == 1
    assert sorted(found[1:]) == sorted([*(f"d{i}" for i in range(12)), "other"])
    # ten or more notes with every word: nothing else is shown
    assert sorted(titles(site, core.search("diffusion model"))) == sorted([*(f"d{i}" for i in range(12)), "both"])
    assert core.full("diffusion model") == 13
    # a one-word query is never relaxed
    assert sorted(titles(site, core.search("acceleration"))) == ["both", "other"]
    # a note missing two of three words is not shown
    assert "other" not in titles(site, core.search("diffusion sampler acceleration"))


def test_a_hyphenated_compound_ranks_the_notes_that_write_it_first(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {
        "ICLR2025/image_generation/apart.md": dict(title="Faster Captions", venue="ICLR2025", domain="image_generation",
                                     body="## 一句话总结\nimage and text, text and image.\n"),
        "ICLR2025/image_generation/compound.md": dict(title="Faster Sampling", venue="ICLR2025", domain="image_generation",
                                        body="## 一句话总结\nA text-to-image model.\n"),
        "ICLR2025/image_generation/image.md": dict(title="Image Restoration", venue="ICLR2025", domain="image_generation",
                                     body="## 一句话总结\nimage only.\n"),
        "ICLR2025/llm_nlp/icl.md": dict(title="Demonstrations at Test Time", venue="ICLR2025", domain="llm_nlp",
                                    body="## 一句话总结\nin-context learning.\n"),
        "ICLR2025/llm_nlp/window.md": dict(title="Long Context Windows", venue="ICLR2025", domain="llm_nlp",
                                       body="## 一句话总结\nthe context of a model.\n"),
    })
    site = tmp_path / "site"
    assert build(corpus, site).errors == []
    core = Core(site)
    assert titles(site, core.search("text-to-image")) == ["compound", "apart"]
    # typing: "im" is no word of either note, but the compound's prefix still finds the one that writes it
    assert titles(site, core.search("text-to-im")) == ["compound"]
    assert titles(site, core.search("in-context")) == ["icl", "window"]
    assert sorted(titles(site, core.search("text image"))[:2]) == ["apart", "compound"]  # no compound needed
    assert core.full("text image") == 2 and core.full("text-to-image") == 2


def test_a_chinese_query_also_finds_what_its_synonyms_find(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {
        "ICLR2025/scientific_computing/zh.md": dict(title="Neural Solvers", venue="ICLR2025",
                                                    domain="scientific_computing",
                                                    body="## 一句话总结\n求解偏微分方程的神经网络。\n"),
        "ICLR2025/scientific_computing/en.md": dict(title="PDE Solvers at Scale", venue="ICLR2025",
                                                    domain="scientific_computing", body="## 一句话总结\n更快的求解器。\n"),
        "ICLR2025/scientific_computing/ode.md": dict(title="ODE Integrators", venue="ICLR2025",
                                                     domain="scientific_computing", body="## 一句话总结\n常微分方程。\n"),
    })
    (corpus / "synonyms.toml").write_text('[[synonyms]]\nterms = ["神经求解器", "neural solver"]\n', encoding="utf-8")
    with (corpus / "papernotes.toml").open("a", encoding="utf-8") as config:
        config.write('[taxonomy]\nsynonyms = ["synonyms.toml"]\n')
    site = tmp_path / "site"
    assert build(corpus, site).errors == []
    manifest = json.loads((site / "search/index.json").read_text(encoding="utf-8"))
    assert ["偏微分方程", "PDE", "partial differential equation"] in manifest["synonyms"]
    assert manifest["synonyms"][-1] == ["神经求解器", "neural solver"]  # the site's own group
    core = Core(site)
    assert core.alternatives("偏微分 方程") == ["PDE", "partial differential equation"]
    assert core.alternatives("PDE") == []  # one English word or acronym is not expanded
    assert core.alternatives("Partial  differential equation") == ["偏微分方程", "PDE"]  # a phrase is
    # while a term of a group is typed, the page loads its synonyms' shards ahead
    assert core.upcoming("偏微分") == ["PDE", "partial differential equation"]
    assert core.upcoming("partial  diff") == ["偏微分方程", "PDE"]
    assert core.upcoming("偏微分方程") == [] and core.upcoming("pa") == []  # whole, or too short to say
    assert core.upcoming("模型") == []  # the beginning of more than two terms: none loaded
    # the note that writes 偏微分方程 first, then the one whose title says PDE (and the ODE note, which has
    # three of the four bigrams of 偏微分方程)
    assert titles(site, core.search_all("偏微分方程"))[:2] == ["zh", "en"]
    assert "en" not in titles(site, core.search("偏微分方程"))  # without the synonyms
    # the site's group: "Neural Solvers" has both words of its English term, "PDE Solvers" one of them
    assert titles(site, core.search_all("神经求解器")) == ["zh", "en"]
    assert titles(site, core.search_all("PDE")) == ["en"]
    # an edited synonyms file is a new build, not "up to date"
    (corpus / "synonyms.toml").write_text('[[synonyms]]\nterms = ["神经求解器", "neural solvers", "NS"]\n',
                                          encoding="utf-8")
    assert not build(corpus, site).up_to_date
    manifest = json.loads((site / "search/index.json").read_text(encoding="utf-8"))
    assert manifest["synonyms"][-1] == ["神经求解器", "neural solvers", "NS"]


def test_a_synonym_missing_a_word_adds_nothing_when_enough_notes_match(tmp_path: Path) -> None:
    notes = {f"ICLR2025/image_generation/s{i}.md": dict(title=f"Sampler {i}", venue="ICLR2025", domain="image_generation",
                                                        body="## 一句话总结\n更快的扩散采样。\n") for i in range(12)}
    notes["ICLR2025/image_generation/loose.md"] = dict(title="Diffusion for Audio", venue="ICLR2025",
                                                       domain="image_generation", body="## 一句话总结\n音频。\n")
    corpus = write_corpus(tmp_path / "corpus", notes)
    (corpus / "synonyms.toml").write_text('[[synonyms]]\nterms = ["扩散采样", "diffusion sampling"]\n', encoding="utf-8")
    with (corpus / "papernotes.toml").open("a", encoding="utf-8") as config:
        config.write('[taxonomy]\nsynonyms = ["synonyms.toml"]\n')
    site = tmp_path / "site"
    assert build(corpus, site).errors == []
    core = Core(site)
    # "diffusion sampling" alone would show the note that has "diffusion" only (few have both words);
    # with twelve notes matching 扩散采样 in full, it is not shown
    assert sorted(titles(site, core.search("diffusion sampling"))) == ["loose"]
    assert sorted(titles(site, core.search_all("扩散采样"))) == sorted(f"s{i}" for i in range(12))


def test_shards_round_trip_in_python_and_javascript(small: tuple[Path, Path]) -> None:
    _, site = small
    manifest = json.loads((site / "search/index.json").read_text(encoding="utf-8"))
    core = Core(site)
    seen: list[str] = []
    for n, first in enumerate(manifest["shards"]):
        data = (site / f"search/t/{n}.bin").read_bytes()
        py = decode_shard(data)
        assert core.shard(data) == {t: [list(p) for p in v] for t, v in py.items()}
        assert list(py)[0] == first and list(py) == sorted(py)
        for term, postings in py.items():
            docs = [d for d, _ in postings]
            assert docs == sorted(set(docs)) and all(1 <= imp <= 255 for _, imp in postings)
            assert core.ctx.eval(f"S.shardFor(M.shards, {json.dumps(term)})") == n
        seen.extend(py)
    assert seen == sorted(seen) and len(seen) == len(set(seen))
    for slug, _, count in manifest["topics"]:  # topic facets are terms of their own
        assert "#" + slug in seen


def test_many_shards_cut_at_term_boundaries(tmp_path: Path) -> None:
    notes = {f"ICLR2025/llm_nlp/n{i:03d}.md": dict(title=f"Note {i} about word{i} and shared words", venue="ICLR2025",
                                                domain="llm_nlp", body=f"## 一句话总结\n第{i}篇 shared text {'x' * (i % 7 + 2)}。\n")
             for i in range(300)}
    corpus = write_corpus(tmp_path / "c", notes)
    from papernotes.site.search import encode

    old = encode.SHARD_BYTES
    encode.SHARD_BYTES = 400
    try:
        files = search_files(_entries(corpus), corpus_bodies(corpus), None, "zh", workers=1)
    finally:
        encode.SHARD_BYTES = old
    manifest = json.loads(files["search/index.json"])
    assert len(manifest["shards"]) > 5
    terms = []
    for n in range(len(manifest["shards"])):
        terms.extend(decode_shard(files[f"search/t/{n}.bin"]))
    assert terms == sorted(terms) and "word123" in terms
    assert {d for d, _ in decode_shard(files[_shard_of(manifest, "word123")])["word123"]} == {_doc_of(files, "n123")}


def test_a_prefix_spread_over_many_shards_is_read_where_its_frequent_terms_are(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The page reads a prefix from 3 shards. When its terms fill more, the manifest names those holding its
    frequent terms: "模" reads the shard of 模型 (in 6 notes), not only those of 模一, 模丁 … (one note each),
    which sort first."""
    from papernotes.site.search import encode

    notes = {f"ICLR2025/llm_nlp/j{i:02d}.md": dict(title=f"Junk {i}", venue="ICLR2025", domain="llm_nlp",
                                                  body=f"## 一句话总结\n规模{chr(0x4E00 + i)}。\n") for i in range(40)}
    notes.update({f"ICLR2025/llm_nlp/m{i}.md": dict(title=f"Model {i}", venue="ICLR2025", domain="llm_nlp",
                                                   body="## 一句话总结\n模型压缩。\n") for i in range(6)})
    corpus = write_corpus(tmp_path / "corpus", notes)
    monkeypatch.setattr(encode, "SHARD_BYTES", 40)
    site = tmp_path / "site"
    assert build(corpus, site).errors == []
    manifest = json.loads((site / "search/index.json").read_text(encoding="utf-8"))
    firsts = manifest["shards"]
    own = max(i for i, first in enumerate(firsts) if first <= "模")
    assert firsts[own + 3].startswith("模")  # more shards of 模… than the page reads
    wide = manifest["prefixes"]["模"]
    assert wide[0] == own and len(wide) == 3 and int(_shard_of(manifest, "模型").split("/")[-1][:-4]) in wide
    assert "规" not in manifest["prefixes"] and "压" not in manifest["prefixes"]  # within their shards: not listed
    core = Core(site)
    assert set(titles(site, core.search("模"))) >= {f"m{i}" for i in range(6)}
    assert titles(site, core.search("模型"))[:6] == sorted(f"m{i}" for i in range(6))
    # the page's rule without the list: the first three shards, where 模型 is not
    core.ctx.eval("M.prefixes = {};")
    assert not set(titles(site, core.search("模"))) & {f"m{i}" for i in range(6)}


def test_shards_packed_and_encoded_on_threads_are_the_ones_made_on_one(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Batches packed and shard groups encoded on two threads come back in order: the same bytes as on one."""
    notes = {f"ICLR2025/llm_nlp/n{i:03d}.md": dict(title=f"Note {i} about word{i}", venue="ICLR2025",
                                                domain="llm_nlp", body=f"## 一句话总结\n第{i}篇 shared text 共享{i % 13}。\n")
             for i in range(120)}
    corpus = write_corpus(tmp_path / "c", notes)
    from papernotes.site.search import encode

    monkeypatch.setattr(encode, "SHARD_BYTES", 300)
    monkeypatch.setattr(encode, "BATCH", 7)  # many batches to pack
    monkeypatch.setattr(encode, "ENCODE_POSTINGS", 50)  # many groups to encode
    made = {}
    for threads in (1, 2):
        monkeypatch.setattr(encode, "THREADS", threads)
        files = search_files(_entries(corpus), corpus_bodies(corpus), None, "zh", workers=1)
        made[threads] = {rel: files[rel] for rel in files}
    assert len(json.loads(made[2]["search/index.json"])["shards"]) > 10
    assert made[1] == made[2]


def test_varints_are_those_written_one_at_a_time() -> None:
    from papernotes.site.search.encode import _varint, varints

    edges = [0, 1, 127, 128, 16_383, 16_384, (1 << 21) - 1, 1 << 21, (1 << 32) - 1, 1 << 32, (1 << 63) + 5,
             (1 << 64) - 1]
    rng = np.random.default_rng(7)
    for values in (edges, rng.integers(0, 3_000, 500).tolist(), rng.integers(0, 1 << 40, 200).tolist(), [5], []):
        assert varints(np.array(values, np.uint64)) == b"".join(_varint(v) for v in values)


def test_records_written_in_the_background_are_there_or_their_error_is_raised(tmp_path: Path) -> None:
    """``put_records(wait=False)`` returns at once; the next use of the store waits for the writes, and raises
    what they raised (a store whose records failed to be written is never renamed into place)."""
    from papernotes.site.search.store import SearchStore

    record = note_record("LoRA adapters", ["lora"], [], "适配器", [], "低秩适配器")
    with SearchStore(tmp_path / "ok.sqlite") as store:
        store.put_records([("b", record), ("a", record)], wait=False)
        assert store.record_keys() == {"a", "b"}
        assert store.words([code_of("lora")]) == {code_of("lora"): "lora"}
    with SearchStore(tmp_path / "ok.sqlite") as reopened:  # renamed into place with both records
        assert [r.codes for r in reopened.records(["a", "b"])] == [record.codes, record.codes]
    failing = tmp_path / "failing.sqlite"
    with pytest.raises(sqlite3.OperationalError, match="records"), SearchStore(failing) as store:
        store.db.execute("DROP TABLE records")
        store.put_records([("a", record)], wait=False)
        store.last()
    with pytest.raises(sqlite3.OperationalError, match="records"), SearchStore(failing) as store:
        store.db.execute("DROP TABLE records")
        store.put_records([("a", record)], wait=False)  # and nothing else: closing raises
    assert not failing.exists() and not failing.with_name("failing.sqlite.new").exists()


def _entries(corpus: Path):  # type: ignore[no-untyped-def]
    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import load_corpus
    from papernotes.site.resolve import resolve

    config, _ = load_config(corpus)
    with BuildCache(None) as cache:
        loaded = load_corpus(corpus, cache, 1)
        entries, _ = resolve(loaded.notes, loaded.diagnostics, load_site_taxonomy(corpus, config), {})
    return entries


def _shard_of(manifest: dict, term: str) -> str:
    n = max(i for i, first in enumerate(manifest["shards"]) if first <= term)
    return f"search/t/{n}.bin"


def _doc_of(files, slug: str) -> int:  # type: ignore[no-untyped-def]
    manifest = json.loads(files["search/index.json"])
    for k in range(0, manifest["docs"], manifest["chunk"]):
        for i, row in enumerate(json.loads(files[f"search/d/{k // manifest['chunk']}.json"])):
            if row[2].rstrip("/").endswith(slug):
                return k + i
    raise AssertionError(slug)


# ------------------------------------------------------------------ incremental

def test_rebuilds_tokenise_only_changed_notes_and_write_a_delta(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    cache = tmp_path / "cache"
    read: list[str] = []
    bodies = corpus_bodies(corpus)

    def counting(note):  # type: ignore[no-untyped-def]
        read.append(note.path)
        return bodies(note)

    first = search_files(_entries(corpus), counting, cache, "zh", workers=1)
    assert len(read) == len(NOTES) and "search/t/delta.bin" not in first
    read.clear()
    again = search_files(_entries(corpus), counting, cache, "zh", workers=1)
    assert read == [] and again.digests == first.digests and again.changes(first.digests) == ([], [])

    edited = corpus / "ICLR2025/llm_nlp/lora.md"
    edited.write_text(edited.read_text(encoding="utf-8").replace("低秩适配", "低秩适配 zebrafish"), encoding="utf-8")
    third = search_files(_entries(corpus), counting, cache, "zh", workers=1)
    assert read == ["ICLR2025/llm_nlp/lora.md"]
    manifest = json.loads(third["search/index.json"])
    assert manifest["delta"] and len(manifest["dead"]) == 1
    write, remove = third.changes(first.digests)
    assert not any(rel.startswith("search/t/") and rel != "search/t/delta.bin" for rel in write)  # base shards kept
    assert "search/t/delta.bin" in write and "search/index.json" in write and remove == []
    assert "zebrafish" in decode_shard(third["search/t/delta.bin"])

    read.clear()
    write_note(corpus, "ICLR2025/llm_nlp/new.md", title="A New Note", venue="ICLR2025", domain="llm_nlp")
    fourth = search_files(_entries(corpus), counting, cache, "zh", workers=1)
    assert read == ["ICLR2025/llm_nlp/new.md"]  # documents moved: the shards are cut again, from cached records
    assert "search/t/delta.bin" not in fourth and json.loads(fourth["search/index.json"])["dead"] == []
    write, remove = fourth.changes(third.digests)
    assert "search/t/delta.bin" in remove


def test_a_new_store_is_written_beside_and_renamed_into_place(tmp_path: Path) -> None:
    """A first (or unreadable, or other-format) store is made as ``search.sqlite.new`` and renamed when the index
    is made; a build that fails half-way leaves the old file as it was and nothing beside it."""
    import sqlite3

    from papernotes.site.search.store import SearchStore

    corpus = write_corpus(tmp_path / "corpus")
    cache = tmp_path / "cache"
    store, new = cache / "search.sqlite", cache / "search.sqlite.new"
    failing_bodies = corpus_bodies(corpus)

    def fail(note):  # type: ignore[no-untyped-def]
        if note.path.endswith("lora.md"):
            raise OSError("disk gone")
        return failing_bodies(note)

    with pytest.raises(OSError):
        search_files(_entries(corpus), fail, cache, "zh", workers=1)
    assert not store.exists() and not new.exists()
    first = search_files(_entries(corpus), corpus_bodies(corpus), cache, "zh", workers=1)
    assert store.is_file() and not new.exists()
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # written without a journal, whole
        records = db.execute("SELECT count(*) FROM records").fetchone()[0]
    assert records == len(NOTES)
    # reused as it is: opened in WAL mode for the small writes of later builds
    with SearchStore(store) as reused:
        assert reused.db.execute("PRAGMA journal_mode").fetchone() == ("wal",) and not new.exists()
    # a failed build over an existing store keeps it
    with pytest.raises(OSError), SearchStore(store):
        raise OSError("killed")
    assert search_files(_entries(corpus), corpus_bodies(corpus), cache, "zh", workers=1).digests == first.digests
    # a damaged file, or one left by an old journal, is replaced, not an error
    store.write_bytes(b"not a database")
    (cache / "search.sqlite-wal").write_bytes(b"stale journal")
    assert search_files(_entries(corpus), corpus_bodies(corpus), cache, "zh", workers=1).digests == first.digests
    assert not (cache / "search.sqlite-wal").exists() or (cache / "search.sqlite-wal").read_bytes() != b"stale journal"


def test_build_updates_the_index_on_a_body_only_edit(small: tuple[Path, Path]) -> None:
    corpus, site = small
    assert not Core(site).search("zebrafish")
    edited = corpus / "ICLR2025/llm_nlp/mention.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n一个 zebrafish 实验。\n", encoding="utf-8")
    result = build(corpus, site)
    assert result.rendered == 1  # the build's fast path: only the note's own page
    assert (site / "search/t/delta.bin").is_file()
    core = Core(site)
    assert titles(site, core.search("zebrafish")) == ["mention"]
    assert titles(site, core.search("知识蒸馏"))[:2] == ["kd", "mention"]


def test_a_body_edit_the_store_cannot_take_makes_the_whole_index(small: tuple[Path, Path]) -> None:
    """A store written by an older papernotes (no prefixes beside its base), or none at all: the edit is
    still found, by an index made whole (it used to be left out while the pages were updated)."""
    import sqlite3

    corpus, site = small
    store = corpus / ".papernotes" / STORE_NAME
    with sqlite3.connect(store) as db:
        db.execute("DELETE FROM meta WHERE key = 'prefixes'")
    db.close()
    for word, cut in (("zebrafish", False), ("okapi", True)):
        if cut:
            store.unlink()
        edited = corpus / "ICLR2025/llm_nlp/mention.md"
        edited.write_text(edited.read_text(encoding="utf-8") + f"\n一个 {word} 实验。\n", encoding="utf-8")
        assert build(corpus, site).errors == []
        assert titles(site, Core(site).search(word)) == ["mention"], word
    assert updatable(corpus / ".papernotes")


def test_an_update_the_store_refuses_is_made_whole_by_the_next_build(small: tuple[Path, Path], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``search_update`` finding no index for an edited note (after the build checked it could): the edit stays
    pending and the next build, with nothing else changed, makes the whole index."""
    from papernotes.site import search

    corpus, site = small
    edited = corpus / "ICLR2025/llm_nlp/mention.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n一个 zebrafish 实验。\n", encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(search, "search_update", lambda *args, **kwargs: None)
        assert build(corpus, site).rendered == 1  # its page
    assert not Core(site).search("zebrafish") and not updatable(corpus / ".papernotes")
    assert build(corpus, site).errors == []
    assert titles(site, Core(site).search("zebrafish")) == ["mention"]
    assert updatable(corpus / ".papernotes")


def test_stale_shards_are_removed_when_the_index_shrinks(tmp_path: Path) -> None:
    notes = {f"ICLR2025/llm_nlp/n{i:03d}.md": dict(title=f"Note {i} " + " ".join(f"w{i}x{j}" for j in range(60)),
                                                venue="ICLR2025", domain="llm_nlp") for i in range(120)}
    corpus = write_corpus(tmp_path / "c", notes)
    site = tmp_path / "site"
    from papernotes.site.search import encode

    old = encode.SHARD_BYTES
    encode.SHARD_BYTES = 2_000
    try:
        build(corpus, site)
        before = sorted(p.name for p in (site / "search/t").iterdir())
        for path in sorted((corpus / "ICLR2025/llm_nlp").glob("*.md"))[10:]:
            path.unlink()
        build(corpus, site)
    finally:
        encode.SHARD_BYTES = old
    after = sorted(p.name for p in (site / "search/t").iterdir())
    manifest = json.loads((site / "search/index.json").read_text(encoding="utf-8"))
    assert len(after) < len(before) and len(after) == len(manifest["shards"])
    assert manifest["docs"] == 10
    assert len(list((site / "search/d").iterdir())) == -(-10 // manifest["chunk"])


def test_untrusted_text_stays_data(tmp_path: Path) -> None:
    evil = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    corpus = write_corpus(tmp_path / "c", {"ICLR2025/llm_nlp/evil.md": dict(
        title=f"Evil {evil}", venue="ICLR2025", domain="llm_nlp", body=f"## 一句话总结\n{evil} 总结\n\n正文 {evil}\n")})
    files = search_files(_entries(corpus), corpus_bodies(corpus), None, "zh", workers=1)
    row = json.loads(files["search/d/0.json"])[0]
    assert row[0] == f"Evil {evil}" and evil in row[1]  # kept as text: the page renders it with text nodes


def test_results_carry_formulas_apart_from_the_text_they_are_in(tmp_path: Path) -> None:
    """A summary with formulas is ``[text, TeX, text, …]``, the same formulas its listing page renders; a cut
    never splits a formula."""
    corpus = write_corpus(tmp_path / "c", {"ICLR2025/llm_nlp/m.md": dict(
        title="Scaling $\\eta$ <b>now</b>", venue="ICLR2025", domain="llm_nlp",
        body="## 一句话总结\nWe set $\\eta_B=\\lambda\\eta_A$ for **all** <i>x</i> & y; costs $5 and $6.\n")})
    files = search_files(_entries(corpus), corpus_bodies(corpus), None, "zh", workers=1)
    title, summary = json.loads(files["search/d/0.json"])[0][:2]
    assert title == ["Scaling ", "\\eta", " <b>now</b>"]
    assert summary == ["We set ", "\\eta_B=\\lambda\\eta_A", " for all <i>x</i> & y; costs $5 and $6."]
    html = 'a <span class="math math-inline">\\(x&lt;y\\)</span> b'
    assert shown(html, "", 6) == ["a ", "x<y", "…"] and shown(html, "", 5) == "a…"
    assert shown("", "plain **text**") == "plain text"


def test_records_kept_in_memory_or_read_back_make_the_same_index(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from papernotes.site.search import index

    corpus = write_corpus(tmp_path / "c")
    kept = search_files(_entries(corpus), corpus_bodies(corpus), tmp_path / "a", "zh", workers=1)
    monkeypatch.setattr(index, "KEEP_NOTES", 0)
    read_back = search_files(_entries(corpus), corpus_bodies(corpus), tmp_path / "b", "zh", workers=1)
    assert kept.digests == read_back.digests


def test_parallel_tokenising_makes_the_same_index(tmp_path: Path, monkeypatch, worker_pids) -> None:  # type: ignore[no-untyped-def]
    from papernotes.site.search import index

    more = {f"ICLR2025/llm_nlp/n{i}.md": dict(title=f"Note {i} on adapters", venue="ICLR2025", domain="llm_nlp",
                                             body=f"## 一句话总结\n第{i}篇：适配器与蒸馏。\n") for i in range(90)}
    corpus = write_corpus(tmp_path / "c", {**NOTES, **more})  # enough notes for several batches per worker
    serial = search_files(_entries(corpus), corpus_bodies(corpus), tmp_path / "a", "zh", workers=1)
    monkeypatch.setattr(index, "PARALLEL_NOTES", 2)
    monkeypatch.setattr(index, "RECYCLE_NOTES", 32)  # 2 batches of 16 notes
    ran_in = worker_pids(index, "_tokenise_range", meet=2)
    # a corpus whose records stay in memory: this process and a forked one take tasks in turn
    together = search_files(_entries(corpus), corpus_bodies(corpus), tmp_path / "b", "zh", workers=2)
    assert serial.digests == together.digests
    batches = ran_in()
    assert len(batches) > 4 and str(os.getpid()) in batches and len(set(batches)) == 2
    # a larger one (records read back from the store): a pool whose workers are replaced every RECYCLE_NOTES
    # notes (what one copied of the parent goes with it)
    monkeypatch.setattr(index, "KEEP_NOTES", 0)
    (tmp_path / "worker-pids").unlink()
    pooled = search_files(_entries(corpus), corpus_bodies(corpus), tmp_path / "c", "zh", workers=2)
    assert serial.digests == pooled.digests
    batches = ran_in()
    assert len(batches) > 4 and str(os.getpid()) not in batches
    assert len(set(batches)) >= len(batches) / 2


def test_a_tokenising_child_that_fails_dies_or_cannot_be_had(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """What a forked tokeniser raised is raised by the build's process (no store renamed into place); the
    tasks of a child that died without a word, or could not be forked, are done by the build's process.
    No child is left behind."""
    from papernotes.site.search import index

    more = {f"ICLR2025/llm_nlp/n{i}.md": dict(title=f"Note {i}", venue="ICLR2025", domain="llm_nlp",
                                             body=f"## 一句话总结\n第{i}篇。\n") for i in range(60)}
    corpus = write_corpus(tmp_path / "c", {**NOTES, **more})
    monkeypatch.setattr(index, "PARALLEL_NOTES", 2)
    parent, bodies = os.getpid(), corpus_bodies(corpus)
    serial = search_files(_entries(corpus), bodies, tmp_path / "serial", "zh", workers=1)
    noting_fork = os.fork

    tried = tmp_path / "the child read"

    def failing(note):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            tried.touch()
            raise OSError(f"cannot read {note.path}")
        deadline = time.monotonic() + 60  # the child takes a task: a busy machine may start it late
        while not tried.exists():
            assert time.monotonic() < deadline, "the forked tokeniser took no task in 60 s"
            time.sleep(0.005)
        return bodies(note)

    def dying(note):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            os._exit(3)
        time.sleep(0.01)
        return bodies(note)

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)  # no process to spare: this process does every task
    assert search_files(_entries(corpus), bodies, tmp_path / "alone", "zh", workers=2).digests == serial.digests
    monkeypatch.setattr(os, "fork", noting_fork)

    forked = watch_forks(monkeypatch)
    with pytest.raises(OSError, match="cannot read"):
        search_files(_entries(corpus), failing, tmp_path / "failing", "zh", workers=2)
    assert not (tmp_path / "failing" / "search.sqlite").exists()
    assert not (tmp_path / "failing" / "search.sqlite.new").exists()
    assert search_files(_entries(corpus), dying, tmp_path / "dying", "zh", workers=2).digests == serial.digests
    assert len(forked) == 2
    for pid in forked:  # every child reaped
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_a_body_only_update_needs_only_the_edited_entries(tmp_path: Path) -> None:
    from papernotes.site.search import search_update

    corpus = write_corpus(tmp_path / "corpus")
    cache = tmp_path / "cache"
    first = search_files(_entries(corpus), corpus_bodies(corpus), cache, "zh", workers=1)
    edited = corpus / "ICLR2025/llm_nlp/lora.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n更多 zebrafish 内容。\n", encoding="utf-8")
    entries = _entries(corpus)
    mine = [e for e in entries if e.note.path == "ICLR2025/llm_nlp/lora.md"]

    def paths_row() -> tuple[int, bytes]:  # the documents' paths: written by a whole index, not by an update
        with sqlite3.connect(cache / "search.sqlite") as db:
            return db.execute("SELECT rowid, value FROM meta WHERE key = 'last-paths'").fetchone()

    def changes() -> dict[int, str]:  # the last index's record keys, as they differ from the base's
        with sqlite3.connect(cache / "search.sqlite") as db:
            return marshal.loads(db.execute("SELECT value FROM meta WHERE key = 'last'").fetchone()[0])[0]

    before = paths_row()
    assert changes() == {}
    updated = search_update(mine, corpus_bodies(corpus), cache, "zh", workers=1)
    assert updated is not None and paths_row() == before
    assert len(changes()) == 1  # not every document's key again
    write, remove = updated.changes(first.digests)
    assert write == ["search/index.json", "search/t/delta.bin"] and remove == []
    assert "zebrafish" in decode_shard(updated["search/t/delta.bin"])
    assert updated["search/d/0.json"] == first["search/d/0.json"]  # unchanged files come from the store
    other = corpus / "NeurIPS2024/llm_nlp/rag.md"
    other.write_text(other.read_text(encoding="utf-8") + "\n更多 okapi 内容。\n", encoding="utf-8")
    entries = _entries(corpus)
    updated = search_update([e for e in entries if e.note.path == "NeurIPS2024/llm_nlp/rag.md"], corpus_bodies(corpus),
                            cache, "zh", workers=1)
    assert updated is not None and len(changes()) == 2
    assert {"zebrafish", "okapi"} <= set(decode_shard(updated["search/t/delta.bin"]))
    again = search_files(entries, corpus_bodies(corpus), cache, "zh", workers=1)
    assert again.digests == updated.digests  # the same index as a full pass over every entry
    ghost = [e for e in _entries(write_corpus(tmp_path / "other", {"X2025/llm_nlp/ghost.md": dict(
        title="Ghost", venue="ICLR2025", domain="llm_nlp")}))]
    assert search_update(ghost, corpus_bodies(corpus), cache, "zh") is None  # a note the index never had
    assert search_update(mine, corpus_bodies(corpus), tmp_path / "empty", "zh") is None
    with sqlite3.connect(cache / "search.sqlite") as db:  # a store that lost the documents' paths
        db.execute("DELETE FROM meta WHERE key = 'last-paths'")
    assert search_update(mine, corpus_bodies(corpus), cache, "zh") is None  # the build makes the whole index


def test_a_document_is_found_by_its_whole_path() -> None:
    from papernotes.site.search.store import document_index

    paths = "\0ICLR2025/a/b.md\0ICLR2025/xa/b.md\0ICLR2025/a/b.md.md\0"
    assert [document_index(paths, p) for p in ("ICLR2025/a/b.md", "ICLR2025/xa/b.md", "ICLR2025/a/b.md.md")] == [0, 1, 2]
    assert document_index(paths, "a/b.md") is None and document_index(paths, "ICLR2025/a") is None


def test_a_duplicates_row_links_the_other_notes_of_its_paper(tmp_path: Path) -> None:
    """A result shown once for its paper links its other notes from its own row (no other file fetched)."""
    notes = {f"ICLR2025/llm_nlp/n{i}.md": dict(title=f"Note number {i}", venue="ICLR2025", domain="llm_nlp")
             for i in range(10)}
    notes["ICML2025/llm_nlp/twin.md"] = dict(title="Note number 3", venue="ICML2025", domain="llm_nlp")
    corpus = write_corpus(tmp_path / "c", notes)
    files = search_files(_entries(corpus), corpus_bodies(corpus), None, "zh", workers=1)
    manifest = json.loads(files["search/index.json"])
    chunk = manifest["chunk"]
    rows = [row for k in range(0, manifest["docs"], chunk) for row in json.loads(files[f"search/d/{k // chunk}.json"])]
    [group] = manifest["dups"]
    first, second = group
    assert rows[first][3] == [[second, rows[second][2]]] and rows[second][3] == [[first, rows[first][2]]]
    assert sorted(rows[d][2].split("/")[0] for d in group) == ["ICLR2025", "ICML2025"]
    assert all(len(row) == 3 for i, row in enumerate(rows) if i not in group)


LARGE_RANKING = """
function largeRanking(n, dups) {
  // one term on every document, one on three of them: the query "every few" matches three documents
  // in full, so the other n - 3 follow as missing one word, each part more than 4 x HEAD long
  var every = new Int32Array(n), impacts = new Uint8Array(n + 3);
  for (var i = 0; i < n; i++) { every[i] = i; impacts[i] = 1 + (i * 37) % 200; }
  impacts[n] = 9; impacts[n + 1] = 9; impacts[n + 2] = 250;
  var shard = { terms: ["every", "few"], index: { every: 0, few: 1 }, starts: new Int32Array([0, n, n + 3]),
                docs: new Int32Array(Array.prototype.slice.call(every).concat([3, 1200, 1999])), impacts: impacts };
  var ix = new S.Index({ docs: n, impact: [0.05, 64], dead: [], cells: [[0, 0, 0, n]], dups: dups, venues: [["V", "V", 2025]],
                         domains: [["d", "d"]], synonyms: [] });
  ix.shards = { 0: shard };
  return ix;
}
function pages(n, dups, eager) {
  var ix = largeRanking(n, JSON.parse(dups)), q = S.parseQuery("every few"), where = function () { return [0]; };
  if (eager === 2) ix.warm();  // warming leaves the index as it was
  var r = ix.rankAll([q], where);
  if (eager === 1) r.order(r.docs.length);
  var d = ix.dedupe(r.docs, r.scores, eager === 1 ? null : r.order, r.full), out = [];
  for (var k = 0; k < d.length; k += 10) out = out.concat(d.slice(k, k + 10));
  return JSON.stringify({ length: d.length, complete: d.complete, full: r.full, hits: out });
}
"""


def test_a_large_ranking_is_put_in_order_as_far_as_its_pages_need(tmp_path: Path) -> None:
    """Past 4 × HEAD candidates a part of the ranking is first ordered only as far as its best HEAD:
    page by page, the results, their duplicates and counts are those of the ranking put in order at once."""
    core = Core()
    core.ctx.eval(LARGE_RANKING)
    dups = [[5, 1800], [7, 8, 1999], [3, 1500]]  # across the first HEAD and the rest; one with a full match
    lazy, eager, warmed = (json.loads(core.ctx.get("pages")(2000, json.dumps(dups), mode)) for mode in (0, 1, 2))
    assert lazy == eager == warmed
    hits = lazy["hits"]
    assert lazy["full"] == 3 and lazy["length"] == 2000 - 4 and lazy["complete"] == 3  # 4 notes of papers shown
    assert [h["doc"] for h in hits[:3]] == [1999, 3, 1200]  # the full matches first, best first
    keys = [(-round(h["score"] * 1e6), h["doc"]) for h in hits[3:]]
    assert keys == sorted(keys) and len({h["doc"] for h in hits}) == len(hits)  # then the rest, in order
    shown = {h["doc"]: h["also"] for h in hits}
    for group in dups:  # a paper once, its other notes listed with it
        [leader] = [d for d in group if d in shown]
        assert sorted(shown[leader]) == sorted(set(group) - {leader})


def test_the_shards_of_a_words_next_letter_are_named_ahead() -> None:
    """While the query ends in a two-letter word, the shards a three-letter prefix of it can need."""
    core = Core()

    def ahead(firsts: list[str], query: str) -> list[int]:
        return json.loads(core.ctx.get("ahead")(json.dumps(firsts), query))

    firsts = ["a", "da", "dia", "dis", "dit", "e"]
    assert ahead(firsts, "knowledge di") == [1, 2, 3, 4]  # "di" is in "da"'s shard, "di…" up to "dit"'s
    assert ahead(firsts, "Knowledge DI") == [1, 2, 3, 4] and ahead(firsts, "dé") == [1]
    assert ahead([*firsts[:5], "div", "e"], "knowledge di") == []  # more than PREFIX_SHARDS + 1: none
    for query in ("knowledge dis", "knowledge d", "12", "知识 模", "di ", ""):
        assert ahead(firsts, query) == [], query
