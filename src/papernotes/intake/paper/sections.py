"""Reading stage, sections: clean lines become the paper's sections, references cut, appendix apart.

In: cleaned ``Line`` records in reading order and the PDF outline. Out: the
front matter, body sections and appendix sections (each with paragraphs),
whether a references section was cut, and where the headings came from.

Headings come from the outline (bookmarks) when most of its entries can be
found as lines of the text; otherwise from numbered heading lines (``1
Introduction``, ``3.2 Ablations``, ``A Proofs``) set in bold or a larger size,
whose numbers must follow each other (2 after 1, 3.2 after 3.1 or 3), which
keeps numbered list items and table rows out. A ``References`` or
``Bibliography`` line starts the part that is cut; the first heading after it,
or the first lettered or ``Appendix`` heading anywhere, starts the appendix.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from papernotes.intake.paper.cleanup import is_row, paragraphs
from papernotes.intake.paper.extract import OutlineItem
from papernotes.intake.paper.layout import Line
from papernotes.intake.paper.model import OutlineSource, Section

NUMBERED = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,2}){0,3}|[A-H](?:\.\d{1,2}){0,3})\.?\s+(?P<title>\S.{1,100})$")
REFERENCES = re.compile(r"^(?:\d{1,2}\.?\s+)?(?:references|bibliography|literature cited|参考文献)$", re.I)
APPENDIX = re.compile(r"^(?:appendix|appendices|supplementary materials?|supplemental materials?)"
                      r"(?:\s+(?P<num>[A-H])\b\.?:?)?\s*(?P<title>.*)$", re.I)


@dataclass(frozen=True, slots=True)
class Heading:
    index: int
    """Position of the heading line in the line list."""
    number: str
    title: str
    level: int
    kind: str = "body"
    """``body``, ``references`` or ``appendix``."""


def _key(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _strip_number(title: str) -> tuple[str, str]:
    m = re.match(r"^(\d{1,2}(?:\.\d{1,2}){0,3}|[A-H](?:\.\d{1,2}){0,3})\.?\s+(\S.*)$", title)
    return (m.group(1), m.group(2)) if m else ("", title)


def from_outline(lines: Sequence[Line], outline: Sequence[OutlineItem]) -> list[Heading]:
    """Outline entries found as lines, in order; an empty list when fewer than half are found."""
    found: list[Heading] = []
    pos = 0
    for item in outline:
        number, title = _strip_number(item.title)
        target = _key(title)
        if not target:
            continue
        for i in range(pos, len(lines)):
            line = lines[i]
            if line.page > item.page + 1:
                break
            if line.page < item.page:
                continue
            line_number, line_title = _strip_number(line.text)
            key = _key(line_title)
            if key == target or (len(target) >= 8 and key.startswith(target)) or (len(key) >= 10 and target.startswith(key)):
                found.append(Heading(i, line_number or number, title, item.level))
                pos = i + 1
                break
    return found if len(found) >= max(2, (len(outline) + 1) // 2) else []


def _looks_like_heading(line: Line, body_size: float, any_bold: bool) -> bool:
    return line.bold or line.size >= 1.08 * body_size or (not any_bold and len(line.text) < 60)


def from_numbers(lines: Sequence[Line]) -> list[Heading]:
    """Numbered heading lines whose numbers follow each other."""
    sizes = [line.size for line in lines for _ in range(min(len(line.text) // 10 + 1, 20))]
    body_size = median(sizes) if sizes else 10.0
    any_bold = any(line.bold for line in lines)
    found: list[Heading] = []
    last: list[int] = []  # the current number, e.g. [3, 2] after "3.2"
    letters = False
    for i, line in enumerate(lines):
        m = NUMBERED.match(line.text.strip())
        if not m or not _looks_like_heading(line, body_size, any_bold) or is_row(line):
            continue
        title = m.group("title").strip()
        words = title.split()
        if (not (title[0].isupper() or not title[0].isascii()) or len(words) > 12 or title.endswith((".", ",", ";"))
                or sum(w[0].isdigit() for w in words) > 1):
            continue
        parts = m.group("num").split(".")
        lettered = parts[0].isalpha()
        if lettered and not letters:
            if parts[0] != "A" or not found:
                continue
            letters, last = True, []
        elif lettered != letters:
            continue
        numbers = [ord(parts[0]) - ord("A") + 1 if lettered else int(parts[0]), *(int(p) for p in parts[1:])]
        if not _follows(last, numbers):
            continue
        last = numbers
        found.append(Heading(i, m.group("num"), title, len(numbers)))
    return found


def _follows(last: list[int], numbers: list[int]) -> bool:
    """``numbers`` can come after ``last``: the next at its level (one may have been missed) under the same parent."""
    if not last:
        return len(numbers) == 1 and numbers[0] <= 2
    depth = len(numbers)
    if depth > len(last) + 1 or numbers[:depth - 1] != last[:depth - 1]:
        return False
    previous = last[depth - 1] if depth <= len(last) else 0
    return previous < numbers[-1] <= previous + 2


def _special(lines: Sequence[Line], headings: list[Heading]) -> list[Heading]:
    """References and Appendix lines the outline or numbering did not give, merged in order."""
    taken = {h.index for h in headings}
    extra = []
    for i, line in enumerate(lines):
        text = line.text.strip()
        if i in taken or len(text) > 80:
            continue
        if REFERENCES.match(text):
            extra.append(Heading(i, "", text, 1))
        elif (m := APPENDIX.match(text)) and (line.bold or len(text.split()) <= 8) and not text.endswith("."):
            extra.append(Heading(i, m.group("num") or "", m.group("title") or text, 1))
    return sorted([*headings, *extra], key=lambda h: h.index)


def _kinds(headings: list[Heading]) -> list[Heading]:
    state = "body"
    out = []
    for h in headings:
        if REFERENCES.match(h.title) or REFERENCES.match(f"{h.number} {h.title}".strip()):
            state = "references" if state == "body" else state
            kind = "references"
        else:
            if state == "references" or h.number[:1].isalpha() or APPENDIX.match(h.title) and h.level == 1:
                state = "appendix"
            kind = state if state != "references" else "appendix"
        out.append(Heading(h.index, h.number, h.title, h.level, kind))
    return out


def split_sections(lines: Sequence[Line], outline: Sequence[OutlineItem], hyphenated: frozenset[str]
                   ) -> tuple[tuple[Section, ...], tuple[Section, ...], bool, OutlineSource]:
    """(body sections with the front matter first, appendix sections, references cut, heading source)."""
    headings = from_outline(lines, outline) if outline else []
    source: OutlineSource = "outline" if headings else "headings"
    if not headings:
        headings = from_numbers(lines)
        if not headings:
            source = "none"
    headings = _kinds(_special(lines, headings))
    body: list[Section] = []
    appendix: list[Section] = []
    first = headings[0].index if headings else len(lines)
    if first:
        body.append(Section("", "", lines[0].page, 0, paragraphs(lines[:first], hyphenated)))
    for k, h in enumerate(headings):
        end = headings[k + 1].index if k + 1 < len(headings) else len(lines)
        if h.kind == "references":
            continue
        section = Section(h.number, h.title, lines[h.index].page, h.level,
                          paragraphs(lines[h.index + 1:end], hyphenated))
        (appendix if h.kind == "appendix" else body).append(section)
    cut = any(h.kind == "references" for h in headings)
    return tuple(body), tuple(appendix), cut, source
