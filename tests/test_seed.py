"""The seed page (../shared/seed): a corpus holding its 64 papers renders it line by line.

The seed is the rendered text of the reference's ICML2026 × 优化/理论 page. This
test writes one note per seed paper (title and one-line summary taken from the
seed at run time, math turned back into ``$…$``), the other venues' counts as
filler notes, and the topics that make the seed's 🔥 line, then compares the
built page's text with the seed. Skipped when ../shared is absent.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SHARED, write_note
from papernotes.site.build import build
from sitecheck import page_lines

SEED = SHARED / "seed" / "000_d162a9862290b5ef.txt"
pytestmark = pytest.mark.skipif(not SEED.is_file(), reason="../shared/seed is not available")

TOPICS = {  # seed title prefix -> topics (the seed's 🔥 line is derived from these)
    "Convex Basins": ["对抗鲁棒"],
    "Delayed Momentum Aggregation": ["联邦学习", "对抗鲁棒"],
    "Distribution-Free Uncertainty": ["Agent"],
    "Enhancing LLM Training": ["LLM"],
    "HO-SFL": ["联邦学习"],
    "Learning Locally, Revising Globally": ["联邦学习"],
    "Memory-Efficient LLM Pretraining": ["LLM"],
    "On the Interaction of Batch Noise": ["压缩/编码"],
    "PathWise": ["Agent"],
    "Sign Lock-In": ["压缩/编码"],
}


def seed_papers(lines: list[str]) -> list[tuple[str, str]]:
    papers = []
    for line in lines[5:]:
        # "Title: summary" — titles contain ": " too, so split at the last ": " before a CJK-rich summary
        idx = [m.start() for m in re.finditer(r": ", line)]
        cut = next((i for i in reversed(idx) if re.search(r"[\u4e00-\u9fff]", line[i:])
                    and not re.search(r"[\u4e00-\u9fff]", line[:i].split("：")[-1] if "：" not in line[:i] else "")), None)
        if cut is None:
            cut = line.index("：") if "：" in line else idx[0]
            papers.append((line[:cut], line[cut + 1:]))
        else:
            papers.append((line[:cut], line[cut + 2:]))
    return papers


def test_seed_page_is_reproduced_line_by_line(tmp_path: Path) -> None:
    seed = [line for line in SEED.read_text(encoding="utf-8").splitlines() if line.strip()]
    papers = seed_papers(seed)
    assert len(papers) == 64
    corpus = tmp_path / "corpus"
    for i, (title, summary) in enumerate(papers):
        topics = next((t for prefix, t in TOPICS.items() if title.startswith(prefix)), [])
        write_note(corpus, f"ICML2026/optimization/p{i:03d}.md", id=f"seed-{i}", title=title,
                   venue="ICML2026", domain="optimization", topics=topics, summary=summary)
    for venue, count in re.findall(r"(\w+\d{4}) \((\d+)\)", seed[3]):
        for j in range(int(count)):
            write_note(corpus, f"{venue}/optimization/n{j:03d}.md", id=f"{venue}-{j}", title=f"Paper {j}",
                       venue=venue, domain="optimization", topics=[], summary="一句话。")
    site = tmp_path / "site"
    result = build(corpus, site)
    assert result.errors == []
    html = (site / "ICML2026/optimization/index.html").read_text(encoding="utf-8")
    assert "<title>ICML2026 优化/理论论文解读" in html
    assert page_lines(html, "article") == seed[1:]
