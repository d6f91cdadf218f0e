"""What `draft` drafts, and a redraft: sections replaced in place, edited ones kept, none doubled, `lang` as written.

Real PDFs from ``tests/pdfgen.py``; the openai engine over real HTTP against ``tests/llm_server.py``.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from llm_server import LLMServer  # noqa: E402
from test_draft import LORA, TOT_ZH, llm_settings  # noqa: E402

from papernotes.cli import app  # noqa: E402
from papernotes.corpus.frontmatter import DELETE, dump, read, update  # noqa: E402
from papernotes.corpus.model import SECTIONS  # noqa: E402
from papernotes.corpus.parse import parse_note  # noqa: E402
from papernotes.intake.draft import draft  # noqa: E402
from papernotes.intake.redraft import SKIP_EDITED, language, merge  # noqa: E402

runner = CliRunner()
REL = "ICLR2024/lora.md"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)


def corpus_with(root: Path, notes: dict[str, str], server: LLMServer | None = None, language: str = "zh") -> Path:
    root.mkdir(parents=True)
    config = [f'language = "{language}"']
    if server is not None:
        config += ["[llm]", *(f"{k} = {json.dumps(v)}" for k, v in llm_settings(server).items())]
    (root / "papernotes.toml").write_text("\n".join(config) + "\n")
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def stub(title: str = "LoRA: Low-Rank Adaptation of Large Language Models", abstract: str = LORA,
         body: str = "") -> str:
    return "---\n" + dump({"title": title, "venue": "ICLR2024", "authors": ["Edward J. Hu"], "abstract": abstract,
                           "status": "stub"}) + "---\n" + body  # authors: check warns on a note without


def headings(text: str) -> Counter[str]:
    """Canonical key -> how many ``##`` headings of the note name it."""
    note, _ = parse_note("x.md", text)
    assert note is not None
    return Counter(s.key for s in note.sections if s.key)


def section(text: str, key: str) -> str:
    """The text of the one section ``key`` (zh or en heading)."""
    zh, en, _ = SECTIONS[key]
    m = re.search(rf"^## (?:{re.escape(zh)}|{re.escape(en)})\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m is not None, key
    return m.group(1).strip()


def set_stub(path: Path) -> None:
    path.write_text(update(path.read_text(encoding="utf-8"), {"status": "stub"}), encoding="utf-8")


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, " ".join(result.stdout.split()), result.stderr


# ---------------------------------------------------------------- what needs drafting

@pytest.mark.parametrize("engine", ["extractive", "openai"])
def test_a_new_note_is_drafted_from_the_pdf_beside_it(tmp_path: Path, engine: str) -> None:
    pytest.importorskip("pypdf")
    pytest.importorskip("fpdf")
    import pdfgen

    with LLMServer() as server:
        corpus = corpus_with(tmp_path / "c", {}, server)
        code, out, err = run("new", str(corpus), "--title", "Gutter Networks", "--venue", "ICLR2024",
                             "--domain", "optimization")
        assert code == 0, err
        note = corpus / "ICLR2024/optimization/gutter_networks.md"
        scaffold = note.read_text(encoding="utf-8")
        assert "status" not in read(scaffold)[0] and "abstract" not in read(scaffold)[0]
        pdfgen.sample_paper(note.with_suffix(".pdf"))
        (corpus / REL).write_text(stub("Gutter Networks", abstract=""), encoding="utf-8")  # a stub, no abstract
        pdfgen.sample_paper((corpus / REL).with_suffix(".pdf"))
        code, out, err = run("draft", str(corpus), "--engine", engine)
        assert code == 0, out + err
        assert f"2 note(s) drafted with {engine}" in out
    text = note.read_text(encoding="utf-8")
    front, body, _ = read(text)
    assert front["status"] == "drafted" and front["draft_engine"] == engine
    counts = headings(text)
    assert set(counts.values()) == {1} and set(counts) == set(SECTIONS)  # each in place, none added twice
    if engine == "extractive":  # drafted from the abstract the PDF prints
        assert front["summary"] in pdfgen.ABSTRACT and "| 0.4642 |" in section(text, "experiments")
        assert section(text, "ratings") == "- 新颖性: \n- 实验充分度: \n- 写作质量: \n- 价值:"  # the scaffold's, kept
    else:
        assert pdfgen.ABSTRACT[:60] in server.requests[0].user_text
    assert read((corpus / REL).read_text(encoding="utf-8"))[0]["summary"] == read(text)[0]["summary"]
    code, out, err = run("draft", str(corpus), "--engine", engine)
    assert code == 0 and out == "no note to draft: 2 already drafted (use --force to redraft) (-v lists them)"


def test_a_model_is_not_asked_to_draft_from_a_title_alone(tmp_path: Path) -> None:
    with LLMServer() as server:
        corpus = corpus_with(tmp_path / "c", {REL: stub(abstract="")}, server)
        code, out, err = run("draft", str(corpus))
        assert server.requests == []
    assert code == 1 and "0 note(s) drafted with openai, 1 failed" in out
    assert f"{REL}: error: draft failed, still a stub: no abstract to draft from" in err
    front = read((corpus / REL).read_text(encoding="utf-8"))[0]
    assert front["status"] == "stub" and front["draft_error"].startswith("no abstract to draft from")


def test_every_note_not_drafted_says_why(tmp_path: Path) -> None:
    hand = "---\ntitle: Mine\nvenue: ICLR2024\ndomain: optimization\n---\n## 一句话总结\n我写的。\n"
    corpus = corpus_with(tmp_path / "c", {
        "ICLR2024/a.md": stub(), "ICLR2024/b.md": stub("B paper"), "ICLR2024/hand.md": hand,
        "ICLR2024/hand.en.md": hand.replace("我写的。", "Mine.") + "", "ICLR2024/bad.md": "---\ntitle: [unclosed\n---\n"})
    code, out, _ = run("draft", str(corpus), "--engine", "extractive", "--limit", "1")
    assert code == 0
    assert out == ("1 note(s) drafted with extractive 4 note(s) not drafted: 1 a translation (`papernotes "
                   "translate` makes it from its original); 1 cannot be read (`papernotes check` says why); 1 left "
                   "for a later run (--limit 1); 1 written by hand (set `status: stub` to draft it; sections with "
                   "text are kept) (-v lists them)")
    assert run("draft", str(corpus), "--engine", "extractive")[1].startswith("1 note(s) drafted with extractive ")
    code, out, _ = run("draft", str(corpus), "--engine", "extractive", "-v")
    assert code == 0 and out.split("ICLR2024/") == ["", "a.md: skipped: already drafted (use --force to redraft) ",
                                                   "b.md: skipped: already drafted (use --force to redraft) ",
                                                   "bad.md: skipped: cannot be read (`papernotes check` says why) ",
                                                   "hand.en.md: skipped: a translation (`papernotes translate` makes "
                                                   "it from its original) ",
                                                   "hand.md: skipped: written by hand (set `status: stub` to draft it; "
                                                   "sections with text are kept) no note to draft: 2 already drafted "
                                                   "(use --force to redraft); 1 a translation (`papernotes translate` "
                                                   "makes it from its original); 1 cannot be read (`papernotes check` "
                                                   "says why); 1 written by hand (set `status: stub` to draft it; "
                                                   "sections with text are kept)"]
    assert (corpus / "ICLR2024/hand.md").read_text() == hand
    assert run("draft", str(corpus), "--engine", "extractive", "-q") == (0, "", "")


# ---------------------------------------------------------------- redrafting

def test_a_redraft_replaces_the_sections_and_keeps_what_a_person_wrote(tmp_path: Path) -> None:
    own = "## 我的笔记\n读到第三节时想到的。"
    with LLMServer() as server:
        corpus = corpus_with(tmp_path / "c", {REL: stub(body=f"\n{own}\n")}, server)
        assert draft(corpus, engine="extractive").drafted == (REL,)
        path = corpus / REL
        first = path.read_text(encoding="utf-8")
        assert "摘自摘要" in section(first, "background") and read(first)[0]["draft_digest"].keys() == {
            "summary", "background", "method", "experiments", "highlights", "limitations", "related", "keywords"}
        # a person rewrites one section, then sets the note back to a stub and drafts it with a model
        edited = "我自己重写的方法介绍：LoRA 冻结原权重，只训练低秩矩阵。"
        method = "## 方法详解\n" + section(first, "method")  # the heading too: other sections may say the same
        path.write_text(first.replace(method, "## 方法详解\n" + edited), encoding="utf-8")
        set_stub(path)
        code, out, _ = run("draft", str(corpus), "-v")
        assert code == 0 and "1 note(s) drafted with openai" in out
        assert f"{REL}: kept, edited since the last draft: method" in out
        assert "kept 1 section(s) edited since the last draft in 1 note(s) (--force replaces them)" in out
        second = path.read_text(encoding="utf-8")
        assert set(headings(second).values()) == {1} and set(headings(second)) == set(SECTIONS)
        assert section(second, "method") == edited  # kept where it was
        assert section(second, "background") == "Why LoRA: Low-Rank Adaptation of Large Language Models matters."
        assert "摘自摘要" not in second and second.count(own) == 1
        assert second.index("## 相关工作与启发") < second.index("## 评分") < second.index(own)  # own text last, as it was
        front = read(second)[0]
        assert front["draft_engine"] == "openai" and "method" not in front["draft_digest"]
        # --force replaces the edited section too
        code, out, _ = run("draft", str(corpus), "--force")
        assert code == 0 and "1 note(s) drafted with openai" in out
        third = path.read_text(encoding="utf-8")
        assert set(headings(third).values()) == {1} and section(third, "method").startswith("- How LoRA")
        assert third.count(own) == 1
    code, out, err = run("check", str(corpus), "--no-classifier", "--no-formulas")
    # the check ran on the note (its one error is the domain these notes leave out) and found no doubled section
    assert code == 1 and "1 notes checked: 1 error(s), 0 warning(s)" in out and "missing required field `domain`" in err
    assert "doubled-section" not in err and "appears twice" not in err


def test_a_redraft_replaces_the_keywords_the_last_draft_wrote(tmp_path: Path) -> None:
    with LLMServer() as server:
        source = stub().replace("status: stub", "keywords:\n  - parameter-efficient fine-tuning\nstatus: stub")
        corpus = corpus_with(tmp_path / "c", {REL: source}, server)
        assert draft(corpus, engine="extractive").drafted == (REL,)
        path = corpus / REL
        extractive = read(path.read_text(encoding="utf-8"))[0]["keywords"]
        assert extractive[-1] == "parameter-efficient fine-tuning" and len(extractive) > 2  # the source's, kept
        code, out, _ = run("draft", str(corpus), "--force")
        assert code == 0 and "1 note(s) drafted with openai" in out
        # the extractive keywords replaced, not merged; the source's stays
        assert read(path.read_text(encoding="utf-8"))[0]["keywords"] == [
            "test keyword", "LoRA", "parameter-efficient fine-tuning"]
        # a keyword a person adds since stays too
        path.write_text(update(path.read_text(encoding="utf-8"), {"keywords": ["test keyword", "low-rank adapters"]}),
                        encoding="utf-8")
        code, out, _ = run("draft", str(corpus), "--force")
        assert code == 0
        assert read(path.read_text(encoding="utf-8"))[0]["keywords"] == ["test keyword", "LoRA", "low-rank adapters"]


def test_a_note_doubled_by_an_old_redraft_is_skipped_then_mended_with_force(tmp_path: Path) -> None:
    with LLMServer() as server:
        corpus = corpus_with(tmp_path / "c", {REL: stub()}, server)
        draft(corpus, engine="extractive")
        path = corpus / REL
        old = path.read_text(encoding="utf-8")
        # what a redraft did before the record existed: the new sections above the old ones, no `draft_digest`
        _, old_body, _ = read(old)
        doubled = update(old, {"draft_digest": DELETE, "status": "stub"}, body=old_body + "\n" + old_body)
        path.write_text(doubled, encoding="utf-8")
        assert set(headings(doubled).values()) == {2}
        code, out, err = run("check", str(corpus), "--no-classifier", "--no-formulas")
        lines = doubled.split("\n")
        second = [i + 1 for i, line in enumerate(lines) if line == "## 方法详解"][1]
        assert f"{REL}:{second}: warning: section `## 方法详解` appears twice (first `## 方法详解` at line " in err
        # nothing tells which copy a person wrote: every section is kept, so the note is not drafted
        code, out, _ = run("draft", str(corpus), "-v")
        assert code == 0 and f"{REL}: skipped: {SKIP_EDITED}" in out and server.requests == []
        assert path.read_text(encoding="utf-8") == doubled
        code, out, _ = run("draft", str(corpus), "--force")
        assert code == 0 and "1 note(s) drafted with openai" in out
    mended = path.read_text(encoding="utf-8")
    assert set(headings(mended).values()) == {1} and "摘自摘要" not in mended
    code, out, err = run("check", str(corpus), "--no-classifier", "--no-formulas")
    assert code == 1 and "1 notes checked: 1 error(s), 0 warning(s)" in out, (out, err)  # it warned above
    assert "appears twice" not in err


def test_a_redraft_in_the_other_language_replaces_the_sections_too(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path / "c", {REL: stub()})
    draft(corpus, engine="extractive", lang="en")
    path = corpus / REL
    set_stub(path)
    path.write_text(path.read_text(encoding="utf-8") + "\n## 我的笔记\n一点想法。\n", encoding="utf-8")
    assert draft(corpus, engine="extractive", lang="zh").drafted == (REL,)
    text = path.read_text(encoding="utf-8")
    assert set(headings(text).values()) == {1} and "## 方法详解" in text and "## Method" not in text
    assert text.rstrip().endswith("## 我的笔记\n一点想法。")


def test_a_redraft_is_written_in_the_language_of_the_headings(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path / "c", {})  # a zh site
    assert run("new", str(corpus), "--title", "LoRA", "--venue", "ICLR2024", "--domain", "optimization",
               "--lang", "en")[0] == 0
    path = corpus / "ICLR2024/optimization/lora.md"
    path.write_text(update(path.read_text(encoding="utf-8"), {"abstract": TOT_ZH}), encoding="utf-8")
    draft(corpus, engine="extractive")
    first = path.read_text(encoding="utf-8")
    assert "## Method\n" in first and read(first)[0]["lang"] == "zh"  # English headings over Chinese text
    draft(corpus, engine="extractive", force=True)
    again = path.read_text(encoding="utf-8")
    assert "## Method\n" in again and "## 方法详解" not in again and set(headings(again).values()) == {1}


def test_merge_puts_missing_sections_in_their_place_and_keeps_the_rest() -> None:
    body = ("# My title\n\nIntro of mine.\n\n## 方法详解\nold method\n\n## Extra\nmine\n\n## 局限性\n\n"
            "## 方法详解\nold copy\n\n## 评分\n- 新颖性: 4\n")
    drafted = {key: f"## {key}\nnew {key}" for key in ("summary", "background", "method", "experiments",
                                                        "highlights", "limitations", "related")}
    parts = merge(body, drafted, keep=("limitations",))
    assert [text.split("\n")[0] for _, text in parts] == [
        "# My title", "## summary", "## background", "## method", "## Extra", "## experiments", "## highlights",
        "## 局限性", "## related", "## 评分"]  # the person's section stays after the one it followed
    assert [key for key, _ in parts] == ["", "summary", "background", "method", "", "experiments", "highlights", "",
                                         "related", ""]
    assert parts[0][1] == "# My title\n\nIntro of mine."


# ---------------------------------------------------------------- lang

def test_lang_is_the_language_of_the_text(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path / "c", {REL: stub(), "ICLR2024/tot.md": stub("思维树", TOT_ZH)})
    draft(corpus, engine="extractive")  # a zh site: Chinese headings and marks for both
    english, chinese = (read((corpus / p).read_text(encoding="utf-8"))[0] for p in (REL, "ICLR2024/tot.md"))
    assert "## 方法详解" in (corpus / REL).read_text(encoding="utf-8")
    assert english["lang"] == "en" and chinese["lang"] == "zh"
    assert language("LoRA 冻结预训练权重，只训练低秩分解矩阵，参数量减少 10,000 倍。") == "zh"
    assert language("We propose LoRA (低秩适配), which freezes the weights.") == "en"
    assert language("") == "en"


def test_check_tells_a_doubled_section_from_two_of_a_kind() -> None:
    from papernotes.check.run import doubled_sections

    text = ("---\ntitle: T\nvenue: ICLR2024\ndomain: optimization\n---\n## 方法详解\na\n\n## 实验设置\nb\n\n"
            "## 实验结果\nc\n\n## Method\nd\n\n## 评分 ⭐⭐⭐⭐ (4/5)\ne\n\n## 评分\nf\n")
    note, _ = parse_note("a.md", text)
    assert note is not None
    assert [(d.line, d.code, d.message) for d in doubled_sections(note)] == [
        (15, "doubled-section", "section `## Method` appears twice (first `## 方法详解` at line 6); keep one"),
        (21, "doubled-section", "section `## 评分` appears twice (first `## 评分 ⭐⭐⭐⭐ (4/5)` at line 18); keep one")]
