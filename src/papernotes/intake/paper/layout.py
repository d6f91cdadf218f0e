"""Reading stage, layout: a page's positioned fragments become lines in reading order.

In: a ``RawPage``. Out: ``Line`` records, top to bottom, two-column pages
left column first. A page has two columns when an empty vertical gutter runs
through its middle with text on both sides; lines that cross it (a title, an
abstract, a wide table or caption) split the page into bands, read in turn:
band 1 left, band 1 right, the full-width line, band 2 left… Single-column
pages are read top to bottom. Fragments on one baseline join into one line;
wide gaps between them (table cells) become two spaces, numbers untouched.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from papernotes.intake.paper.extract import Fragment, RawPage

BIN = 2.0
"""Width in points of the bins the gutter search counts crossings in."""
CELL_GAP = 1.0
"""A gap wider than this many ems between fragments of one line separates table cells."""
RUN_GAP = 0.8
"""A gap wider than this many ems between fragments on one baseline ends a run (a column's line, a cell)."""
PROSE_RUN = 20
"""Characters in a run that reads as a line of prose; a column has most of its characters in such runs."""
CENTRED_GAP = 1.6
"""Ems of white at most where a centred full-width line crosses the gutter (a column gap is wider)."""


@dataclass(frozen=True, slots=True)
class Line:
    text: str
    page: int
    x: float
    """Left edge."""
    right: float
    """Estimated right edge."""
    y: float
    """Baseline (grows upwards)."""
    size: float
    bold: bool
    column: int
    """0 on single-column pages and for full-width lines, 1 left column, 2 right column."""
    band: int
    """Region of the page between full-width lines; a change of band or column is a jump in the flow."""
    cells: int
    """Runs of text separated by wide gaps: 1 for prose, several for a table row."""


def _runs(frags: Sequence[Fragment]) -> list[list[Fragment]]:
    """Fragments grouped into runs: on one baseline, less than ``RUN_GAP`` ems apart, left to right.

    pdflatex draws a line as many fragments (math, superscripts, font changes);
    a run is the line, or the part of it on one side of a gutter or in one table cell.
    """
    out: list[list[Fragment]] = []
    for line in _baselines(frags):
        line.sort(key=lambda f: f.x)
        run = [line[0]]
        for prev, cur in zip(line, line[1:]):
            if cur.x - (prev.x + prev.width) > RUN_GAP * max(prev.size, cur.size, 1.0):
                out.append(run)
                run = []
            run.append(cur)
        out.append(run)
    return out


def _baselines(frags: Sequence[Fragment]) -> list[list[Fragment]]:
    """Fragments grouped by baseline (superscripts and subscripts with their line), top to bottom.

    Each is compared with the line's main fragment (its largest type, then its longest text), not with
    the first one met: a raised superscript must not push the line's subscripts out of it.
    """
    out: list[list[Fragment]] = []
    main: Fragment | None = None
    for f in sorted(frags, key=lambda f: (-f.y, f.x)):
        if main is not None and abs(main.y - f.y) <= 0.45 * max(main.size, f.size, 1.0):
            out[-1].append(f)
            if (f.size, len(f.text)) > (main.size, len(main.text)):
                main = f
        else:
            out.append([f])
            main = f
    return out


def _chars(run: Sequence[Fragment]) -> int:
    return sum(len(f.text.strip()) for f in run)


def _right(run: Sequence[Fragment]) -> float:
    return max(f.x + f.width for f in run)


def find_gutter(page: RawPage) -> float | None:
    """Left edge of the right column, or ``None`` for a single-column page.

    Found from where runs of text *start* (exact) rather than where they end (estimated):
    the most common start in the middle of the page, when the text starting there
    and the text left of it both look like prose columns: most of their characters
    in long runs (table cells and figure labels are short).
    """
    frags = page.fragments
    if len(frags) < 10 or page.width <= 0:
        return None
    runs = _runs(frags)
    starts = Counter(round(r[0].x / BIN) for r in runs if 0.4 * page.width <= r[0].x <= 0.7 * page.width)
    if not starts:
        return None
    peak = starts.most_common(1)[0][0] * BIN
    edge = min(r[0].x for r in runs if peak - 3 * BIN - 16 <= r[0].x <= peak + BIN)  # indented lines start right of it
    right = [r for r in runs if r[0].x >= edge - BIN]
    right_width = max(_right(r) for r in right) - edge
    left = [r for r in runs if r[0].x < edge - BIN and _right(r) <= edge + 0.5 * right_width]
    chars = sum(_chars(r) for r in runs)
    for side, lines in ((left, 5), (right, 3)):  # a last page's right column may be short
        total = sum(_chars(r) for r in side)
        if (len({round(r[0].y) for r in side}) < lines or total < 0.05 * chars
                or sum(_chars(r) for r in side if _chars(r) >= PROSE_RUN) < 0.5 * total):
            return None
    # a short right column (a last page) counts when no line of prose crosses the gutter beside it or below its
    # top (full-width floats and the title block sit above the columns, footers below the left column's text)
    high = max(r[0].y for r in right if _chars(r) >= PROSE_RUN)
    low = min(r[0].y for r in (*left, *right) if _chars(r) >= PROSE_RUN)
    if min(sum(_chars(r) for r in side) for side in (left, right)) < 0.15 * chars and any(
            low <= r[0].y <= high and r[0].x < edge - BIN and _right(r) > edge + 2 * r[0].size
            and _chars(r) >= PROSE_RUN for r in runs):
        return None
    return edge - BIN


def _columns(page: RawPage, gutter: float) -> dict[int, list[Fragment]]:
    """The page's fragments by column: 1 left, 2 right, 0 full width.

    A run that reaches well into the right column is full width (widths are estimates: a
    left-column line may seem to overshoot a little), and so is a whole centred line with text
    on both sides of the gutter and no column gap in it (an affiliation line under the title).
    """
    frags = page.fragments
    right_width = max((_right([f]) for f in frags if f.x >= gutter), default=page.width) - gutter
    left_edge, right_edge = min(f.x for f in frags), max(_right([f]) for f in frags)
    out: dict[int, list[Fragment]] = {0: [], 1: [], 2: []}
    for line in _baselines(frags):
        runs = _runs(line)
        sides = [2 if r[0].x >= gutter else 0 if _right(r) > gutter + 0.5 * right_width else 1 for r in runs]
        if _centred(runs, gutter, left_edge, right_edge):
            sides = [0] * len(runs)
        for run, side in zip(runs, sides):
            out[side].extend(run)
    return out


def _centred(runs: Sequence[Sequence[Fragment]], gutter: float, left_edge: float, right_edge: float) -> bool:
    """A line centred on the page across the gutter, with no column gap in it (a title, an author line)."""
    size = max(f.size for r in runs for f in r)
    x0, x1 = runs[0][0].x, max(_right(r) for r in runs)
    if not (x0 > left_edge + 2 * size and x1 < right_edge - 2 * size and x0 < gutter - size < gutter + size < x1
            and abs((x0 + x1) - (left_edge + right_edge)) < 4 * size):
        return False
    before = max((_right(r) for r in runs if r[0].x < gutter), default=x0)
    after = min((r[0].x for r in runs if r[0].x >= gutter), default=x1)
    return before >= gutter or after - before <= CENTRED_GAP * size


def _join(frags: list[Fragment]) -> tuple[str, int]:
    """One line's text; cells (runs separated by a wide gap) joined by two spaces."""
    frags.sort(key=lambda f: f.x)
    cells = [[frags[0].text]]
    for prev, cur in zip(frags, frags[1:]):
        gap = cur.x - (prev.x + prev.width)
        if gap > CELL_GAP * max(prev.size, cur.size, 1.0):
            cells.append([])
        elif not (cells[-1] and (cells[-1][-1].endswith(" ") or cur.text.startswith(" "))) and gap > 0.15 * cur.size:
            cells[-1].append(" ")
        cells[-1].append(cur.text)
    texts = [" ".join("".join(cell).split()) for cell in cells]
    texts = [t for t in texts if t]
    return "  ".join(texts), max(1, len(texts))


def _lines(frags: list[Fragment], page: int, column: int) -> list[Line]:
    """Fragments of one column grouped by baseline, top to bottom."""
    return [_line(group, page, column) for group in _baselines(frags)]


def _line(group: list[Fragment], page: int, column: int) -> Line:
    main = max(group, key=lambda f: len(f.text))
    text, cells = _join(list(group))
    chars = sum(len(f.text) for f in group) or 1
    bold = sum(len(f.text) for f in group if f.bold) > chars / 2
    return Line(text, page, min(f.x for f in group), max(f.x + f.width for f in group), main.y, main.size,
                bold, column, 0, cells)


def reading_order(page: RawPage) -> list[Line]:
    """The page's lines as a reader reads them."""
    if not page.fragments:
        return []
    gutter = find_gutter(page)
    if gutter is None:
        return _lines(list(page.fragments), page.number, 0)
    by_column = _columns(page, gutter)
    wide = _lines(by_column[0], page.number, 0)  # already top to bottom
    columns = [*_lines(by_column[1], page.number, 1), *_lines(by_column[2], page.number, 2)]

    def band(y: float) -> int:
        return sum(1 for line in wide if line.y > y)

    out: list[Line] = []
    for k in range(len(wide) + 1):
        for col in (1, 2):
            out.extend(_with_band(line, 2 * k) for line in columns if line.column == col and band(line.y) == k)
        if k < len(wide):
            out.append(_with_band(wide[k], 2 * k + 1))
    return out


def _with_band(line: Line, band: int) -> Line:
    return Line(line.text, line.page, line.x, line.right, line.y, line.size, line.bold, line.column, band, line.cells)


def rows(page: RawPage) -> list[Line]:
    """The page's lines top to bottom across its whole width, columns ignored: the title block above them."""
    return _lines(list(page.fragments), page.number, 0) if page.fragments else []
