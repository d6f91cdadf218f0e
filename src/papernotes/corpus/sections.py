"""Corpus stage, a note body's structure: fenced code, ``##`` sections and heading demotion, said once.

In: a note body (Markdown after the front matter). Out: the spans of its fenced
code blocks, its ``##`` headings outside them, its sections (``split_body``,
each knowing its canonical key, its offsets and its first line) and the same
text with ``#``/``##`` headings outside code demoted to ``###``. Parsing,
redrafting, drafting and translating all cut a body here, so a ``## heading``
inside a code block is plain code for every one of them.

A fence opens with three or more backticks or tildes (up to three spaces in)
and closes with at least as many of the same character and nothing else on the
line; an unclosed fence runs to the end (CommonMark). Regex scans, not a loop
over lines: ``headings`` runs on every note of a cold build.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

from papernotes.corpus.model import SECTIONS

_FENCE_BLOCK = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*(?:\n.*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)|\Z)",
                          re.MULTILINE | re.DOTALL)
_HEADING2 = re.compile(r"^## (.*)$", re.MULTILINE)
_DEMOTE = re.compile(r"^(#{1,2})(?=[ \t])", re.MULTILINE)
_BLANK_EDGES = re.compile(r"^(?:[ \t]*\n)+|(?:\n[ \t]*)+\Z|^[ \t]+\Z")


def fence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of every fenced code block, delimiters included, in order."""
    if "```" not in text and "~~~" not in text:
        return []
    return [m.span() for m in _FENCE_BLOCK.finditer(text)]


def _in_code(pos: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    i = bisect.bisect_right(starts, pos) - 1
    return i >= 0 and pos < spans[i][1]


def headings(body: str) -> list[re.Match[str]]:
    """The ``## `` heading lines of a body outside fenced code, in order (group 1: the heading's text)."""
    spans = fence_spans(body)
    if not spans:
        return list(_HEADING2.finditer(body))
    starts = [a for a, _ in spans]
    return [m for m in _HEADING2.finditer(body) if not _in_code(m.start(), spans, starts)]


def heading_text(match: re.Match[str]) -> str:
    """A heading as written, without closing ``#``s."""
    return match.group(1).strip().rstrip("#").strip()


def _section_names() -> list[tuple[str, str]]:
    names = [(name.casefold(), key) for key, (zh, en, others) in SECTIONS.items() for name in (zh, en, *others)]
    names.sort(key=lambda item: -len(item[0]))  # longest prefix wins
    return names


_SECTION_NAMES = _section_names()


@lru_cache(maxsize=4096)
def section_key(heading: str) -> str:
    """Canonical key of a ``##`` heading, accepting zh and en variants (``局限性 / 可改进方向``); ``""``: the
    section is the author's own."""
    text = heading.strip().casefold()
    for name, key in _SECTION_NAMES:
        if text.startswith(name):
            return key
    return ""


def trim_blank_lines(text: str) -> str:
    """``text`` without the blank lines before and after it (the first line's indentation kept: it may be code)."""
    return _BLANK_EDGES.sub("", text)


@dataclass(frozen=True, slots=True)
class Section:
    """One ``##`` section of a body."""

    key: str
    """Canonical key (``SECTIONS``), ``""`` for a section of the author's own."""
    heading: str
    """The heading as written, without ``## `` and closing ``#``s."""
    text: str
    """The whole section as written, heading line included, blank lines around it removed."""
    content: str
    """The text after the heading line, blank lines around it removed."""
    start: int
    """Offset of the heading line in the body."""
    line: int
    """1-based line of the heading in the body."""


def split_body(body: str) -> tuple[str, list[Section]]:
    """The text before the first ``##`` heading (blank lines around it removed), and the sections in order."""
    found = headings(body)
    preamble = body[:found[0].start()] if found else body
    sections = []
    line = 1
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(body)
        line += body.count("\n", found[i - 1].start() if i else 0, m.start())
        heading = heading_text(m)
        sections.append(Section(section_key(heading), heading, trim_blank_lines(body[m.start():end]),
                                trim_blank_lines(body[m.end():end]), m.start(), line))
    return trim_blank_lines(preamble), sections


def demote_headings(text: str) -> str:
    """``#``/``##`` headings outside fenced code become ``###``: inside a section they would end it."""
    spans = fence_spans(text)
    starts = [a for a, _ in spans]
    return _DEMOTE.sub(lambda m: m.group(0) if spans and _in_code(m.start(), spans, starts) else "###", text)


def code_blocks(text: str) -> list[str]:
    """The content of each fenced code block (delimiter lines left out, trailing blanks ignored)."""
    blocks = []
    for start, end in fence_spans(text):
        lines = text[start:end].split("\n")
        opener = re.match(r" {0,3}(`{3,}|~{3,})", lines[0])
        closed = len(lines) > 1 and opener is not None and re.fullmatch(
            rf" {{0,3}}{re.escape(opener.group(1))}[`~]*[ \t]*", lines[-1]) is not None
        body = lines[1:-1] if closed else lines[1:]
        blocks.append("\n".join(line.rstrip() for line in body).rstrip())
    return blocks
