"""Grounding, places: where in its paper each number of a note stands (pure functions).

In: a note's Markdown body and the ``PaperText`` its grounding record names (read back from the
paper cache, never from the PDF). Out: one ``NumberPlace`` per number the note states, keyed by the
number as written (``46.4%``): the page of the paper's number that supports it and, when that number
stands in a table or in a figure's caption, the table or figure (``Table 1``); for a number the paper
does not have, the paper's nearest number and its page.

The numbers and their support are ``papernotes.intake.grounding``'s, the very check ``draft`` and
``check --grounding`` run, so a page shows what the check found. A derived delta or factor (``+0.78``
next to ``28.82`` and ``28.04``) stands where the supported number of its line does. A number the paper
prints in several places is placed in the table most numbers of its line stand in, when that table has it
(a row copied from Table 2 points at Table 2, not at the first page that says ``0.2``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from papernotes.intake.grounding import Finding, PaperIndex, Quantity, ground, note_numbers, paper_numbers, text_numbers
from papernotes.intake.paper.model import Figure, PaperText

Region = tuple[Literal["table", "figure"], int]
"""``("table", 1)``: the table or figure a number stands in (its rows, or its caption)."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where a number stands in the paper."""

    page: int
    """1-based page of the PDF."""
    region: Region | None = None
    """The table or figure it stands in, ``None`` in the prose."""


@dataclass(frozen=True, slots=True)
class NumberPlace:
    """What the page says about one number of a note."""

    text: str
    """The number as the note writes it (``46.4%``)."""
    supported: bool
    place: Place | None
    """Supported: where the paper states it. Unsupported: where the nearest number stands (``None``: none)."""
    nearest: str = ""
    """Unsupported: the paper's nearest number as printed."""
    derived_from: str = ""
    """A derived delta or factor: the note's number of its line it was computed against."""


@dataclass(frozen=True, slots=True)
class PaperPlaces:
    """A paper's numbers indexed for grounding, and the tables and figures they stand in."""

    index: PaperIndex
    regions: dict[tuple[int, str], Region]
    """``(page, number as printed) -> region``."""

    def place(self, q: Quantity) -> Place:
        return Place(q.where, self.regions.get((q.where, q.text)))


def paper_places(paper: PaperText) -> PaperPlaces:
    """The paper's numbers and, for each table and figure, the numbers of its rows and caption."""
    regions: dict[tuple[int, str], Region] = {}
    items: Iterable[Figure] = (*paper.tables, *paper.figures)
    for item in items:
        text = "\n".join([item.caption, *(" ".join(row) for row in item.rows)])
        for q in text_numbers(text, item.page):
            regions.setdefault((item.page, q.text), (item.kind, item.number))
    return PaperPlaces(PaperIndex(paper_numbers(paper)), regions)


def note_places(body: str, places: PaperPlaces) -> dict[str, NumberPlace]:
    """Number as written -> what the page says of it, for every number ``body`` states (a number written twice
    is shown where it is supported, if it is anywhere)."""
    findings = ground(note_numbers(body), places.index)
    by_line: dict[int, list[Finding]] = {}
    for f in findings:
        if f.source is not None and not f.number.signed:
            by_line.setdefault(f.number.where, []).append(f)
    usual = {line: _usual(found, places) for line, found in by_line.items()}
    out: dict[str, NumberPlace] = {}
    for f in findings:
        found = _number_place(f, places, by_line.get(f.number.where, []))
        if found.supported and (best := usual.get(f.number.where)) is not None and found.place != best \
                and f.source is not None and places.regions.get((best.page, f.source.text)) == best.region:
            found = NumberPlace(found.text, True, best, derived_from=found.derived_from)  # a row of one table
        if f.number.text not in out or (found.supported and not out[f.number.text].supported):
            out[f.number.text] = found
    return out


def _usual(line: list[Finding], places: PaperPlaces) -> Place | None:
    """The table or figure most numbers of a note's line stand in (a number the paper also prints elsewhere
    is placed there too, when that table has it), or ``None``."""
    counts = Counter(p for f in line if f.source is not None and (p := places.place(f.source)).region is not None)
    return counts.most_common(1)[0][0] if counts else None


def _number_place(f: Finding, places: PaperPlaces, line: list[Finding]) -> NumberPlace:
    text = f.number.text
    if f.source is not None:
        return NumberPlace(text, True, places.place(f.source))
    if f.supported:  # derived: it stands where the supported number of its line does
        anchor = next((g for g in line if g is not f), None)
        if anchor is None or anchor.source is None:
            return NumberPlace(text, True, None)
        return NumberPlace(text, True, places.place(anchor.source), derived_from=anchor.number.text)
    if f.nearest is None:
        return NumberPlace(text, False, None)
    return NumberPlace(text, False, places.place(f.nearest), nearest=f.nearest.text)
