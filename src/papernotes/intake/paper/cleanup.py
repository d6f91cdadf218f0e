"""Reading stage, cleanup: lines in reading order lose their junk and become paragraphs.

In: ``Line`` records of every page. Out: the same lines without embedded
base64 runs (figure metadata some PDFs carry as text), page numbers and
running headers, control bytes and private-use glyphs (math fonts), ligatures
spelled out, a footnote mark set before a word (``⁵We used``, ``†Corresponding``)
a space apart from it; then, per section, ``Paragraph`` records: prose lines joined (a
word hyphenated across a line break joined back), table rows kept one per line
with their numbers verbatim, figure and table captions paragraphs of their own
(a sentence a figure interrupts is joined around it, its caption after it),
each paragraph with the page it starts on.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from statistics import median

from papernotes.intake.paper.model import well_formed
from papernotes.intake.paper.layout import Line
from papernotes.intake.paper.model import Paragraph
from papernotes.intake.paper.vocab import caption_label

BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
BASE64_TAIL = re.compile(r"[A-Za-z0-9+/]+={0,2}")
LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                           "\ufb05": "st", "\ufb06": "st", "\u00ad": ""})
MARGIN = 0.075
"""Share of the page height at the top and bottom where page numbers and running headers live."""
NUMBER = re.compile(r"[-+−]?\d[\d,]*(?:\.\d+)?%?")
TERMINAL = (".", ":", "?", "!", "。", "：")
HYPHENATED = re.compile(r"\b([A-Za-z]+)-([A-Za-z]+)\b")
JUNK = re.compile("( ?)[\x00-\x08\x0b-\x1f\x7f-\x9f\ue000-\uf8ff\ufffe\uffff]+( ?)")
"""C0/C1 control bytes (math fonts whose codes 0-31 have no Unicode) and private-use glyphs: nothing one can read."""
ACCENTS = {"´": "\u0301", "ˆ": "\u0302", "˜": "\u0303", "¨": "\u0308", "˚": "\u030a", "ˇ": "\u030c",
           "˘": "\u0306", "˝": "\u030b"}
ACCENT = re.compile("([´ˆ˜¨˚ˇ˘˝]) ?([A-Za-z])")
"""A spacing accent before a letter: OT1-encoded TeX fonts draw accented letters as the two glyphs."""
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
FOOTNOTE_SYMBOLS = "*∗†‡§¶⋆★"
LEADING_MARK = re.compile(rf"(?<![\w{SUPERSCRIPTS}{FOOTNOTE_SYMBOLS}])([{SUPERSCRIPTS}]+|[{FOOTNOTE_SYMBOLS}]+)(?=[^\W\d_])")
"""A footnote mark at the start of a word: superscript digits (``papernotes.intake.paper.extract``) or a symbol."""


def clean_text(text: str) -> str:
    """``text`` without control bytes, private-use glyphs and lone surrogates (newlines and tabs kept; one space
    where they stood; surrogate pairs joined, see ``model.well_formed``); accents drawn apart from their letter
    (pdflatex's ``Tom´as``) put back on it."""
    text = well_formed(text)
    if JUNK.search(text):
        text = JUNK.sub(lambda m: m.group(1) or m.group(2) or " ", text)
    return ACCENT.sub(lambda m: unicodedata.normalize("NFC", m.group(2) + ACCENTS[m.group(1)]), text) \
        if ACCENT.search(text) else text


def separate_marks(text: str) -> str:
    """``text`` with a footnote mark that starts a word set a space apart from it: ``⁵We used`` → ``⁵ We used``."""
    return LEADING_MARK.sub(r"\1 ", text) if LEADING_MARK.search(text) else text


def _is_base64(run: str) -> bool:
    """Long runs of the base64 alphabet with mixed case and digits; long words and hex hashes are kept."""
    return (any(c.isdigit() for c in run) or "+" in run or "/" in run) and any(c.isupper() for c in run) \
        and any(c.islower() for c in run)


def strip_base64(text: str) -> str:
    """``text`` without base64 runs; a line that is nothing but the tail of one becomes empty."""
    if len(text) >= 24 and BASE64_TAIL.fullmatch(text.strip()) and _is_base64(text):
        return ""
    if len(text) < 40:
        return text
    out = BASE64_RUN.sub(lambda m: "" if _is_base64(m.group(0)) else m.group(0), text)
    return " ".join(out.split()) if out != text else text


def _margin_key(line: Line) -> str:
    return re.sub(r"\d+", "#", line.text.casefold()).strip()


def clean_lines(lines: Sequence[Line], heights: dict[int, float]) -> list[Line]:
    """Drop base64 junk, page numbers and running headers/footers (a margin line on three or more pages, or on both of two)."""
    def in_margin(line: Line) -> bool:
        h = heights.get(line.page, 0) or 1
        return line.y > h * (1 - MARGIN) or line.y < h * MARGIN

    repeated = Counter(_margin_key(line) for line in lines if in_margin(line))
    pages = len(heights)
    out: list[Line] = []
    for line in lines:
        text = separate_marks(strip_base64(clean_text(line.text.translate(LIGATURES))))
        if not text.strip():
            continue
        if in_margin(line) and (re.fullmatch(r"\d{1,4}|[ivxlc]{1,6}", text.strip())
                                or (pages >= 2 and repeated[_margin_key(line)] >= min(pages, 3))):
            continue
        out.append(line if text == line.text else replace(line, text=text))
    return out


def is_row(line: Line) -> bool:
    """A table row: three or more cells, or a line that is mostly numbers."""
    if line.cells >= 3:
        return True
    numbers = len(NUMBER.findall(line.text))
    return numbers >= 3 and 2 * numbers >= len(line.text.split())


def _flow(line: Line) -> tuple[int, int, int]:
    return (line.page, line.column, line.band if line.column else -1)


def _line_gaps(lines: Sequence[Line]) -> dict[int, float]:
    """Typical baseline distance per page, to tell a paragraph break from a line break."""
    gaps: dict[int, list[float]] = {}
    for a, b in zip(lines, lines[1:]):
        if _flow(a) == _flow(b) and 0 < a.y - b.y < 3 * a.size:
            gaps.setdefault(a.page, []).append(a.y - b.y)
    return {page: median(values) for page, values in gaps.items()}


def known_hyphenated(lines: Sequence[Line]) -> frozenset[str]:
    """Hyphenated words written on one line somewhere in the paper (``two-stage``): breaks there keep the hyphen."""
    return frozenset(m.group(0).casefold() for line in lines for m in HYPHENATED.finditer(line.text))


def join_prose(text: str, line: str, hyphenated: frozenset[str]) -> str:
    if not text:
        return line
    if text.endswith("-") and line[:1].islower() and len(text) > 1 and text[-2].isalpha():
        head = re.search(r"([A-Za-z]+)-$", text)
        tail = re.match(r"[a-z]+", line)
        if head and tail and f"{head.group(1)}-{tail.group(0)}".casefold() in hyphenated:
            return text + line
        return text[:-1] + line
    return f"{text} {line}"


def paragraphs(lines: Sequence[Line], hyphenated: frozenset[str] = frozenset()) -> tuple[Paragraph, ...]:
    """Group one section's lines into paragraphs; a caption is one of its own, after the sentence it interrupts."""
    gaps = _line_gaps(lines)
    out: list[Paragraph] = []
    after: list[Paragraph] = []  # captions that wait for the sentence they interrupted to end
    held: Paragraph | None = None  # that sentence, while its caption is read
    text, page, rows, caption = "", 0, False, False
    prev: Line | None = None
    for line in lines:
        row = is_row(line)
        brk = prev is None or row != rows
        if prev is not None and not brk:
            ended = row or text.endswith(TERMINAL)
            if _flow(prev) == _flow(line):
                gap = prev.y - line.y
                typical = gaps.get(line.page, 1.2 * line.size)
                indented = not row and ended and line.x > prev.x + 0.8 * line.size
                brk = gap > (2.5 if row else 1.5) * typical or gap < 0 or indented
                brk = brk or (caption and abs(line.size - prev.size) > 0.5)
            else:
                brk = ended  # a column or page turn continues the sentence it interrupts
        opens = (not row and caption_label(line.text) is not None  # a caption starts a paragraph, it is not a mention
                 and (brk or text.endswith(TERMINAL) or _flow(prev) != _flow(line)
                      or abs(line.size - prev.size) > 0.5))
        if (brk or opens) and text:
            if caption and held is not None and not opens and not row:
                after.append(Paragraph(text, page))  # the caption is over; the interrupted sentence goes on
                text, page, held = held.text, held.page, None
            elif opens and not caption and not rows and held is None and not text.endswith(TERMINAL):
                held, text = Paragraph(text, page), ""
            else:
                out.extend(p for p in (held, Paragraph(text, page)) if p is not None)
                if not caption:
                    out.extend(after)
                    after.clear()
                held, text = None, ""
        caption = opens or (caption and not brk)
        if not text:
            page = line.page
        text = f"{text}\n{line.text}" if row and text else join_prose(text, line.text, hyphenated)
        rows = row
        prev = line
    out.extend(p for p in (held, Paragraph(text, page) if text else None) if p is not None)
    out.extend(after)
    return tuple(out)
