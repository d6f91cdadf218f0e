"""Reading stage, vocabulary: what a figure's or a table's caption looks like, said once.

In: a line of text. Out: whether it starts a caption, and which (``caption_label``). Used by the cleanup of
the text (a caption stands alone as a paragraph) and by the figure finder (``papernotes.intake.paper.figures``);
other readers of captions can adopt it.

A caption starts with ``Figure N``, ``Fig. N``, ``FIGURE N``, ``FIG. N``, ``Table N`` or ``TABLE N`` and an
optional ``:``, ``.``, ``|`` or dash. Without punctuation the next word must be capitalised (``Figure 1 RL
training …`` is a caption, ``Table 1 reports …`` a sentence). ``Figure A1``, ``Figure S1`` and ``Figure 3a``
are not ``Figure 1`` or ``Figure 3``: a number is whole and stands alone.
"""
from __future__ import annotations

import re
from typing import Literal

LABEL_WORDS = ("Figure", "FIGURE", "Fig.", "FIG.", "Table", "TABLE")
"""The words a caption starts with, as printed (case matters: ``figure 1`` in prose is a mention)."""
CAPTION = re.compile(r"^(?P<name>Figure|FIGURE|Fig\.|FIG\.|Table|TABLE)\s*(?P<num>\d{1,3})\b"
                     r"(?P<punct>\s*[:.|]|\s*[-–—](?=\s))?\s*(?P<rest>.*)$", re.S)
LABEL = re.compile(r"(?:Fig(?:ure)?\.?|FIG(?:URE)?\.?|Table|TABLE)\s*\d")
"""A caption's label anywhere in a page's text: a page without one has no caption."""
BARE = re.compile(r"^(?:Figure|FIGURE|Fig\.|FIG\.|Table|TABLE)\s*\d{1,3}\s*[:.|]?$")
"""A label alone (``Figure 1``, ``Table 2:``): its caption's words follow further right on the line."""
LABEL_START = re.compile(r"^(?:Table|TABLE|Tab\.|Figure|FIGURE|Fig\.)\s*\d+")
"""A paragraph or sentence that starts with a label, punctuated or not: a caption, never a result sentence."""
TABLE_START = re.compile(r"^(?:Table|TABLE|Tab\.)\s*\d+")
"""A table's label at the start of a line (a table's caption, or its label read as one of its rows)."""
TABLE_CAPTION_IN = re.compile(r"(?:^|(?<=[.!?]\s))(?:Table|TABLE|Tab\.)\s*\d+\s*[:.]\s*\S")
"""A table's caption starting inside a paragraph, after a sentence: where a run of table rows ends."""
HEADING = re.compile(r"^(?:(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,4}\.)\s+[A-Z][A-Za-z-]+(?:\s+[A-Za-z-]+){0,7}"
                     r"|Abstract|ABSTRACT|A BSTRACT|References|REFERENCES)$")
"""A section's heading (``1. Introduction``, ``3.2 Training Setup``, ``Abstract``): body text, never a figure's."""
PANEL = re.compile(r"^\(?[a-z]\)\s")
"""A panel's sub-caption (``(a) Training procedure``): part of its figure, however many words it has."""
Kind = Literal["figure", "table"]


def caption_label(text: str) -> tuple[Kind, int, str] | None:
    """(kind, number, label) when ``text`` starts like a caption (``Figure 1:``, ``Fig. 2.``, ``Table 3 Results``).

    Without punctuation after the number the next word must be capitalised: ``Table 1 reports …`` is a sentence.
    """
    m = CAPTION.match(text)
    if m is None:
        return None
    rest = m.group("rest")
    if not m.group("punct") and not (rest[:1].isupper() or rest[:1].isdigit() or rest[:1] == "("):
        return None
    kind: Kind = "table" if m.group("name").lower() == "table" else "figure"
    number = int(m.group("num"))
    return kind, number, f"{kind.capitalize()} {number}"
