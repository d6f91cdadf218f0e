"""Draft stage, reading for a prompt: what of a paper goes into the drafting requests (pure functions).

In: a ``PaperText`` and the model's context size. Out: a ``Reading``: the
whole paper in one request when it fits, else the chunks of a map-reduce over
its sections (each chunk one map request that fits) and the introduction the
reduce request gets besides the facts. Text is laid out as ``## heading [p.
N]`` blocks with ``[p. N]`` where a paragraph starts on a new page, table rows
one per line, so the model can cite pages and copy numbers as printed. A
short "Figures and tables" block lists the captions with their pages (in the
full text, and beside the introduction of a map-reduce), so the note can point
at them: every caption the reader found, those of figures and tables it found
the box of and those it only read as a caption paragraph.

The prompt names the title, authors and abstract itself, so the paper's front
matter (title block, byline, abstract) is not repeated: with an abstract known,
the text starts at the first heading; and byline paragraphs (e-mails,
affiliations, "Equal contribution" footnotes: ``papernotes.intake.parts.is_byline``)
are left out wherever they stand. Exponents and footnote marks reach the model
as the reader keeps them (``10²⁰``, ``⁵ We used``).

Token counts are estimated, not measured (no tokenizer download): a CJK
character counts as one token and any three other characters as one, which
overestimates English (about four characters a token) on purpose.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from papernotes.intake.paper import PaperText, Section
from papernotes.intake.paper.vocab import caption_label
from papernotes.intake.parts import is_byline
from papernotes.text import WIDE

_WIDE = re.compile(f"[{WIDE}]")
_INTRO = re.compile(r"introduction|引言|简介|绪论|概述", re.I)
MIN_CHUNK_TOKENS = 512
"""Smallest map chunk, whatever the context: below it a map request is mostly prompt."""
CAPTION_CHARS = 240
"""A caption in the figures block is cut after this many characters: the label and what it shows are enough."""


def estimate_tokens(text: str) -> int:
    """A conservative token count: wide (CJK) characters one each, any three others one."""
    wide = len(_WIDE.findall(text))
    return wide + -(-(len(text) - wide) // 3)


def reply_reserve(context_tokens: int) -> int:
    """Room kept for the model's reply: a quarter of the context, at most 8,192 tokens."""
    return min(8192, context_tokens // 4)


def section_text(section: Section) -> str:
    lines = [f"## {section.heading or 'Title, authors and abstract'} [p. {section.page}]"]
    page = section.page
    for paragraph in section.paragraphs:
        if is_byline(paragraph.text):
            continue
        lines.append(f"[p. {paragraph.page}] {paragraph.text}" if paragraph.page != page else paragraph.text)
        page = paragraph.page
    return "\n\n".join(lines)


def captions(paper: PaperText) -> list[tuple[int, str]]:
    """``(page, caption)`` of every figure and table the reader found: those with a box (``paper.figures``,
    ``paper.tables``) and, for a label none of them has, the caption paragraph the text holds."""
    found = {f.label: (f.page, f.caption if f.caption.startswith(f.label) else f"{f.label}: {f.caption}")
             for f in (*paper.figures, *paper.tables)}
    for _, paragraph in paper.paragraphs():
        label = caption_label(paragraph.text) if "\n" not in paragraph.text else None
        if label is not None and label[2] not in found:
            found[label[2]] = (paragraph.page, paragraph.text)
    order = {"figure": 0, "table": 1}
    return sorted(found.values(), key=lambda item: (item[0], order.get(item[1].split()[0].lower(), 2), item[1]))


def figures_text(paper: PaperText) -> str:
    """``## Figures and tables`` with one ``[p. N] caption`` line each, or ``""`` when the paper has none found."""
    lines = []
    for page, caption in captions(paper):
        cut = caption if len(caption) <= CAPTION_CHARS else caption[:CAPTION_CHARS].rsplit(" ", 1)[0] + " …"
        lines.append(f"- [p. {page}] {cut}")
    return "## Figures and tables\n\n" + "\n".join(lines) if lines else ""


def full_text(paper: PaperText, appendix: bool = True, front: bool = False) -> str:
    """The paper as prompt text: its sections, then the figures block; the front matter (title block, byline,
    abstract) only with ``front`` (the prompt has no abstract of its own to give)."""
    sections = (*paper.sections, *(paper.appendix if appendix else ()))
    parts = [section_text(s) for s in sections if (s.paragraphs or s.heading) and (front or s.level > 0 or s.heading)]
    figures = figures_text(paper)
    return "\n\n".join([*parts, figures] if figures else parts)


def introduction(paper: PaperText) -> str:
    """The introduction section (by title, else the first numbered section), as prompt text."""
    found = next((s for s in paper.sections if _INTRO.search(s.title)), None)
    found = found or next((s for s in paper.sections if s.level >= 1), None)
    return section_text(found) if found is not None else ""


def abstract_of(paper: PaperText) -> str:
    """The abstract as printed on the first page (with or without an "Abstract" heading), or ``""``."""
    if paper.abstract:
        return paper.abstract
    front = " ".join(p.text for s in paper.sections if s.level == 0 for p in s.paragraphs)
    m = re.search(r"\b(?:Abstract|ABSTRACT)\b[\s.:—-]*(.+)|摘\s*要[\s:：]*(.+)", front, re.S)
    return " ".join((m.group(1) or m.group(2)).split()) if m else ""


def fit(text: str, tokens: int) -> str:
    """``text`` cut at a line end so it stays within ``tokens`` (whole when it fits)."""
    if estimate_tokens(text) <= tokens:
        return text
    out: list[str] = []
    used = 0
    for line in text.split("\n"):
        cost = estimate_tokens(line) + 1
        if used + cost > tokens:
            break
        out.append(line)
        used += cost
    return "\n".join(out)


@dataclass(frozen=True, slots=True)
class Chunk:
    """One map request's share of the paper: whole sections where they fit, else parts of one."""

    label: str
    """The headings it covers, e.g. ``3 Experiments – 3.2 Ablations``."""
    text: str


def _units(paper: PaperText, budget: int, front: bool = False) -> list[tuple[str, str]]:
    """(heading, text) per section (the front matter only with ``front``); one over ``budget`` split at paragraph
    ends."""
    out: list[tuple[str, str]] = []
    for section in (*paper.sections, *paper.appendix):
        if not front and section.level == 0 and not section.heading:
            continue
        text = section_text(section)
        name = section.heading or "Front matter"
        if estimate_tokens(text) <= budget:
            out.append((name, text))
            continue
        head, *paragraphs = text.split("\n\n")
        piece, part = head, 1
        room = max(1, budget - estimate_tokens(head) - 16)
        for paragraph in (p for para in paragraphs for p in _pieces(para, room)):
            candidate = f"{piece}\n\n{paragraph}"
            if estimate_tokens(candidate) > budget and piece != head:
                out.append((f"{name} (part {part})", piece))
                piece, part = f"{head} (continued)\n\n{paragraph}", part + 1
            else:
                piece = candidate
        out.append((f"{name} (part {part})" if part > 1 else name, piece))
    return out


def _pieces(paragraph: str, budget: int) -> list[str]:
    """A paragraph in pieces of at most ``budget`` tokens: whole, else by lines (table rows), else by characters."""
    if estimate_tokens(paragraph) <= budget:
        return [paragraph]
    out: list[str] = []
    for line in paragraph.split("\n"):
        # a character is at most one token, so ``budget`` characters always fit
        for part in (line[i:i + budget] for i in range(0, len(line), budget)) if estimate_tokens(line) > budget else [line]:
            if out and estimate_tokens(f"{out[-1]}\n{part}") <= budget:
                out[-1] = f"{out[-1]}\n{part}"
            else:
                out.append(part)
    return out


def chunks(paper: PaperText, budget: int, front: bool = False) -> list[Chunk]:
    """Consecutive sections packed into chunks of at most ``budget`` estimated tokens."""
    out: list[Chunk] = []
    names: list[str] = []
    texts: list[str] = []
    used = 0
    for name, text in _units(paper, budget, front):
        cost = estimate_tokens(text) + 1
        if texts and used + cost > budget:
            out.append(Chunk(_label(names), "\n\n".join(texts)))
            names, texts, used = [], [], 0
        names.append(name)
        texts.append(text)
        used += cost
    if texts:
        out.append(Chunk(_label(names), "\n\n".join(texts)))
    return out


def _label(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{names[0]} – {names[-1]}"


@dataclass(frozen=True, slots=True)
class Reading:
    """How a paper goes to the model."""

    mode: Literal["abstract", "full", "map"]
    """``abstract``: no readable paper; ``full``: one request; ``map``: map-reduce over ``chunks``."""
    text: str = ""
    """``full``: the paper's text (the appendix left out when only that makes it fit)."""
    chunks: tuple[Chunk, ...] = ()
    introduction: str = ""
    """``map``: the introduction, which the reduce request gets besides the facts."""


def plan(paper: PaperText | None, context_tokens: int, draft_overhead: int, map_overhead: int,
         front: bool = False) -> Reading:
    """``full`` when the paper fits one request beside the prompt (``*_overhead`` tokens) and the reply, else ``map``
    (``front``: the front matter goes too, when the prompt has no abstract of its own)."""
    if paper is None:
        return Reading("abstract")
    budget = context_tokens - reply_reserve(context_tokens) - draft_overhead
    for appendix in (True, False):
        text = full_text(paper, appendix, front)
        if estimate_tokens(text) <= budget:
            return Reading("full", text=text)
    map_budget = max(MIN_CHUNK_TOKENS, context_tokens - reply_reserve(context_tokens) - map_overhead)
    share = max(MIN_CHUNK_TOKENS, budget // 4)  # the introduction and the figures block together
    figures = fit(figures_text(paper), share // 3)
    intro = fit(introduction(paper), share - estimate_tokens(figures) - 1 if figures else share)
    return Reading("map", chunks=tuple(chunks(paper, map_budget, front)),
                   introduction=f"{intro}\n\n{figures}" if figures else intro)
