"""Reading stage, tables: a table's box on a pdfium text page becomes its rows of cells.

In: the pdfium text page, the table's box, the text rectangles inside it and
its horizontal rules (from ``papernotes.intake.paper.figures``). Out: the rows
top to bottom, each a tuple of cell texts as printed (a UTF-16 surrogate pair
joined into its character, a lone half replaced: never a string that cannot
be encoded). pdflatex draws a row as
one text run whose cells are kerned apart, so cells are found from character
boxes: a gap of ``CELL_GAP`` ems separates cells, one over ``WORD_GAP`` words.

A header spanning several columns ("RULER" over "32K 64K 128K"), with the
short rule booktabs draws under it (``\\cmidrule``), is folded into the
header row under it: "RULER 32K", "RULER 64K"…, so that each column keeps
its whole name when the table is shown elsewhere. Without such a rule the
rows stay as printed.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from papernotes.extras import require
from papernotes.intake.paper.cleanup import clean_text
from papernotes.intake.paper.model import well_formed

CELL_GAP = 0.8
"""Ems of white between two characters of a table row that separate cells."""
WORD_GAP = 0.15
"""Ems of white between two characters that separate words."""
Box = tuple[float, float, float, float]
Char = tuple[float, float, float, float, str]
"""x0, x1, middle height, font size, the character."""
Cell = tuple[float, float, str]
"""x0, x1, text."""


def table_rows(textpage: Any, box: Box, rects: Sequence[Box], rules: Sequence[Box]) -> tuple[tuple[str, ...], ...]:
    """The table in ``box`` as rows of cells (spanning headers folded into the header row under their rule)."""
    rows = _cells(_chars(textpage, rects))
    return tuple(tuple(text for _, _, text in row) for row in _fold(rows, [r for r in rules if r[2] - r[0] <
                                                                           0.9 * (box[2] - box[0])]))


def _chars(textpage: Any, rects: Sequence[Box]) -> list[Char]:
    """The characters of the text rectangles, visited from the one at each rectangle's left edge on (most of a
    page's characters are not in its table)."""
    raw = require("pypdfium2", "finding figures in PDFs").raw
    rect = raw.FS_RECTF()
    page = textpage.raw
    count = raw.FPDFText_CountChars(page)
    seen: set[int] = set()
    chars: list[Char] = []
    for r in rects:
        i = raw.FPDFText_GetCharIndexAtPos(page, r[0] + 0.5, (r[1] + r[3]) / 2, 1.0, 1.0)
        left = float("-inf")  # the character found at the rectangle's edge is its first (its loose box may start left)
        while 0 <= i < count and i not in seen:
            code = raw.FPDFText_GetUnicode(page, i)
            if code <= 32:  # spaces (pdfium's or the font's) left out: the gaps say where words end
                i += 1
                continue
            if not raw.FPDFText_GetLooseCharBox(page, i, rect):
                break
            middle = (rect.bottom + rect.top) / 2
            if not (left - 1 <= rect.left <= r[2] and r[1] - 1 <= middle <= r[3] + 1):
                break  # past the rectangle's last character (or on to text drawn after it elsewhere)
            left = rect.left
            seen.add(i)
            size = raw.FPDFText_GetFontSize(page, i) or rect.top - rect.bottom
            text = chr(code)
            if 0xD800 <= code < 0xDC00 and i + 1 < count:  # PDFium counts UTF-16 units: a pair is one character
                low = raw.FPDFText_GetUnicode(page, i + 1)
                if 0xDC00 <= low < 0xE000:
                    text = chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
                    seen.add(i + 1)
                    i += 1
            chars.append((rect.left, rect.right, middle, size, well_formed(text)))
            i += 1
    return chars


def _cells(chars: Sequence[Char]) -> list[tuple[float, list[Cell]]]:
    """(middle height, cells left to right) of each row, top to bottom."""
    rows: list[list[Char]] = []
    for ch in sorted(chars, key=lambda c: -c[2]):
        if rows and abs(rows[-1][0][2] - ch[2]) <= 0.5 * max(rows[-1][0][3], ch[3]):
            rows[-1].append(ch)
        else:
            rows.append([ch])
    out: list[tuple[float, list[Cell]]] = []
    for row in rows:
        row.sort(key=lambda c: c[0])
        cells: list[list[Any]] = []
        for x0, x1, _, size, text in row:
            if not cells or x0 - cells[-1][1] > CELL_GAP * size:
                cells.append([x0, x1, text])
                continue
            cells[-1][2] += (" " if x0 - cells[-1][1] > WORD_GAP * size else "") + text
            cells[-1][1] = max(cells[-1][1], x1)
        found = [(a, b, clean_text(text).strip()) for a, b, text in cells if clean_text(text).strip()]
        if found:
            out.append((sum(c[2] for c in row) / len(row), found))
    return out


def _fold(rows: list[tuple[float, list[Cell]]], rules: Sequence[Box]) -> list[list[Cell]]:
    """Rows with each spanning header folded into the row under it: a cell over a short rule names the cells
    under that rule ("RULER" + "32K" → "RULER 32K"); the spanning row is then left out."""
    out: list[list[Cell]] = []
    k = 0
    while k < len(rows):
        (y, row), below = rows[k], rows[k + 1] if k + 1 < len(rows) else None
        spans = [] if below is None else [
            (rule, cell) for cell in row for rule in rules
            if below[0] < rule[1] < y and min(cell[1], rule[2]) - max(cell[0], rule[0]) > 0]
        if below is None or not spans or len(row) >= len(below[1]):
            out.append(row)
            k += 1
            continue
        named = []
        for a, b, text in below[1]:
            over = next((cell[2] for rule, cell in spans if rule[0] - 1 <= (a + b) / 2 <= rule[2] + 1), "")
            named.append((a, b, f"{over} {text}" if over else text))
        out.append(named)
        k += 2
    return out
