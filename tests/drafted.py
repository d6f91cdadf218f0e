"""A drafted note that puts a phone and the dark scheme to the test, added to a copy of the example corpus.

Its body has a wide results table (thirteen columns: number cells of the shapes the reference notes write,
``0.8 / 50 / 0``, ``61.9 ± 0.3``, ``1,486``, ``+1.2%``, ``7B``, a ``⚠``-marked number, and a column of Chinese
prose) and a raw-HTML table with a caption and attributes a note must not keep (``onfocus``, ``tabindex``,
``role``). Its front matter has a grounding record, so the page shows the grounding line with the numbers not
in the paper highlighted; its summary and body carry ``⚠`` marks. A generated PDF beside it (``pdfgen``) gives
the page the paper's Figure 1. ``drafted_site`` builds it once per run (shared by the browser test modules).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES, once_per_run, write_note
from papernotes.site.build import build
from pdfgen import figures_paper

NOTE = "ICML2024/optimization/wide_results_table"
"""The drafted note's URL path (zh edition; the en edition has it under ``en/``)."""
COLUMNS = ("ImageNet", "IN-V2", "IN-R", "IN-Sketch", "ObjectNet", "Params", "Tokens", "Latency", "Gain",
           "Ratio", "Δ")
ROWS = (
    ("Pre-trained", "预训练模型，直接零样本评测，没有任何微调", "68.3", "61.9 ± 0.3", "77.7", "48.3", "55.4", "7B",
     "1,486", "40ms", "+1.2%", "0.8 / 50 / 0", "63.7 (+0.5)"),
    ("Vanilla FT", "全量微调，所有参数都更新", "81.3", "71.2 ± 0.2", "66.1", "46.1", "53.3", "13B", "13,936",
     "52ms", "-0.4%", "1.0 / 40 / 2", "54.9 (-8.8)"),
    ("LP-FT", "先线性探测再全量微调", "81.7", "72.1 ± 0.4", "73.5", "50.3", "58.2", "7B", "2,048", "41ms",
     "+3.1%", "0.9 / 45 / 1", "60.3 (+2.4)"),
    ("FLYP", "用对比损失微调", "82.2", "73.0 ± 0.1", "71.5", "49.7", "54.8", "70B", "1,042", "95ms", "+2.7%",
     "0.7 / 55 / 0", "59.5 (+0.8)"),
    ("**Ours**", "差分向量均衡，保持嵌入空间的几何结构", "**82.5**", "**73.8 ± 0.2**", "**77.3**", "**52.9**",
     "**56.9**", "7B", "1,156", "38ms", "**+4.9%**", "0.673⚠ / 50 / 0", "**63.2 (+3.7)**"),
)
NUMBER_CELLS = len(ROWS) * len(COLUMNS) + 1
"""Cells that hold only numbers: eleven per row, and the one of the captioned table."""
TABLES = 2
CAPTION = "消融实验：去掉各模块"
"""The raw-HTML table's caption, which names its scrolling box."""


def _table() -> str:
    head = "| 方法 | 说明 | " + " | ".join(COLUMNS) + " |\n"
    rule = "|---|---|" + "---:|" * len(COLUMNS) + "\n"
    return head + rule + "".join("| " + " | ".join(row) + " |\n" for row in ROWS)


BODY = (
    "## 一句话总结\n差分向量均衡在分布外数据上提升 4.9%，整体达到 63.2⚠。\n\n"
    "## 实验结果\n主实验在 ImageNet 及其五个分布偏移版本上进行，平均提升 3.7 个点，最好的一列是 0.673⚠。\n\n"
    + _table() + "\n"
    f'<table onfocus="alert(1)" tabindex="0" role="region" aria-label="injected"><caption>{CAPTION}</caption>'
    "<tr><th>设置</th><th>F1</th></tr><tr><td>去掉均衡项后性能下降明显</td><td>88.1</td></tr></table>\n\n"
    '<div class="table-wrap" role="region" tabindex="0" onfocus="alert(2)">一段伪装成表格框的文字。</div>\n\n'
    "## 局限性\n只在视觉语言模型上验证。\n"
)


def _make(base: Path) -> tuple[Path, Path]:
    corpus, site = base / "corpus", base / "site"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    write_note(corpus, f"{NOTE}.md", title="Wide Results Table: Robust Fine-Tuning", venue="ICML2024",
               domain="optimization", status="drafted", summary="在分布外数据上平均提升 4.9%，达到 63.2⚠。",
               keywords=["robust fine-tuning", "LoRA"],
               grounding={"checked": 40, "unsupported": 2, "pdf_sha256": "c0ffee" * 10 + "abcd",
                          "not_in_paper": ["63.2", "0.673"]},
               body=BODY)
    figures_paper(corpus / f"{NOTE}.pdf")
    result = build(corpus, site)
    assert not result.errors, result.errors
    return corpus, site


def drafted_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(corpus, site) of the examples with the drafted note, built once per run. Read-only."""
    return once_per_run(tmp_path_factory, "drafted", _make)
