"""Render step, after the allow-list: tables made to fit a phone (pure).

In: a note body's HTML once ``sanitise.py`` has cleaned it (or trusted HTML). Out: the same HTML with each
``<table>`` inside its own scrolling box, ``<section class="table-wrap" tabindex="0"
aria-label="…">``, each cell that holds only numbers (``85.3``, ``0.8 / 50 / 0``, ``+1.2%``, ``7B``,
``61.9 ± 0.3``) marked ``class="num"`` and each cell of one short word (``IN-R``, ``Llama-3.1-8B``) marked
``class="word"``, which the stylesheet keeps on one line. On a 390 px screen a wide results table then
scrolls sideways inside its box, which a keyboard can focus and a screen reader names, instead of squeezing
its columns until numbers break mid-digit and names at their hyphens.

The attributes are written here, after sanitising, from the page's own strings: a note cannot write them
(the allow-list keeps no ``role``, ``tabindex``, ``aria-*`` or ``class`` on tables and cells), so it can
never add a handler such as ``onfocus`` to the focusable box.
"""
from __future__ import annotations

import html
import re
from collections.abc import Callable

from papernotes.text import CJK_ANY, plain_text

_TABLE = re.compile(r"<table(?: [^>]*)?>(?:<caption>(.*?)</caption>)?", re.S)
_CELL = re.compile(r"<(t[dh])((?: [a-z-]+=\"[^\"]*\")*)>(.*?)</\1>", re.S)
_NUMBER = r"\d[\d.,]*(?:[eE][-+−]?\d+)?(?:pp|ms|[kKMBGTsxh])?(?![A-Za-z])"
"""A number as tables write it, with a unit glued to it (``12.5M``, ``3.2x``, ``40ms``, ``2pp``)."""
_SIGNS = r"[\s.,%‰±+\-−–~≈<>≤≥/×()\[\]↑↓→*$:⚠]*"
"""What a number cell may hold besides numbers: signs, ranges, ratios, deltas, the ``⚠`` mark."""
_NUMBER_CELL = re.compile(rf"{_SIGNS}(?:{_NUMBER}{_SIGNS})+")
NUMBER_CELL_MAX = 40
"""Longest number cell, in characters (a longer run of numbers is a list that may wrap at its spaces)."""
WORD_CELL_MAX = 24
"""Longest one-word cell kept on one line, in characters (``Qwen2.5-VL-7B-Instruct`` is 22)."""
_CJK = re.compile(f"[{CJK_ANY}]")


def is_number_cell(text: str) -> bool:
    """True when ``text`` (a cell's plain text) is numbers and the signs between them, nothing else."""
    text = text.strip()
    return len(text) <= NUMBER_CELL_MAX and _NUMBER_CELL.fullmatch(text) is not None


def cell_class(text: str) -> str | None:
    """``num`` for a cell of numbers, ``word`` for a cell of one short word, else None (``text``: plain text).

    A word has no space and no CJK character: Chinese text breaks between its characters, so it is prose.
    """
    if is_number_cell(text):
        return "num"
    text = text.strip()
    if 0 < len(text) <= WORD_CELL_MAX and len(text.split()) == 1 and _CJK.search(text) is None:
        return "word"
    return None


def fit_tables(fragment: str, label: Callable[[int], str] | None) -> str:
    """Wrap each table of ``fragment`` in its scrolling box and mark its cells of numbers and of one word.

    ``label(n)`` names the ``n``-th table's box (``表格 2`` / ``Table 2``), unless the table has a caption,
    which names it instead (a ``<section>`` with a name is a region for assistive technology, the native
    element for ``role="region"``); with ``label=None`` the box is a plain ``<div class="table-wrap">``.
    """
    if "<table" not in fragment:
        return fragment
    count = 0

    def box(m: re.Match[str]) -> str:
        nonlocal count
        count += 1
        if label is None:
            return '<div class="table-wrap">' + m.group(0)
        caption = m.group(1)
        name = plain_text(caption) if caption else ""
        name = html.escape(" ".join(name.split()) or label(count), quote=True)
        return f'<section class="table-wrap" tabindex="0" aria-label="{name}">{m.group(0)}'

    out = _TABLE.sub(box, fragment)
    if count:
        out = out.replace("</table>", "</table></div>" if label is None else "</table></section>")
    return _CELL.sub(_mark_cell, out) if "<td" in out or "<th" in out else out


def _mark_cell(m: re.Match[str]) -> str:
    tag, attributes, inner = m.group(1), m.group(2), m.group(3)
    if " class=" in attributes or "<t" in inner:  # a class of its own (trusted HTML), or a nested table
        return m.group(0)
    found = cell_class(plain_text(inner) if "<" in inner or "&" in inner else inner)
    return m.group(0) if found is None else f'<{tag} class="{found}"{attributes}>{inner}</{tag}>'
