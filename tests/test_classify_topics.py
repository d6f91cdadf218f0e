"""Topics by whole phrases: the taxonomy's topic rules against hand-judged labels of real notes.

``tests/data/topic_labels.toml`` holds, for 110 notes of the reference corpus, the topics that apply, judged
by reading each note (only paths and labels are kept, never the notes' text). The notes are read in place
from ``../shared/corpus/paper-notes/docs`` (or ``PAPERNOTES_REFERENCE_DOCS``); without it those tests skip.
The generated cases below hold the rules' whole-term matching everywhere.
"""
from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from papernotes.classify.rules import note_topics, topic_hits
from papernotes.corpus.frontmatter import render
from papernotes.corpus.parse import parse_note
from papernotes.migrate.convert import convert_note
from papernotes.taxonomy import load_taxonomy

DOCS = Path(os.environ.get("PAPERNOTES_REFERENCE_DOCS") or Path(__file__).parents[2] / "shared/corpus/paper-notes/docs")
LABELS = Path(__file__).parent / "data" / "topic_labels.toml"
PRECISION_MIN = 0.9


def _note(title: str, keywords: tuple[str, ...] = (), summary: str = ""):  # type: ignore[no-untyped-def]
    front = {"title": title, "venue": "ICML2026", "keywords": list(keywords), "summary": summary}
    note, _ = parse_note("ICML2026/n.md", render(front) + "\n")
    assert note is not None
    return note


@pytest.mark.parametrize(("title", "summary", "absent"), [
    ("Attention Is All You Need", "Transformer 完全基于注意力机制，用正弦位置编码注入顺序信息。", "compression"),
    ("VITS: End-to-End Text-to-Speech", "adversarial training of a generator and a discriminator", "adversarial_robustness"),
    ("VITS", "用生成对抗网络的对抗训练提升语音自然度", "adversarial_robustness"),
    ("Deep Residual Learning for Image Recognition", "残差连接让 152 层网络在 ImageNet 数据集上取得最低错误率", "benchmark"),
    ("Curl and girl", "", "reinforcement_learning"),
    ("MapGCLR", "改善在线矢量化 HD 地图构建", "quantization"),
    ("A Study", "量化任务间的关联并分析", "quantization"),
    ("Causal attention in decoders", "因果注意力掩码", "causal_inference"),
])
def test_a_rule_never_matches_inside_another_term(title: str, summary: str, absent: str) -> None:
    assert absent not in topic_hits(_note(title, summary=summary), load_taxonomy())


def test_whole_terms_still_match_where_they_stand() -> None:
    taxonomy = load_taxonomy()
    found = topic_hits(_note("Byzantine-robust Federated Learning for LLMs", ("模型量化", "Chain-of-Thought"),
                             "对抗攻击下的鲁棒训练；位置编码不变"), taxonomy)
    assert set(found) >= {"federated_learning", "adversarial_robustness", "llm", "quantization",
                          "chain_of_thought", "transformer"}
    assert found["transformer"] == ("位置编码",)  # the whole term, not 编码 inside it
    benchmark = topic_hits(_note("MMBench: a benchmark for vision-language models", ("benchmark",)), taxonomy)
    assert benchmark["benchmark"] == ("benchmark",)


def _labelled() -> list[tuple[str, set[str]]]:
    data = tomllib.loads(LABELS.read_text(encoding="utf-8"))
    return [(entry["path"], set(entry["topics"])) for entry in data["note"]]


@pytest.mark.skipif(not DOCS.is_dir(), reason=f"reference snapshot not found at {DOCS} (set PAPERNOTES_REFERENCE_DOCS)")
def test_topic_precision_on_hand_labelled_reference_notes() -> None:
    labelled = _labelled()
    assert len(labelled) >= 100
    taxonomy = load_taxonomy()
    given = right = 0
    wrong: list[str] = []
    for path, truth in labelled:
        assert set(truth) <= set(taxonomy.topics), path
        front, body, _ = convert_note(path, (DOCS / path).read_text(encoding="utf-8"))
        note, _ = parse_note(path, render(front) + "\n" + body)
        assert note is not None and note.topics is None, path  # the rules decide, not a topics: key
        topics = {t.slug for t in note_topics(note, taxonomy)}
        given += len(topics)
        right += len(topics & truth)
        wrong += [f"{path}: {t}" for t in sorted(topics - truth)]
    assert given >= 150  # the rules do give topics: precision over a handful would prove nothing
    assert right / given >= PRECISION_MIN, f"precision {right}/{given}; wrong:\n" + "\n".join(wrong)
