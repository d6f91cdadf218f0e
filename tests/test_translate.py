"""``papernotes translate``: the pure parts, then the stage over real HTTP against tests/llm_server.py."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from papernotes.check.run import CheckOptions, check_corpus
from papernotes.cli import app
from papernotes.corpus.frontmatter import read
from papernotes.corpus.parse import parse_note
from papernotes.intake import translate_guard as guard
from papernotes.intake import translate_parts as parts
from papernotes.intake.translate import translate
from papernotes.site.build import build

sys.path.insert(0, str(Path(__file__).parent))
from llm_server import LLMServer, Reply, ok  # noqa: E402
from test_draft import llm_settings  # noqa: E402

runner = CliRunner()

NOTE_A = r"""---
title: "Toy Momentum: $O(1/t)$ Rates"
venue: ICML2026
domain: optimization
lang: zh
topics: [optimizer]
keywords: [动量, 收敛]
links: {arxiv: "2401.00001", code: "https://github.com/example/a"}
authors: [Ada Example]
---

## 一句话总结
在玩具问题上证明 $m_t = \beta m_{t-1} + g_t$ 的动量以 $O(1/\sqrt{k})$ 收敛，误差降到 0.42。

## 研究背景与动机
动量方法很常见，详见 [项目页](https://example.org/a)。

## 方法详解
更新规则：

$$
x_{t+1} = x_t - \eta m_t
$$

```python
def step(x, m, g, beta=0.9):
    ## 不是标题
    return x - lr * m
```

## 实验关键数据
| 方法 | 误差 |
| --- | --- |
| SGD | 0.57 |
| Ours | 0.42 |

## 亮点与洞察
调用 `step()` 即可。

## 局限性 / 可改进方向
只在 3 个玩具问题上验证。

## 我的批注
作者自己的一节，含 12.5% 的提升。
"""

NOTE_B = """---
title: "Toy Pruning"
venue: ICML2026
domain: model_compression
lang: zh
summary: 剪掉 50% 的权重而精度只降 1.2 个点。
---

## 研究背景与动机
剪枝可以节省显存。

## 方法详解
按幅值剪枝。
"""

NOTE_EN = """---
title: "Toy Agents"
venue: ICML2026
domain: llm_reasoning
lang: en
---

## TL;DR
Agents that plan with a $k$-step lookahead reach 71.3% success.

## Method
Search over 8 candidate plans.
"""

A = "ICML2026/optimization/toy_momentum.md"
B = "ICML2026/model_compression/toy_pruning.md"
EN = "ICML2026/llm_reasoning/toy_agents.md"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PAPERNOTES_MODEL"):
        monkeypatch.delenv(name, raising=False)


def make_corpus(root: Path, server: LLMServer, **llm: object) -> Path:
    for rel, text in ((A, NOTE_A), (B, NOTE_B), (EN, NOTE_EN)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    stub = root / "ICML2026/optimization/a_stub.md"
    stub.write_text('---\ntitle: "A Stub"\nvenue: ICML2026\ndomain: optimization\nstatus: stub\n---\n', encoding="utf-8")
    settings = llm_settings(server, **llm)
    lines = ['title = "t"', 'language = "zh"', "[llm]", *(f"{k} = {json.dumps(v)}" for k, v in settings.items())]
    (root / "papernotes.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def note_of(body: dict[str, Any]) -> dict[str, Any]:
    """The note a request asks to translate (the JSON object of its first user message)."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return json.loads(user[user.index("{"):user.rindex("}") + 1])


def translation_json(body: dict[str, Any], lang: str = "en", change: Any = None) -> str:
    """A faithful fake translation: every text kept, marked as translated; ``change(text)`` then alters texts."""
    data = note_of(body)
    fix = change or (lambda text: text)
    out: dict[str, Any] = {"title": fix(f"{data['title']} ({lang})")}
    if "summary" in data:
        out["summary"] = fix(f"{data['summary']} ({lang})")
    if "keywords" in data:
        out["keywords"] = [f"{k} ({lang})" for k in data["keywords"]]
    out["sections"] = [{"heading": f"{s['heading']} ({lang})", "text": fix(f"{s['text']}\n\n(translated to {lang})")}
                       for s in data["sections"]]
    return json.dumps(out, ensure_ascii=False)


def faithful(body: dict[str, Any]) -> Reply:
    lang = "zh" if "翻译成中文" in json.dumps(body, ensure_ascii=False) else "en"
    return ok(translation_json(body, lang))


def is_repair(body: dict[str, Any]) -> bool:
    return len(body["messages"]) > 2


def check_codes(root: Path) -> list[str]:
    found, _ = check_corpus(root, CheckOptions(formulas=False, classifier=False))
    return [str(d) for d in found if d.code.startswith("translation")]


# ---------------------------------------------------------------- pure parts

def test_split_body_keeps_code_blocks_whole() -> None:
    _, body, _ = read(NOTE_A)
    preamble, sections = parts.split_body(body)
    assert preamble == ""
    assert [(p.key, p.heading) for p in sections] == [
        ("summary", "一句话总结"), ("background", "研究背景与动机"), ("method", "方法详解"),
        ("experiments", "实验关键数据"), ("highlights", "亮点与洞察"), ("limitations", "局限性 / 可改进方向"),
        ("", "我的批注")]
    assert "    ## 不是标题" in sections[2].text and sections[2].text.endswith("```")


def test_headings_in_a_reply_are_demoted_outside_code() -> None:
    text = "## Sneaky\n```\n## kept in code\n```\n# Big"
    assert parts.demote_headings(text) == "### Sneaky\n```\n## kept in code\n```\n### Big"


def test_validate_says_what_is_wrong() -> None:
    front, body, _ = read(NOTE_B)
    source = parts.payload(front, "Toy Pruning", body)
    assert list(source) == ["title", "summary", "sections"]
    _, errors = parts.validate({"title": "", "sections": [{"text": "x"}]}, source, "en")
    assert errors == ["`title` is missing or empty", "`summary` is missing or empty",
                      '`sections` must be a list of 2 objects {"heading", "text"}, one per section of the input, '
                      "in its order"]
    done, errors = parts.validate({"title": "T", "summary": "S", "sections": [{"text": "a"}, {"text": "b"}]},
                                  source, "en")
    assert errors == [] and done is not None
    assert [p.heading for p in done.sections] == ["Background and motivation", "Method"]  # canonical, not the model's


def test_guard_finds_what_a_translation_lost() -> None:
    _, body, _ = read(NOTE_A)
    original = guard.kept(parts.document("T $O(1/t)$", "", (), body))
    assert {"O(1/t)", r"m_t = \beta m_{t-1} + g_t", r"x_{t+1} = x_t - \eta m_t"} <= original.formulas
    assert "step()" in original.code and any(c.startswith("def step") for c in original.code)
    assert original.links == {"https://example.org/a"}
    assert {"0.42", "0.57", "12.5", "3"} <= {d for d, _ in original.numbers} and ("2026", "") not in original.numbers
    lossy = body.replace("$O(1/\\sqrt{k})$", "one over root k").replace("0.57", "0.6").replace("`step()`", "step()")
    lost = guard.missing(original, guard.kept(parts.document("T $O(1/t)$", "", (), lossy)))
    assert lost == ["the formula $O(1/\\sqrt{k})$", "the code `step()`", "the number 0.57"]


def test_a_large_number_may_change_its_scale_word_but_not_its_value() -> None:
    zh = guard.kept("约 120 万样本，提升 2.3 倍。")
    assert guard.missing(zh, guard.kept("About 1.2 million samples, 2.3× better.")) == []
    assert guard.missing(zh, guard.kept("About 1.3 million samples, 2.3× better.")) == ["the number 120"]


# ---------------------------------------------------------------- the stage over HTTP

def test_translates_missing_notes_and_then_nothing(tmp_path: Path) -> None:
    with LLMServer(faithful) as server:
        root = make_corpus(tmp_path / "c", server)
        result = runner.invoke(app, ["translate", str(root), "--to", "en"])
        assert result.exit_code == 0, result.output
        text = " ".join(result.stdout.split())
        assert "2 note(s) translated to en; 0 already translated" in text
        assert ("model test-model: 2 request(s), 0 from cache, 0 retried, 0 repaired; tokens 200 in + 100 out "
                "(cache saved 0); cost $0.2500") in text
        assert len(server.requests) == 2  # the English original and the stub are not sent
        assert not (root / "ICML2026/llm_reasoning/toy_agents.en.md").exists()

        written = (root / "ICML2026/optimization/toy_momentum.en.md").read_text(encoding="utf-8")
        original, _ = parse_note(A, NOTE_A)
        note, problems = parse_note("ICML2026/optimization/toy_momentum.en.md", written)
        assert problems == [] and note is not None and original is not None
        assert note.translation_of is not None and note.translation_of.digest == original.text_digest
        assert note.translation_of.model == "test-model"
        assert (note.lang, note.slug, note.id, note.venue, note.domain) == ("en", "toy_momentum", original.id,
                                                                            "ICML2026", "optimization")
        assert note.title == "Toy Momentum: $O(1/t)$ Rates (en)" and note.keywords == ("动量 (en)", "收敛 (en)")
        assert (note.links, note.authors, note.topics) == (original.links, original.authors, original.topics)
        assert [s.heading for s in note.sections] == [
            "TL;DR", "Background and motivation", "Method", "Experiments", "Highlights", "Limitations", "我的批注 (en)"]
        front, _, _ = read(written)
        assert list(front)[:6] == ["title", "venue", "domain", "lang", "translation_of", "authors"]
        pruned, _ = parse_note("x.en.md", (root / "ICML2026/model_compression/toy_pruning.en.md").read_text())
        assert pruned is not None and pruned.summary == "剪掉 50% 的权重而精度只降 1.2 个点。 (en)"

        assert check_codes(root) == []
        site = build(root, tmp_path / "site", workers=1, use_cache=False)
        assert site.errors == [] and site.notes == 4  # the originals (and the stub) only until the site side lands

        again = translate(root, "en")
        assert (again.translated, again.up_to_date, len(server.requests)) == ((), 2, 2)


def test_a_dropped_formula_is_repaired(tmp_path: Path) -> None:
    def drops_formula(body: dict[str, Any]) -> Reply:
        if is_repair(body) or "Toy Momentum" not in note_of(body)["title"]:
            return faithful(body)
        return ok(translation_json(body, change=lambda t: t.replace(r"$O(1/\sqrt{k})$", "one over root k")))

    with LLMServer(drops_formula) as server:
        root = make_corpus(tmp_path / "c", server)
        result = translate(root, "en")
        assert len(result.translated) == 2 and result.failed == () and result.repaired == 1
        repair = next(r for r in server.requests if is_repair(r.body))
        assert repair.body["messages"][-1]["content"].startswith(
            "Your translation cannot be used:\n- it lost the formula $O(1/\\sqrt{k})$\n")
        assert r"$O(1/\sqrt{k})$" in (root / "ICML2026/optimization/toy_momentum.en.md").read_text(encoding="utf-8")


def test_a_number_dropped_twice_leaves_the_note_untranslated(tmp_path: Path) -> None:
    def drops_number(body: dict[str, Any]) -> Reply:
        if "Toy Pruning" not in note_of(body)["title"]:
            return faithful(body)
        return ok(translation_json(body, change=lambda t: t.replace("1.2", "1.3")))

    with LLMServer(drops_number) as server:
        root = make_corpus(tmp_path / "c", server)
        result = runner.invoke(app, ["translate", str(root), "--to", "en"])
        assert result.exit_code == 1
        text = " ".join(result.output.split())
        assert (f"{B}: error: not translated to en: after one repair request, it lost the number 1.2") in text
        assert "1 note(s) translated to en, 1 left untranslated" in text and "1 repaired" in text
        assert not (root / "ICML2026/model_compression/toy_pruning.en.md").exists()
        server.responder = faithful  # the failed exchange was dropped from the cache: the next run asks again
        again = translate(root, "en")
        assert again.translated == ("ICML2026/model_compression/toy_pruning.en.md",) and len(server.requests) == 4


def test_stale_translations_are_redone_and_hand_made_ones_kept(tmp_path: Path) -> None:
    with LLMServer(faithful) as server:
        root = make_corpus(tmp_path / "c", server)
        translate(root, "en")
        (root / A).write_text(NOTE_A.replace("0.57", "0.58"), encoding="utf-8")
        (root / B).write_text(NOTE_B.replace("domain: model_compression", "domain: model_compression\ntopics: [pruning]"),
                              encoding="utf-8")  # front matter a translation is not made from
        assert check_codes(root) == ["ICML2026/optimization/toy_momentum.en.md:6: warning: translation is stale: "
                                     "toy_momentum.md changed since it was translated"]
        result = runner.invoke(app, ["translate", str(root), "--to", "en"])
        assert result.exit_code == 0, result.output
        assert "1 note(s) translated to en (1 stale one(s) redone); 1 already translated" in " ".join(result.stdout.split())
        assert len(server.requests) == 3 and check_codes(root) == []
        assert "0.58" in (root / "ICML2026/optimization/toy_momentum.en.md").read_text(encoding="utf-8")

        mine = "---\ntitle: Mine\nvenue: ICML2026\ndomain: optimization\n---\n\n## TL;DR\nMy own translation.\n"
        (root / "ICML2026/optimization/toy_momentum.en.md").write_text(mine, encoding="utf-8")
        (root / A).write_text(NOTE_A, encoding="utf-8")
        assert translate(root, "en").translated == ()
        assert (root / "ICML2026/optimization/toy_momentum.en.md").read_text(encoding="utf-8") == mine


def test_english_notes_get_chinese_translations(tmp_path: Path) -> None:
    with LLMServer(faithful) as server:
        root = make_corpus(tmp_path / "c", server)
        result = translate(root, "zh")
        assert result.translated == ("ICML2026/llm_reasoning/toy_agents.zh.md",)
    assert "把这篇笔记翻译成中文" in server.requests[0].body["messages"][1]["content"]
    note, problems = parse_note("ICML2026/llm_reasoning/toy_agents.zh.md",
                                (root / "ICML2026/llm_reasoning/toy_agents.zh.md").read_text(encoding="utf-8"))
    assert problems == [] and note is not None and note.lang == "zh"
    assert [s.heading for s in note.sections] == ["一句话总结", "方法详解"]


def test_an_original_edited_meanwhile_is_not_translated_over(tmp_path: Path) -> None:
    def edits_first(body: dict[str, Any]) -> Reply:
        if "Toy Pruning" in note_of(body)["title"]:
            (root / B).write_text(NOTE_B.replace("按幅值剪枝", "按梯度剪枝"), encoding="utf-8")
        return faithful(body)

    with LLMServer(edits_first) as server:
        root = make_corpus(tmp_path / "c", server)
        result = translate(root, "en")
    assert result.translated == ("ICML2026/optimization/toy_momentum.en.md",)
    assert [str(d) for d in result.diagnostics] == [
        f"{B}: warning: changed while it was being translated; its translation was not written (run again)"]


def test_batch_mode(tmp_path: Path) -> None:
    def drops_formula(body: dict[str, Any]) -> Reply:
        if is_repair(body) or "Toy Momentum" not in note_of(body)["title"]:
            return faithful(body)
        return ok(translation_json(body, change=lambda t: t.replace(r"$O(1/\sqrt{k})$", "one over root k")))

    with LLMServer(drops_formula) as server:
        root = make_corpus(tmp_path / "c", server, batch_poll_seconds=0.01)
        result = runner.invoke(app, ["translate", str(root), "--to", "en", "--batch"])
        assert result.exit_code == 0, result.output
        assert server.requests == [] and len(server.batch_creates) == 2 and len(server.batch_requests) == 3
        text = " ".join(result.stdout.split())
        assert "2 note(s) translated to en" in text
        assert ("model test-model: 3 request(s) (3 by batch in 2 new batch(es), 50% price), 0 from cache, 0 retried, "
                "1 repaired") in text
        assert check_codes(root) == []


def test_kill_9_after_a_reply_loses_nothing(tmp_path: Path) -> None:
    with LLMServer(faithful) as server:
        root = make_corpus(tmp_path / "c", server, concurrency=1)
        marker = tmp_path / "paused"
        env = {**os.environ, "PAPERNOTES_PAUSE_AT": "translate.answered#2", "PAPERNOTES_PAUSE_FILE": str(marker)}
        child = subprocess.Popen([sys.executable, "-m", "papernotes", "translate", str(root), "--to", "en", "-q"],
                                 env=env)
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, f"translate ended (exit {child.returncode}) before the pause point"
            assert time.monotonic() < deadline
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        written = sorted(p.name for p in root.rglob("*.en.md"))
        assert len(written) == 1 and len(server.requests) == 2  # the second reply arrived, its note not written
        assert not [p for p in root.rglob("*") if p.name.startswith(".") and p.suffix == ".tmp"]
        result = translate(root, "en")
        assert len(result.translated) == 1 and result.usage is not None and result.usage.cache_hits == 1
        assert len(server.requests) == 2  # nothing asked twice
        assert check_codes(root) == []
