"""Synthetic corpus generator for scale benchmarks and tests.

Stage: none (a developer tool, not part of the package).
In: a note count, a seed and, when present, the reference corpus
(``../shared/corpus/paper-notes/docs``) for *statistics only*: per note its
length, ``###`` headings, inline and display formulas, tables and table rows.
Out: ``OUT/{VENUE}/{domain}/{slug}.md`` notes in the papernotes format (YAML
front matter + ``##`` sections, see ``examples/``) and ``OUT/papernotes.toml``.

No text comes from the corpus: prose is assembled from the word lists below,
Chinese-language notes mixed with English terms (like the reference) and about
15 % English notes; formulas come from a small TeX grammar whose output KaTeX
renders; tables hold made-up methods and numbers; arXiv ids are unique. Every
note gets the canonical sections, a rating section (and half of them
front-matter ratings), keywords, authors and links.
Domains are the slugs of ``papernotes/data/domains.toml``; venues are eleven
ids of known series (ICML2025, NeurIPS2025, ...).

Same seed and same statistics source (corpus or built-in defaults, see
``--stats``) give byte-identical output. ``--pdfs`` also puts a generated paper
(fpdf2, two pages, a vector Figure 1 and Figure 2 with captions, each note's
own title, boxes and colours) beside every note, ``foo.md`` ↔ ``foo.pdf``.

Usage: python benchmarks/synth.py OUT --notes 10000 [--seed 1] [--stats auto|corpus|defaults] [--pdfs]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DOCS = REPO.parent / "shared" / "corpus" / "paper-notes" / "docs"
DOMAINS_TOML = REPO / "src" / "papernotes" / "data" / "domains.toml"

#: Venue ids and their share of notes (newer, bigger venues hold more).
VENUES: dict[str, float] = {
    "NeurIPS2025": 18, "ICLR2026": 15, "ACL2025": 12, "AAAI2026": 10, "CVPR2026": 9, "ICML2025": 9,
    "CVPR2025": 6, "EMNLP2025": 6, "ICCV2025": 6, "ECCV2024": 5, "arxiv2026": 4,
}
ENGLISH_SHARE = 0.15


class FastRandom(random.Random):
    """``choice`` from one ``random()`` call: ~3x faster than the stdlib's, still deterministic."""

    def choice(self, seq):  # type: ignore[no-untyped-def, override]
        return seq[int(self.random() * len(seq))]


# ------------------------------------------------------------------ shapes

@dataclass(frozen=True, slots=True)
class Shape:
    """How big one note is; sampled per synthetic note."""

    chars: int
    """Characters of the whole file."""
    h3: int
    inline: int
    """``$…$`` formulas."""
    display: int
    """``$$…$$`` formulas."""
    tables: int
    rows: int
    """Table rows in all tables, header and separator lines included."""


_DISPLAY_RE = re.compile(r"\$\$.*?\$\$", re.DOTALL)
_INLINE_RE = re.compile(r"(?<![\\$])\$[^$\n]+?\$")
_SEP_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$", re.MULTILINE)
_ROW_RE = re.compile(r"^\s*\|.*\|\s*$", re.MULTILINE)


def shape_of(text: str) -> Shape:
    """The size statistics of one Markdown note (no text is kept)."""
    display = len(_DISPLAY_RE.findall(text))
    inline = len(_INLINE_RE.findall(_DISPLAY_RE.sub("", text)))
    return Shape(len(text), text.count("\n### "), inline, display,
                 len(_SEP_RE.findall(text)), len(_ROW_RE.findall(text)))


def corpus_shapes(docs: Path) -> list[Shape]:
    """Shapes of the notes of a ``{VENUE}/{domain}/{slug}.md`` tree (index pages left out)."""
    return [shape_of(p.read_text(encoding="utf-8")) for p in sorted(docs.glob("*/*/*.md"))
            if p.name != "index.md"]


def default_shapes(rng: random.Random, n: int = 2000) -> list[Shape]:
    """Built-in distribution, fitted by hand to the reference corpus (median 3,800 chars,
    ~9 inline and 0.2 display formulas, 2 tables of ~6 rows, 5-6 ``###`` per note)."""
    out = []
    for _ in range(n):
        chars = int(min(10_000, max(1_200, rng.lognormvariate(8.2, 0.3))))
        tables = rng.choices((0, 1, 2, 3, 4, 5), (6, 30, 36, 18, 7, 3))[0]
        inline = int(rng.expovariate(1 / 9)) if rng.random() < 0.85 else 0
        display = rng.choices((0, 1, 2, 3), (86, 9, 3, 2))[0]
        out.append(Shape(chars, rng.randint(3, 8), inline, display, tables,
                         sum(rng.randint(5, 9) for _ in range(tables))))
    return out


# ------------------------------------------------------------------ vocabulary (made up for this file)

ZH_NOUNS = ("模型 训练 数据 方法 框架 损失 梯度 参数 特征 表示 生成 检索 蒸馏 量化 剪枝 注意力 编码器 解码器 扩散 采样 "
            "策略 奖励 偏好 样本 标签 分布 噪声 鲁棒性 泛化 效率 延迟 吞吐 显存 上下文 长序列 视觉 语言 图像 视频 点云 "
            "场景 目标 先验 约束 正则项 优化器 复杂度 下界 上界 基线 消融 指标 精度 召回率 任务 数据集 基准 智能体 规划 工具 "
            "记忆 反馈 指令 提示 专家 路由 缓存 词元 语料 教师 学生 判别器 投影 嵌入 子空间 流形 轨迹 状态 动作 价值函数 "
            "置信度 不确定性 校准 对比学习 自监督 掩码 重建 分割 检测 跟踪 配准 渲染 几何 拓扑 图结构 节点 边权 时序 频域").split()
ZH_VERBS = ("提出 引入 设计 构建 利用 结合 估计 约束 优化 建模 压缩 对齐 融合 分解 预测 检索 蒸馏 更新 筛选 校正 "
            "缓解 降低 提升 加速 稳定 证明 刻画 推导 验证 揭示").split()
ZH_ADJS = ("自适应 动态 分层 局部 全局 跨域 零样本 少样本 轻量 统一 可扩展 稀疏 稠密 高效 鲁棒 离线 在线 多尺度 "
           "端到端 可解释 细粒度 粗粒度 条件 隐式 显式 逐层 逐元素").split()
ZH_LINKS = ("通过 利用 基于 针对 为了 在此基础上 同时 进一步 相比之下 因此 此外 然而 具体而言 实验表明 结果显示").split()
ZH_ENDS = ("的问题 的瓶颈 的性能 的稳定性 的开销 的误差 的偏差 的收敛速度 的泛化能力 的计算量").split()
EN_TERMS = ("LoRA Transformer KV-cache MoE RLHF DPO CLIP ViT U-Net Adam SGD GRPO RAG CoT VLM LLM diffusion "
            "token attention softmax logits ReLU backbone encoder decoder prompt benchmark baseline pipeline").split()
EN_NOUNS = ("model method framework loss gradient parameter feature representation policy reward preference sample "
            "label distribution noise robustness generalization efficiency latency throughput memory context sequence "
            "image video scene prior constraint regularizer optimizer complexity bound baseline ablation metric accuracy "
            "task dataset benchmark agent planner tool feedback instruction prompt expert router cache token corpus "
            "teacher student projection embedding subspace manifold trajectory state action uncertainty calibration").split()
EN_VERBS = ("improves reduces aligns compresses estimates decomposes predicts retrieves distills updates filters "
            "stabilizes accelerates bounds characterizes reveals outperforms matches preserves scales").split()
EN_ADJS = ("adaptive dynamic hierarchical local global cross-domain zero-shot few-shot lightweight unified scalable "
           "sparse dense efficient robust offline online multi-scale end-to-end interpretable fine-grained implicit "
           "explicit layer-wise").split()
EN_PREPS = ("of", "with", "for", "across", "under")
EN_LINKS = ("Moreover,", "In addition,", "However,", "Specifically,", "As a result,", "In contrast,", "Notably,",
            "Empirically,", "In practice,", "Theoretically,")
#: Keywords; several match topic rules of the shipped taxonomy so topics get assigned.
KEYWORDS = ("LLM diffusion transformer federated quantization pruning distillation reasoning RLHF DPO agent RAG "
            "chain-of-thought in-context-learning MoE LoRA contrastive GNN NeRF scaling-law continual-learning "
            "benchmark hallucination safety uncertainty optimal-transport bandit convergence 量化 剪枝 蒸馏 对齐 "
            "推理 智能体 联邦 扩散模型 大语言模型 多模态 检索增强 长上下文 强化学习 鲁棒性 可解释性 自监督").split()
SURNAMES = ("Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo Lin He Gao Luo Kim Park Smith Garcia "
            "Müller Rossi Tanaka Singh Cohen Novak").split()
GIVEN = "wei jun hao yu xin lei ming jie yang tian chen rui kai bo lin ning feng qi".split()
GIVEN_EN = "Alex Maria David Sara Tom Nina Omar Lena Ivan Emma Raj Yuki Paul Chloe Marco Anna".split()
TITLE_HEADS = ("Towards Rethinking Learning Scaling Revisiting Unifying Beyond Understanding Taming Boosting "
               "Efficient Robust Provable Adaptive Sparse Hierarchical Self-Supervised Generalizable").split()
TITLE_TAILS = ("via Spectral Regularization|with Mixture of Experts|for Long-Context Inference|under Distribution Shift|"
               "through Preference Optimization|at Scale|without Labels|in the Wild|with Provable Guarantees|"
               "for Vision-Language Models|by Token Pruning|from Human Feedback|for Federated Clients|"
               "via Diffusion Priors|with Retrieval Augmentation|in Large Language Models").split("|")
BENCHMARKS = ("ImageNet COCO ADE20K GSM8K MATH MMLU HumanEval MT-Bench AlpacaEval ScanNet nuScenes KITTI "
              "LibriSpeech CIFAR-100 WikiText-103 LongBench").split()

SECTION_NAMES = {
    "zh": ("一句话总结", "研究背景与动机", "方法详解", "实验关键数据", "亮点与洞察", "局限性 / 可改进方向",
           "相关工作与启发", "评分"),
    "en": ("TL;DR", "Background and motivation", "Method", "Experiments", "Highlights", "Limitations",
           "Related work", "Ratings"),
}
H3_NAMES = {"zh": ("整体框架", "关键设计", "损失函数", "训练策略", "理论分析", "主实验", "消融实验", "效率分析"),
            "en": ("Overview", "Key design", "Loss function", "Training recipe", "Analysis", "Main results",
                   "Ablations", "Efficiency")}
RATING_LABELS = {"zh": ("新颖性", "实验充分度", "写作质量", "价值"),
                 "en": ("Novelty", "Experiments", "Writing", "Value")}
RATING_KEYS = ("novelty", "experiments", "writing", "value")


# ------------------------------------------------------------------ text

SYMBOLS = (r"\theta", r"\alpha", r"\beta", r"\lambda", r"\mathbf{x}", r"\mathbf{W}", "x", "y", "z", r"\eta",
           r"\sigma", r"\mu", r"\epsilon", r"\gamma", "h", r"\phi", r"\pi", "q", "k", "v")
ORDERS = ("n", r"n\log n", "d^2", r"1/\sqrt{T}", "T^{2/3}")
SUBS = ("t", "i", "k", r"\text{KL}", r"\theta", "0", "t+1", r"\max", r"\text{ref}", "j")


def _sym(rng: random.Random) -> str:
    """A symbol, half the time with a braced subscript (KaTeX rejects ``x_\\max``)."""
    s = rng.choice(SYMBOLS)
    return f"{s}_{{{rng.choice(SUBS)}}}" if rng.random() < 0.5 else s


_INLINE_FORMS = (
    "{a}", "{a} = {b} + {c}", r"\mathcal{{O}}({o})", r"\frac{{{a}}}{{{b}}}", r"{a} \in \mathbb{{R}}^{{d}}",
    r"\sum_{{i=1}}^{{N}} {a}", r"\|{a} - {b}\|_2^2", r"\mathbb{{E}}_{{{a} \sim p}}[\log {b}]", "k={n}",
    r"10^{{-{e}}}", r"{a} \leftarrow {a} - \eta \nabla {b}", r"\times {n}.{e}",
)


def tex_inline(rng: random.Random) -> str:
    return rng.choice(_INLINE_FORMS).format(a=_sym(rng), b=_sym(rng), c=_sym(rng), o=rng.choice(ORDERS),
                                            n=rng.randint(2, 64), e=rng.randint(2, 6))


def tex_display(rng: random.Random) -> str:
    a, b, c = _sym(rng), _sym(rng), _sym(rng)
    bare = rng.choice(SYMBOLS)  # gets subscripts below: no double subscript
    return rng.choice((
        (r"\mathcal{L} = \mathbb{E}_{(x,y)\sim\mathcal{D}}\left[-\log p_\theta(y\mid x)\right]"
         rf" + \lambda\,\|{a}\|_2^2"),
        rf"{a} = \operatorname{{softmax}}\!\left(\frac{{QK^\top}}{{\sqrt{{d}}}}\right)V + {b}",
        rf"\min_{{\theta}} \max_{{{a}}} \; \sum_{{i=1}}^{{N}} \ell\big(f_\theta(x_i), y_i\big) - \gamma\,{b}",
        "\\begin{aligned}\n" + rf"{bare}_{{t+1}} &= {bare}_t - \eta\, \frac{{m_t}}{{\sqrt{{v_t}} + \epsilon}} \\"
        + "\n" + rf"m_t &= \beta_1 m_{{t-1}} + (1-\beta_1)\, \nabla {c}" + "\n\\end{aligned}",
        (r"\mathcal{L}_{\text{DPO}} = -\log \sigma\!\left(\beta \log \frac{\pi_\theta(y_w)}{\pi_{\text{ref}}(y_w)}"
         r" - \beta \log \frac{\pi_\theta(y_l)}{\pi_{\text{ref}}(y_l)}\right)"),
    ))


class Writer:
    """Pseudo-text from the word lists: a pool of sentences drawn once, then reused."""

    def __init__(self, rng: random.Random, pool: int = 3000) -> None:
        self.rng = rng
        self.zh = [self._zh_sentence() for _ in range(pool)]
        self.en = [self._en_sentence() for _ in range(pool)]
        self.sentence_chars = {"zh": sum(map(len, self.zh)) / pool, "en": sum(map(len, self.en)) / pool}
        self.math_rate = 0.0
        """Probability that a sentence carries an inline formula; set per note."""

    def _zh_clause(self) -> str:
        r = self.rng
        term = f" {r.choice(EN_TERMS)} " if r.random() < 0.5 else ""
        return (f"{r.choice(ZH_VERBS)}{r.choice(ZH_ADJS)}{r.choice(ZH_NOUNS)}{term}"
                f"{r.choice(ZH_VERBS)}{r.choice(ZH_NOUNS)}{r.choice(ZH_ENDS)}")

    def _zh_sentence(self) -> str:
        r = self.rng
        clauses = "，".join(self._zh_clause() for _ in range(r.randint(1, 3)))
        return f"{r.choice(ZH_LINKS)}{clauses}。".replace("  ", " ")

    def _en_sentence(self) -> str:
        r = self.rng
        words = [r.choice(EN_LINKS), "the", r.choice(EN_ADJS), r.choice(EN_NOUNS), r.choice(EN_VERBS), "the",
                 r.choice(EN_NOUNS)]
        for _ in range(r.randint(0, 3)):
            words += [r.choice(EN_PREPS), r.choice(EN_ADJS), r.choice(EN_NOUNS + EN_TERMS)]
        return " ".join(words) + "."

    def text(self, lang: str, chars: float) -> str:
        """Sentences up to about ``chars`` characters; each carries ``$…$`` with probability ``math_rate``."""
        pool = self.zh if lang == "zh" else self.en
        r = self.rng
        out: list[str] = []
        size = 0.0
        while True:
            s = r.choice(pool)
            if out and size + len(s) / 2 > chars:  # stop nearest to the target length
                break
            if self.math_rate and r.random() < self.math_rate:
                s = f"{s[:-1]}，即 ${tex_inline(r)}${s[-1]}" if lang == "zh" else f"{s[:-1]}, i.e. ${tex_inline(r)}$."
            out.append(s)
            size += len(s)
        return ("" if lang == "zh" else " ").join(out)

    def phrase(self, lang: str) -> str:
        r = self.rng
        if lang == "zh":
            return f"{r.choice(ZH_ADJS)}{r.choice(ZH_NOUNS)}"
        return f"{r.choice(EN_ADJS)} {r.choice(EN_NOUNS)}"


# ------------------------------------------------------------------ notes

def _method_name(rng: random.Random) -> str:
    letters = "".join(rng.choice("ABCDEFGHKLMNPRSTVX") for _ in range(rng.randint(2, 5)))
    return letters + rng.choice(("", "-Net", "++", "-X", "Former"))


def title_of(rng: random.Random) -> str:
    name = _method_name(rng)
    head = rng.choice(TITLE_HEADS)
    topic = f"{rng.choice(EN_ADJS).title()} {rng.choice(EN_NOUNS).title()} {rng.choice(EN_NOUNS).title()}"
    return f"{name}: {head} {topic} {rng.choice(TITLE_TAILS)}"


def slug_of(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:80].rstrip("_")


SCORES = tuple(f"{x / 10:.1f}" for x in range(200, 960))


def _table(rng: random.Random, rows: int, lang: str) -> str:
    cols = rng.randint(3, 5)
    sets = rng.sample(BENCHMARKS, cols - 1)
    head = ("方法" if lang == "zh" else "Method", *sets)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * cols]
    for i in range(max(1, rows - 2)):
        name = "本文" if (lang == "zh" and i == rows - 3) else _method_name(rng)
        lines.append("| " + " | ".join((name, *(rng.choice(SCORES) for _ in sets))) + " |")
    return "\n".join(lines)


def _bullets(w: Writer, lang: str, n: int, chars: int, numbered: bool = False, bold: bool = False) -> str:
    lines = []
    for i in range(n):
        mark = f"{i + 1}." if numbered else "-"
        lead = f"**{w.phrase(lang)}**{'：' if lang == 'zh' else ': '}" if bold else ""
        lines.append(f"{mark} {lead}{w.text(lang, max(20, chars // n))}")
    return "\n".join(lines)


def note_text(w: Writer, shape: Shape, venue: str, domain: str, title: str, lang: str, serial: int = 0) -> str:
    """The Markdown of one note: front matter plus the eight canonical sections. ``serial`` makes
    the arXiv id unique (``papernotes check`` reports two notes with one id as a duplicate paper)."""
    r = w.rng
    names, h3 = SECTION_NAMES[lang], H3_NAMES[lang]
    # Prose budget: the file's size less front matter, headings, tables and ratings. English
    # needs ~1.6x the characters of Chinese for the same content.
    budget = max(600, shape.chars - 600 - 38 * shape.rows) * (0.95 if lang == "zh" else 1.5)
    w.math_rate = min(1.0, 1.2 * shape.inline * w.sentence_chars[lang] / budget)  # not every sentence is prose
    scores = [r.randint(2, 5) for _ in RATING_KEYS]

    front = [
        "---",
        f"title: {json.dumps(title, ensure_ascii=False)}",
        f"venue: {venue}",
        f"domain: {domain}",
        "keywords: [" + ", ".join(json.dumps(k, ensure_ascii=False) for k in r.sample(KEYWORDS, r.randint(3, 6))) + "]",
        "authors: [" + ", ".join(json.dumps(_author(r), ensure_ascii=False) for _ in range(r.randint(2, 7))) + "]",
    ]
    if r.random() < 0.8:
        links = [f'arxiv: "{r.randint(23, 25)}{r.randint(1, 12):02d}.{serial % 100_000:05d}"']
        if r.random() < 0.5:
            links.append(f'code: "https://github.com/{r.choice(SURNAMES).lower()}/{_method_name(r).lower()}"')
        front.append("links: {" + ", ".join(links) + "}")
    if r.random() < 0.5:
        front.append("ratings: {" + ", ".join(f"{k}: {s}" for k, s in zip(RATING_KEYS, scores, strict=True)) + "}")
    front.append("---")

    body = [f"## {names[0]}", w.text(lang, budget * 0.04),
            f"## {names[1]}", _bullets(w, lang, r.randint(3, 6), int(budget * 0.14), numbered=True, bold=True),
            f"## {names[2]}", f"### {h3[0]}", w.text(lang, budget * 0.08)]
    body += ["$$\n" + tex_display(r) + "\n$$" for _ in range(shape.display)]
    body += [f"### {h3[1]}", _bullets(w, lang, r.randint(3, 4), int(budget * 0.17), numbered=True, bold=True)]
    for name in h3[2:5][:max(0, shape.h3 - 4)]:
        body += [f"### {name}", w.text(lang, budget * 0.04)]
    body += [f"## {names[3]}", f"### {h3[5]}"]
    tables = shape.tables
    rows_left = shape.rows
    for t in range(tables):
        rows = rows_left // (tables - t)
        rows_left -= rows
        body += [_table(r, rows, lang), w.text(lang, budget * 0.03)]
    body += [f"### {h3[6]}", _bullets(w, lang, r.randint(3, 4), int(budget * 0.12), bold=True)]
    body += [f"## {names[4]}", _bullets(w, lang, 3, int(budget * 0.08))]
    body += [f"## {names[5]}", _bullets(w, lang, 3, int(budget * 0.07))]
    colon = "：" if lang == "zh" else ": "
    body += [f"## {names[6]}", "\n".join(f"- **vs {_method_name(r)}**{colon}{w.text(lang, budget * 0.02)}"
                                         for _ in range(3))]
    body += [f"## {names[7]}", "\n".join(f"- {label}: {'⭐' * s} {w.phrase(lang)}"
                                         for label, s in zip(RATING_LABELS[lang], scores, strict=True))]
    return "\n".join(front) + "\n\n" + "\n\n".join(body) + "\n"


def _author(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return f"{rng.choice(GIVEN).title()}{rng.choice(GIVEN)} {rng.choice(SURNAMES)}"
    return f"{rng.choice(GIVEN_EN)} {rng.choice(SURNAMES)}"


def domain_slugs(path: Path = DOMAINS_TOML) -> list[str]:
    with path.open("rb") as handle:
        return [d["slug"] for d in tomllib.load(handle)["domain"]]


def generate(out: Path, notes: int, seed: int = 1, shapes: Sequence[Shape] | None = None, pdfs: bool = False) -> int:
    """Write ``notes`` synthetic notes under ``out`` (``pdfs``: each with a generated paper beside it); returns
    the number of bytes written."""
    rng = FastRandom(seed)
    shapes = list(shapes) if shapes else default_shapes(FastRandom(seed))
    writer = Writer(rng)
    domains = domain_slugs()
    # Zipf-like domain sizes, with the catch-all "others" among the biggest, as in the reference.
    weights = [1 / (i + 1) ** 0.7 for i in range(len(domains))]
    if "others" in domains:
        weights[domains.index("others")] = weights[0]
    venue_ids, venue_weights = list(VENUES), list(VENUES.values())
    out.mkdir(parents=True, exist_ok=True)
    (out / "papernotes.toml").write_text('title = "Synthetic paper notes"\nlanguage = "zh"\n', encoding="utf-8")
    made_dirs: set[tuple[str, str]] = set()
    taken: set[str] = set()
    written = 0
    picks = zip(rng.choices(venue_ids, venue_weights, k=notes), rng.choices(domains, weights, k=notes), strict=True)
    for serial, (venue, domain) in enumerate(picks):
        title = title_of(rng)
        slug = slug_of(title)
        key = f"{venue}/{domain}/{slug}"
        n = 2
        while key in taken:
            key = f"{venue}/{domain}/{slug}_{n}"
            n += 1
        taken.add(key)
        lang = "en" if rng.random() < ENGLISH_SHARE else "zh"
        data = note_text(writer, rng.choice(shapes), venue, domain, title, lang, serial).encode("utf-8")
        if (venue, domain) not in made_dirs:
            (out / venue / domain).mkdir(parents=True, exist_ok=True)
            made_dirs.add((venue, domain))
        fd = os.open(out / f"{key}.md", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)  # 2x faster than open()
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        written += len(data)
        if pdfs:
            paper = paper_pdf(random.Random(f"{seed}:{serial}"), title)  # its own stream: notes stay as they are
            (out / f"{key}.pdf").write_bytes(paper)
            written += len(paper)
    return written


def paper_pdf(rng: random.Random, title: str) -> bytes:
    """A small two-page paper: title, prose, a vector Figure 1 (boxes and arrows) and a Figure 2 (bars)."""
    from fpdf import FPDF  # a benchmark's extra (fpdf2), only for --pdfs

    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(False)
    pdf.set_font("helvetica", size=10)
    words = " ".join(rng.choice(_PROSE) for _ in range(60))
    for page in (1, 2):
        pdf.add_page()
        pdf.set_xy(72, 60)
        if page == 1:
            pdf.set_font("helvetica", "B", 16)
            pdf.multi_cell(468, 20, title.encode("latin-1", "replace").decode("latin-1"))
            pdf.set_font("helvetica", size=10)
        pdf.set_xy(72, pdf.get_y() + 10)
        pdf.multi_cell(468, 13, words)
        top = pdf.get_y() + 20
        pdf.set_fill_color(rng.randrange(60, 220), rng.randrange(60, 220), rng.randrange(60, 220))
        if page == 1:
            boxes = rng.randrange(2, 5)
            width = (468 - 20 * (boxes - 1)) / boxes
            for i in range(boxes):
                pdf.rect(72 + i * (width + 20), top, width, rng.randrange(60, 120), style="DF")
                if i:
                    pdf.line(72 + i * (width + 20) - 20, top + 30, 72 + i * (width + 20), top + 30)
            caption = "Figure 1: Overview of the method. " + " ".join(rng.choice(_PROSE) for _ in range(8))
        else:
            for i in range(8):
                height = rng.randrange(20, 120)
                pdf.rect(92 + i * 52, top + 120 - height, 36, height, style="DF")
            caption = "Figure 2 Results grow with scale. " + " ".join(rng.choice(_PROSE) for _ in range(6))
        pdf.set_xy(72, top + 140)
        pdf.multi_cell(468, 13, caption)
        pdf.set_xy(72, pdf.get_y() + 14)
        pdf.multi_cell(468, 13, words)
    return bytes(pdf.output())


_PROSE = ("model", "training", "data", "we", "show", "that", "the", "results", "improve", "with", "scale",
          "attention", "layers", "loss", "gradient", "benchmark", "accuracy", "method", "baseline", "tokens")


def load_shapes(stats: str, docs: Path) -> tuple[list[Shape] | None, str]:
    """Shapes per ``--stats``: the corpus's when wanted and present, else ``None`` (built-in defaults)."""
    if stats != "defaults" and docs.is_dir():
        shapes = corpus_shapes(docs)
        if shapes:
            return shapes, f"statistics of {len(shapes)} notes in {docs}"
    if stats == "corpus":
        raise SystemExit(f"--stats corpus: no notes under {docs}")
    return None, "built-in default statistics"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="output corpus directory (created; must be empty or absent)")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stats", choices=("auto", "corpus", "defaults"), default="auto",
                        help="note-size statistics: the reference corpus when present (auto), or built-in defaults")
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="reference corpus for --stats")
    parser.add_argument("--pdfs", action="store_true", help="a generated PDF with two figures beside every note")
    args = parser.parse_args(argv)
    if args.out.exists() and any(os.scandir(args.out)):
        parser.error(f"{args.out} is not empty")
    started = time.perf_counter()
    shapes, source = load_shapes(args.stats, args.docs)
    size = generate(args.out, args.notes, args.seed, shapes, args.pdfs)
    print(f"{args.notes} notes, {size / 1e6:.1f} MB in {args.out} ({source}, seed {args.seed}) "
          f"in {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
