"""Draft stage, grounding: a draft's numbers against its paper, the repair list, the ``⚠`` marks, the record.

In: a stub, its ``Drafted`` and the ``PaperText``. Out: a ``Check`` — how many
numbers the note would state and which of them the paper does not have, each
located in the part of the draft it is in — from which come the repair
request's list, the marked draft and the front matter's ``grounding`` record.

The numbers are counted exactly as ``check --grounding`` counts them in the
written note (the front-matter summary and the body, via
``papernotes.intake.grounding``), so the record and a later check agree.

The mark: a number the paper does not have is followed by ``⚠`` (U+26A0), no
space, e.g. ``0.673⚠``; in ``$…$`` math it follows the closing ``$``. It is
plain text, so it shows in the Markdown, on the page and in search, and
``grep '⚠'`` finds what is left to verify; delete it once the number is fixed.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from papernotes.corpus.model import Grounding
from papernotes.intake.draft import Drafted, Stub, body_parts, heading
from papernotes.intake.grounding import Finding, ground, note_numbers
from papernotes.intake.paper import PaperText
from papernotes.intake.prompt import Prompt

MARK = "⚠"
FRONT = "front"
"""Part name of the front matter's ``summary`` (the body's summary section is the ``summary`` part)."""


@dataclass(frozen=True, slots=True)
class Located:
    finding: Finding
    part: str
    """``front``, ``summary``, a section key, ``ratings``, or ``""`` for the stub's own text."""
    line: int
    """0-based line within the part's text after its heading."""


@dataclass(frozen=True, slots=True)
class Check:
    checked: int
    unsupported: tuple[Located, ...]
    pdf_sha256: str

    def record(self) -> Grounding:
        numbers = tuple(dict.fromkeys(u.finding.number.text for u in self.unsupported))
        return Grounding(self.checked, len(self.unsupported), self.pdf_sha256, numbers)


def check(stub: Stub, drafted: Drafted, paper: PaperText, lang: str) -> Check:
    parts = body_parts(stub, drafted, lang)
    starts: list[tuple[int, str, bool]] = []
    line = 1
    for key, text in parts:
        starts.append((line, key, text.startswith("## ")))
        line += text.count("\n") + 2
    body = "\n\n".join(text for _, text in parts)
    findings = ground(note_numbers(body, 1, drafted.summary, -1), paper)
    located = []
    for finding in findings:
        if finding.supported:
            continue
        where = finding.number.where
        if where < 0:
            located.append(Located(finding, FRONT, 0))
            continue
        start, key, headed = next(s for s in reversed(starts) if s[0] <= where)
        located.append(Located(finding, key, where - start - (1 if headed else 0)))
    return Check(len(findings), tuple(located), paper.sha256)


def repair_list(found: Check, prompt: Prompt, lang: str) -> str:
    """One line per unsupported number (once per part): where it is, and the paper's nearest number and page."""
    lines = []
    for part, text, near in dict.fromkeys((u.part, u.finding.number.text, u.finding.nearest)
                                          for u in found.unsupported if u.part not in (FRONT, "")):
        where = heading("summary" if part == FRONT else part, lang)
        if near is None:
            lines.append(prompt.fill("number_none", number=text, section=where))
        else:
            lines.append(prompt.fill("number", number=text, section=where, nearest=near.text, page=str(near.where)))
    return "\n".join(lines)


def mark(drafted: Drafted, found: Check) -> Drafted:
    """``drafted`` with ``⚠`` after each unsupported number of its summary and sections."""
    by_part: dict[str, list[Located]] = {}
    for u in found.unsupported:
        # the front-matter summary and the summary section are one text: mark it once
        by_part.setdefault("summary" if u.part == FRONT else u.part, []).append(u)
    if "summary" in by_part:
        front = [u for u in by_part["summary"] if u.part == FRONT]
        by_part["summary"] = front or by_part["summary"]
    summary = _mark_text(drafted.summary, by_part.get("summary", []))
    sections = {key: _mark_text(text, by_part.get(key, [])) for key, text in drafted.sections.items()}
    return replace(drafted, summary=summary, sections=sections)


def _mark_text(text: str, located: list[Located]) -> str:
    if not located:
        return text
    lines = text.split("\n")
    for i, wanted in Counter((u.line, u.finding.number.text) for u in located).items():
        line, number = i
        if 0 <= line < len(lines):
            lines[line] = _mark_line(lines[line], number, wanted)
    return "\n".join(lines)


def _mark_line(line: str, number: str, count: int) -> str:
    """``⚠`` after the first ``count`` occurrences of ``number`` that stand alone and are not marked yet."""
    pattern = re.compile(rf"(?<![A-Za-z0-9_.]){re.escape(number)}(?![.,]?\d|{MARK})")
    pos = 0
    for _ in range(count):
        m = pattern.search(line, pos)
        if m is None:
            break
        end = _mark_at(line, m.start(), m.end())
        if end is None or line.startswith(MARK, end):
            pos = m.end()
            continue
        line = line[:end] + MARK + line[end:]
        pos = end + len(MARK)
    return line


_DOLLARS = re.compile(r"(?<!\\)\$\$?")


def _mark_at(line: str, start: int, end: int) -> int | None:
    """Where the mark goes: ``end``, or just after the ``$…$`` span holding the number (``None``: not closed)."""
    pos = 0
    while (m := _DOLLARS.search(line, pos)) is not None and m.start() < start:
        close = line.find(m.group(0), m.end())
        if close < 0:
            return None
        pos = close + len(m.group(0))
        if start < close:
            return pos
    return end
