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
from dataclasses import dataclass
from statistics import median

from papernotes.intake.paper.extract import Fragment, RawPage

BIN = 2.0
"""Width in points of the bins the gutter search counts crossings in."""
CELL_GAP = 1.0
"""A gap wider than this many ems between fragments of one line separates table cells."""


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


def find_gutter(page: RawPage) -> float | None:
    """Left edge of the right column, or ``None`` for a single-column page.

    Found from where lines *start* (exact) rather than where they end (estimated):
    the most common start in the middle of the page, when the text starting there
    and the text left of it both look like prose columns (table cells are short).
    """
    frags = page.fragments
    if len(frags) < 10 or page.width <= 0:
        return None
    starts = Counter(round(f.x / BIN) for f in frags if 0.4 * page.width <= f.x <= 0.7 * page.width)
    if not starts:
        return None
    peak = starts.most_common(1)[0][0] * BIN
    edge = min(f.x for f in frags if peak - 3 * BIN - 16 <= f.x <= peak + BIN)  # indented lines start right of it
    right = [f for f in frags if f.x >= edge - BIN]
    right_width = max(f.x + f.width for f in right) - edge
    left = [f for f in frags if f.x < edge - BIN and f.x + f.width <= edge + 0.5 * right_width]
    chars = sum(len(f.text) for f in frags)
    for side in (left, right):
        if (len({round(f.y) for f in side}) < 5 or sum(len(f.text) for f in side) < 0.15 * chars
                or median(len(f.text) for f in side) < 12):
            return None
    return edge - BIN


def _column(f: Fragment, gutter: float, right_width: float) -> int:
    if f.x >= gutter:
        return 2
    # widths are estimates: a left-column line may seem to overshoot a little, a full-width one goes far
    return 0 if f.x + f.width > gutter + 0.5 * right_width else 1


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
    out: list[Line] = []
    ordered = sorted(frags, key=lambda f: (-f.y, f.x))
    group: list[Fragment] = []
    for f in ordered:
        if group and abs(group[0].y - f.y) > 0.45 * max(group[0].size, f.size, 1.0):
            out.append(_line(group, page, column))
            group = []
        group.append(f)
    if group:
        out.append(_line(group, page, column))
    return out


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
    right_width = max((f.x + f.width for f in page.fragments if f.x >= gutter), default=page.width) - gutter
    by_column: dict[int, list[Fragment]] = {0: [], 1: [], 2: []}
    for f in page.fragments:
        by_column[_column(f, gutter, right_width)].append(f)
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
