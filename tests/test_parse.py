"""Parse stage: one note's text to a Note and diagnostics with path:line."""
from __future__ import annotations

from papernotes.corpus.parse import parse_note, split_front_matter
from papernotes.corpus.sections import section_key

GOOD = """---
id: icml2026-demo
title: "Demo: $O(1/t)$ rates"
venue: ICML2026
domain: optimization
keywords: [Adam, 收敛]
links:
  arxiv: "arXiv:2401.01234v2"
  code: owner/repo
authors: [A. Author]
---

## 一句话总结
这是一句话总结，含公式 $x^2$。
它可以折行。

## 研究背景与动机
背景。

## 局限性 / 可改进方向
- 局限。

## 评分
- 新颖性: ⭐⭐⭐⭐ 好
- 实验充分度: ⭐⭐⭐
- 写作质量: 4.5/5
- 价值: ⭐⭐⭐⭐⭐
"""


def test_parses_fields_sections_and_summary() -> None:
    note, problems = parse_note("ICML2026/optimization/demo.md", GOOD)
    assert problems == []
    assert note is not None
    assert (note.id, note.venue, note.domain, note.slug) == ("icml2026-demo", "ICML2026", "optimization", "demo")
    assert note.summary == "这是一句话总结，含公式 $x^2$。 它可以折行。"
    assert note.keywords == ("Adam", "收敛")
    assert note.topics is None  # absent key: taxonomy rules decide
    assert dict(note.links) == {"arxiv": "https://arxiv.org/abs/2401.01234", "code": "https://github.com/owner/repo"}
    assert note.arxiv_id == "2401.01234"
    assert [s.key for s in note.sections] == ["summary", "background", "limitations", "ratings"]
    assert note.sections[2].heading == "局限性 / 可改进方向"
    assert note.sections[0].line == 13
    assert dict(note.ratings) == {"novelty": 4, "experiments": 3, "writing": 4.5, "value": 5}
    assert 'class="math math-inline">\\(O(1/t)\\)</span>' in note.title_html
    assert note.lang == "zh"


def test_english_headings_are_recognised() -> None:
    for heading, key in [("TL;DR", "summary"), ("Background and motivation", "background"), ("Method", "method"),
                         ("Experiments", "experiments"), ("Highlights", "highlights"),
                         ("Limitations", "limitations"), ("Related work", "related"), ("Ratings", "ratings"),
                         ("My own notes", "")]:
        assert section_key(heading) == key


def test_front_matter_summary_wins_and_empty_topics_pin_no_topics() -> None:
    text = "---\ntitle: T\nvenue: ICLR2025\ndomain: llm_nlp\nsummary: Given.\ntopics: []\n---\n## TL;DR\nOther.\n"
    note, problems = parse_note("x.md", text)
    assert note is not None and problems == []
    assert note.summary == "Given."
    assert note.topics == ()


def test_missing_required_field_reports_line() -> None:
    text = "---\ntitle: T\nvenue: ICLR2025\n---\n## TL;DR\nx\n"
    note, problems = parse_note("a/b.md", text)
    assert note is not None and note.domain == ""
    assert [str(p) for p in problems] == ["a/b.md:1: error: missing required field `domain`"]


def test_yaml_error_points_at_the_file_line() -> None:
    text = "---\ntitle: T\nvenue: [ICLR2025\ndomain: x\n---\nbody\n"
    note, problems = parse_note("bad.md", text)
    assert note is None
    assert problems[0].path == "bad.md" and problems[0].line in (3, 4, 5)
    assert "invalid YAML" in problems[0].message


def test_no_front_matter_and_unclosed_front_matter() -> None:
    assert "no YAML front matter" in parse_note("a.md", "# Title\n")[1][0].message
    assert "not closed" in parse_note("a.md", "---\ntitle: x\n")[1][0].message


def test_wrong_types_are_reported_not_crashing() -> None:
    text = "---\ntitle: [a, b]\nvenue: ICLR2025\ndomain: Not A Slug\nkeywords: {a: 1}\nratings: {novelty: 9}\n---\n"
    note, problems = parse_note("w.md", text)
    messages = {(p.line, p.code) for p in problems}
    assert (2, "schema") in messages  # title
    assert (4, "schema") in messages  # domain
    assert (5, "schema") in messages  # keywords
    assert (6, "rating-range") in messages


def test_crlf_and_bom_are_accepted() -> None:
    text = "\ufeff---\r\ntitle: T\r\nvenue: CVPR2024\r\ndomain: 3d_vision\r\n---\r\n## TL;DR\r\nShort.\r\n"
    note, problems = parse_note("c.md", text)
    assert problems == [] and note is not None
    assert note.summary == "Short." and note.lang == "en"


def test_split_front_matter_reports_body_line() -> None:
    raw, body, line = split_front_matter("---\na: 1\n---\nbody\n")
    assert raw == "a: 1\n" and body == "body\n" and line == 4


def test_local_links_are_collected() -> None:
    text = ("---\ntitle: T\nvenue: CVPR2024\ndomain: x\n---\nSee [a](../y/z.md), [b](https://e.org), "
            "[c](#top) and [d](../../ICML2024/).\n")
    note, _ = parse_note("CVPR2024/x/n.md", text)
    assert note is not None and note.local_links == ("../y/z.md", "../../ICML2024/")


def test_latex_style_delimiters_are_math_but_escaped_brackets_are_not() -> None:
    from papernotes.markdown import inline_markdown, normalise_math, title_html

    assert normalise_math(r"rate \(O(1/t)\) and \[x^2\]") == "rate $O(1/t)$ and $$x^2$$"
    assert normalise_math(r"see \[1\] and \[2\]") == r"see \[1\] and \[2\]"
    assert normalise_math(r"code `\(a\)` and 中文 \(注释\)") == r"code `\(a\)` and 中文 \(注释\)"
    assert inline_markdown(r"收敛 \(O(1/t)\)") == '收敛 <span class="math math-inline">\\(O(1/t)\\)</span>'
    assert title_html(r"QAOA\(^2\)") == 'QAOA<span class="math math-inline">\\(^2\\)</span>'


def test_summaries_keep_markdown_but_not_raw_html() -> None:
    from papernotes.markdown import inline_markdown

    out = inline_markdown('**粗体** `code` $x<y$ [arXiv](https://arxiv.org/abs/1) <script>alert(1)</script> '
                          '<img src=x onerror=alert(1)> <a href="javascript:x">j</a>')
    assert "<strong>粗体</strong>" in out and "<code>code</code>" in out
    assert '<span class="math math-inline">\\(x&lt;y\\)</span>' in out
    assert '<a href="https://arxiv.org/abs/1">arXiv</a>' in out
    assert "<script>" not in out and "<img" not in out and '<a href="javascript' not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
