"""Draft stage, the paper's parts: the sentences an offline note quotes from the paper itself.

In: a ``PaperText``. Out: ``Quote`` records — sentences with the page they
start on and the heading of the section they come from — for each part of a
note: the introduction's problem and gap (``background``), the method
section's opening (``method_opening``), the contribution list
(``contributions``; else the sentences that claim something, ``claims``), the limitations section or the conclusion's caveats
(``limitations``) and the related-work section's opening (``related``).

Every sentence goes through ``note_prose`` first: a note quotes prose, so a
sentence with an e-mail, a URL, an affiliation or a footnote's text, a section
number run into it (``1 INTRODUCTION``), an equation's fragments or a table's
cells is left out, and footnote marks (``word⁴``, ``∗Core``) are taken off.
Which headings and which cue words count is data (``[parts]`` of
``papernotes/data/extractive.toml``).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from papernotes.intake.extractive import split_sentences
from papernotes.intake.paper.cleanup import FOOTNOTE_SYMBOLS, NUMBER, SUPERSCRIPTS
from papernotes.intake.paper.model import PaperText, Section
from papernotes.intake.words import DATA

_PATTERNS = {key: re.compile(value, re.I) for key, value in DATA["parts"].items()}
MIN_CHARS, MAX_CHARS = 25, 450
"""A quoted sentence's length: shorter ones are fragments (a label, "Contributions:"), longer ones run-ons."""
_MARK = re.compile(rf"(?<=[^\W\d_]{{2}})[{SUPERSCRIPTS}]+(?![\w-])|[{SUPERSCRIPTS}]+\s*(?=[^\W\d_])|\s?[{FOOTNOTE_SYMBOLS}]+(?=[\s.,;:)]|$)"
                   rf"|(?<![^\s(])[{FOOTNOTE_SYMBOLS}]+\s*")
"""A footnote mark on a word (``heads⁴``, ``⁵We``, ``Vaswani∗``, ``†Corresponding``); an exponent after a digit
(``10²⁰``) or a letter (``d²``) is not one, nor a superscript inside a name (``R²-Guard``)."""
_HEADING = re.compile(r"(?<![\w.])(?:\d{1,2}|[IVX]{1,4})\.?\s+[A-Z]{2,}(?:\s+[A-Z]{2,})*\s+[A-Z][a-z]"
                      r"|^\d{1,2}(?:\.\d{1,2})+\s+[A-Z]")
"""A section number run into the text: ``… 1 INTRODUCTION``, ``3.2 Training …`` at the start."""
_FOOTNOTE_START = SUPERSCRIPTS + FOOTNOTE_SYMBOLS
_MATH = re.compile(r"[=<>≤≥≈∑∏∫∈∉∀∃∇∂⊂⊆∪∩→←↦|^_{}\\]")
_BULLET = re.compile(r"\s*(?:[•●▪◦‣∙·–—-]|\(?(?:\d{1,2}|[ivx]{1,4}|[a-h])\)|\d{1,2}\.(?=\s))\s+")
_ITEM_SPLIT = re.compile(r"\s*[•●▪◦‣∙]\s+|(?<=[.;:])\s+\(?(?:\d{1,2}|[ivx]{1,4})\)\s+")


@dataclass(frozen=True, slots=True)
class Quote:
    """A sentence of the paper as a note may quote it."""

    text: str
    page: int
    section: str
    """The heading of the section it comes from, without its number (``Introduction``)."""


def note_prose(sentence: str) -> str:
    """``sentence`` without footnote marks when it is prose a note may quote, else ``""`` (see the module docstring)."""
    text = " ".join(_MARK.sub(lambda m: " " if m.group(0).endswith(" ") and m.start() else "", sentence).split())
    text = re.sub(r"\s+([.,;:])", r"\1", text)
    if not MIN_CHARS <= len(text) <= MAX_CHARS or "  " in sentence.strip():
        return ""
    if not (text[:1].isupper() or text[:1] in "“\"(" or re.match(r"[a-z]+[A-Z0-9]", text)) or not text.endswith(
            (".", "!", "?", ".)", ".”", '."')):
        return ""
    if _PATTERNS["junk"].search(text) or _HEADING.search(text):
        return ""
    words = text.split()
    if len(_MATH.findall(text)) > 2 or sum(len(w.strip(".,;:()")) == 1 and w.strip(".,;:()").isalpha()
                                            and w.lower() not in ("a", "i") for w in words) > 0.15 * len(words):
        return ""  # an equation's pieces: symbols, single letters
    letters = sum(c.isalpha() for c in text)
    if letters < 0.6 * len(text.replace(" ", "")):
        return ""
    numbers = sum(1 for w in words if NUMBER.fullmatch(w.strip(".,;:()[]")))  # not the digits of a name (Qwen3-8B)
    return "" if numbers >= 4 and numbers >= 0.3 * len(words) else text


def is_byline(paragraph: str) -> bool:
    """An e-mail, an affiliation or an author footnote ("∗ Equal contribution", "Work done while at …")."""
    return _PATTERNS["byline"].search(paragraph) is not None


def _sentences(section: Section) -> Iterator[Quote]:
    title = section.title or section.heading
    for paragraph in section.paragraphs:
        if "\n" in paragraph.text or paragraph.text[:1] in _FOOTNOTE_START:
            continue  # table rows; a footnote ("⁴ To illustrate …", "∗ Equal contribution …")
        for sentence in split_sentences(paragraph.text):
            if text := note_prose(sentence):
                yield Quote(text, paragraph.page, title)


def _subtree(paper: PaperText, start: int) -> list[Section]:
    """The section at ``start`` and its subsections."""
    sections = paper.sections
    level = sections[start].level
    end = next((k for k in range(start + 1, len(sections)) if sections[k].level <= level), len(sections))
    return list(sections[start:end])


def _find(paper: PaperText, key: str) -> int | None:
    return next((i for i, s in enumerate(paper.sections) if s.level >= 1 and _PATTERNS[key].search(s.title)), None)


def introduction(paper: PaperText) -> list[Quote]:
    """Every quotable sentence of the introduction (its subsections included), in order."""
    start = _find(paper, "introduction")
    if start is None:
        start = next((i for i, s in enumerate(paper.sections) if s.level == 1), None)
    return [q for s in (_subtree(paper, start) if start is not None else []) for q in _sentences(s)]


def background(paper: PaperText, limit: int = 4) -> list[Quote]:
    """The introduction's problem and gap: its first sentence, then the sentences that say what is missing,
    up to the one that states the paper's contribution."""
    intro = introduction(paper)
    out: list[Quote] = []
    for i, quote in enumerate(intro):
        if _PATTERNS["contribution"].search(quote.text) and out:
            break
        if i == 0 or _PATTERNS["gap"].search(quote.text):
            out.append(quote)
        if len(out) == limit:
            break
    return out


def contributions(paper: PaperText, limit: int = 5) -> list[Quote]:
    """The introduction's list of contributions ("Our contributions are: • … • …"), an item's first sentence
    each; ``[]`` when the paper has no such list."""
    start = _find(paper, "introduction")
    if start is None:
        return []
    paragraphs = [(p, s.title) for s in _subtree(paper, start) for p in s.paragraphs if "\n" not in p.text]
    out: list[Quote] = []
    for k, (paragraph, title) in enumerate(paragraphs):
        cue = _PATTERNS["contributions"].search(paragraph.text)
        if cue is None:
            continue
        items = [t for t in _ITEM_SPLIT.split(paragraph.text[cue.end():]) if t][1:]  # after the announcing words
        for later, _ in paragraphs[k + 1:]:
            if not _BULLET.match(later.text):
                break
            items.extend(t for t in _ITEM_SPLIT.split(later.text) if t.strip())
        for item in items:
            first = split_sentences(_BULLET.sub("", item, count=1) if _BULLET.match(item) else item)
            if first and (text := note_prose(first[0])):
                out.append(Quote(text, paragraph.page, title))
        if len(out) >= 2:
            return out[:limit]
        out = []
    return []


def claims(paper: PaperText, limit: int = 3) -> list[Quote]:
    """The introduction's sentences that say what the paper shows or brings ("We show …", "We introduce …")."""
    return [q for q in introduction(paper) if _PATTERNS["claim"].search(q.text)][:limit]


def method_opening(paper: PaperText, limit: int = 3) -> list[Quote]:
    """The first sentences of the method section: the first top-level section after the introduction whose
    heading names a method, else the first that is not background, related work or experiments."""
    first = _find(paper, "introduction")
    top = [i for i, s in enumerate(paper.sections) if s.level == 1 and (first is None or i > first)]
    candidates = [i for i in top if not _PATTERNS["not_method"].search(paper.sections[i].title)]
    named = [i for i in candidates if _PATTERNS["method"].search(paper.sections[i].title)]
    for start in (named or candidates)[:1]:
        return [q for s in _subtree(paper, start) for q in _sentences(s)][:limit]
    return []


def limitations(paper: PaperText, limit: int = 3) -> list[Quote]:
    """The limitations section's first sentences, else the conclusion's sentences that are caveats."""
    sections = (*paper.sections, *paper.appendix)
    for section in sections:
        if _PATTERNS["limitations"].search(section.title):
            found = list(_sentences(section))[:limit]
            if found:
                return found
    for section in sections:
        if section.level >= 1 and _PATTERNS["conclusion"].search(section.title):
            found = [q for q in _sentences(section) if _PATTERNS["caveat"].search(q.text)][:limit]
            if found:
                return found
    return []


def related(paper: PaperText, limit: int = 2) -> list[Quote]:
    """The related-work section's first sentences."""
    start = _find(paper, "related")
    return [q for s in _subtree(paper, start) for q in _sentences(s)][:limit] if start is not None else []
