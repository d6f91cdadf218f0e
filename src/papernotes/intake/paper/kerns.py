"""Reading stage, extraction: where one text run is kerned a column's width apart, it becomes several fragments.

In: the operators pypdf reads from a page's content stream (through its
``visitor_operand_before`` hook) and the text runs it reports. Out: each run
as ``(text, x, y)`` pieces. pdflatex draws a table row, or a row of author
blocks, as one ``TJ`` array whose cells are moved apart by large negative
kerns; pypdf turns each kern into one space, so without this the cells of a
row read as one line of prose ("Method RULER LongBench Speedup"). A kern of
an em or more, and three times the run's typical word space, starts a new
piece at the position the kern moves the pen to.

The pieces are matched to pypdf's text by counting glyphs: the non-space
characters of a run against the bytes of the strings shown since the last run
(simple one-byte fonts). When the counts disagree (a ligature read as two
letters, a two-byte font), the run stays whole: splitting is an improvement,
never a guess.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

SPLIT_KERN = 1000
"""Thousandths of an em of a ``TJ`` kern that separate cells at least (a word space is about 330, a column gap 1200)."""
SPLIT_RATIO = 3.0
"""And as many times the run's median word space: a justified line stretches a sentence's end to twice a word's."""
WORD_KERN = 150
"""A kern this wide is a space between words; narrower ones are kerning inside a word."""


@dataclass(frozen=True, slots=True)
class _Show:
    """One text-showing operator: its glyph count, start, and where its big kerns move the pen to."""

    glyphs: int
    start: tuple[float, float]
    splits: tuple[tuple[int, float, float], ...]
    """(glyphs before the split, x, y) in page space."""


def _origin(cm: Sequence[float], tm: Sequence[float]) -> tuple[float, float, float, float]:
    """(x, y) of the text matrix's origin in page space, and the page-space step of one text-space unit along x."""
    a = tm[0] * cm[0] + tm[1] * cm[2]
    b = tm[0] * cm[1] + tm[1] * cm[3]
    return tm[4] * cm[0] + tm[5] * cm[2] + cm[4], tm[4] * cm[1] + tm[5] * cm[3] + cm[5], a, b


def _bytes(item: Any) -> bytes | None:
    """A shown string's bytes (pypdf decodes some into text and keeps the bytes as ``original_bytes``)."""
    return item if isinstance(item, bytes) else getattr(item, "original_bytes", None)


def _glyphs(item: Any) -> int:
    """Glyphs a shown string draws, spaces left out (pypdf adds and drops spaces of its own)."""
    data = _bytes(item)
    if data is not None:
        return len(data) - data.count(32)
    text = str(item)
    return len(text) - text.count(" ") - text.count("\n")


class KernSplitter:
    """Fed every operator of a page, then asked to split each text run pypdf reports."""

    def __init__(self, fonts: Any, width: Callable[[Any, int], float | None]) -> None:
        self._fonts = fonts
        """The page's ``/Font`` resources (a dictionary, or ``None``)."""
        self._width = width
        """Glyph width in thousandths of an em of a font's byte code; ``None`` when the font is not a simple one."""
        self._font: Any = None
        self._size = 0.0
        self._pending: list[_Show] = []

    def before(self, op: bytes, operands: Sequence[Any], cm: Sequence[float], tm: Sequence[float]) -> None:
        if op == b"Tf" and len(operands) >= 2:
            try:
                font = self._fonts[operands[0]].get_object() if self._fonts is not None else None
                self._font = font if isinstance(font, dict) else None
                self._size = float(operands[1])
            except (KeyError, TypeError, ValueError, AttributeError):
                self._font, self._size = None, 0.0
        elif op in (b"Tj", b"'", b'"') and operands:
            x, y, _, _ = _origin(cm, tm)
            self._pending.append(_Show(_glyphs(operands[-1]), (x, y), ()))
        elif op == b"TJ" and operands and isinstance(operands[0], list):
            self._pending.append(self._tj(operands[0], cm, tm))

    def _tj(self, items: Sequence[Any], cm: Sequence[float], tm: Sequence[float]) -> _Show:
        x, y, a, b = _origin(cm, tm)
        advance, glyphs, known = 0.0, 0, True
        splits: list[tuple[int, float, float]] = []
        spaces = sorted(-i for i in items if isinstance(i, (int, float)) and WORD_KERN <= -i < SPLIT_KERN)
        least = max(SPLIT_KERN, SPLIT_RATIO * spaces[len(spaces) // 2]) if spaces else SPLIT_KERN
        for item in items:
            if isinstance(item, (int, float)):
                advance -= item / 1000 * self._size
                if -item >= least and glyphs and known:
                    splits.append((glyphs, x + advance * a, y + advance * b))
                continue
            data = _bytes(item)
            glyphs += _glyphs(data if data is not None else item)
            widths = [self._width(self._font, byte) for byte in data] if data is not None and known else [None]
            known = None not in widths
            advance += sum(w or 0.0 for w in widths) / 1000 * self._size
        return _Show(glyphs, (x, y), tuple(splits))

    def split(self, text: str, x: float, y: float) -> list[tuple[str, float, float]]:
        """``text`` (one run, starting at ``x, y``) as pieces with their starts; the run whole when unsure."""
        while self._pending and max(abs(self._pending[0].start[0] - x), abs(self._pending[0].start[1] - y)) > 0.01 \
                and any(max(abs(s.start[0] - x), abs(s.start[1] - y)) <= 0.01 for s in self._pending):
            self._pending.pop(0)  # shows whose text pypdf did not report as this run's start (another direction…)
        count = _glyphs(text)
        total, cuts = 0, []
        while self._pending and total + self._pending[0].glyphs <= count:
            show = self._pending.pop(0)
            cuts += [(total + g, sx, sy) for g, sx, sy in show.splits]
            total += show.glyphs
        if total != count or not cuts or "\n" in text.strip("\n"):
            return [(text, x, y)]
        pieces, seen, start, px, py = [], 0, 0, x, y
        cut = iter(cuts)
        nxt = next(cut)
        for i, ch in enumerate(text):
            if nxt is not None and seen == nxt[0] and not ch.isspace():
                pieces.append((text[start:i], px, py))
                start, px, py = i, nxt[1], nxt[2]
                nxt = next(cut, None)
            seen += not ch.isspace()
        pieces.append((text[start:], px, py))
        return [(t, px, py) for t, px, py in pieces if t.strip()]
