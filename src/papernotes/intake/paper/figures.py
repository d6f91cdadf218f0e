"""Reading stage, figures: a PDF's figures and tables, found from their captions.

In: the PDF's bytes. Out: ``Figure`` records (label, page, box in PDF points with the origin bottom-left,
caption) for figures and tables, every caption found listed (one whose picture was not found has the box
``NOWHERE``). Rendering a found box is ``papernotes.intake.paper.picture`` (re-exported here).

A caption is a line that starts a paragraph with a label (``papernotes.intake.paper.vocab``); side-by-side
captions on one line are each their own, with half the line between them; a label standing alone joins the
caption's words right of it. A figure is what the page draws next to its caption (above it, else below), with
the text among its drawings (axis labels, sub-captions), up to the body text, another caption or a table; a
figure of rules only, or thinner than ``MIN_SIDE``, is none. A table is the text rows and rules under its
caption or above it: which side, the paper says (the side its unambiguous tables take, then for the others);
its rows of cells are read by ``papernotes.intake.paper.tables``.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from papernotes.intake.paper.graphics import Box, page_graphics
from papernotes.intake.paper.model import Figure
from papernotes.intake.paper.pdfdoc import PDFIUM, open_document, pdfium
from papernotes.intake.paper.picture import Image, encode, render_figure, render_picture
from papernotes.intake.paper.runs import TERMINAL, Run, label_runs, text_runs
from papernotes.intake.paper.tables import table_rows
from papernotes.intake.paper.vocab import CAPTION, HEADING, LABEL, PANEL, Kind, caption_label

__all__ = ["NOWHERE", "Figure", "Image", "encode", "find_figures", "render_figure", "render_picture"]

MARGIN = 0.05
"""Share of the page height at the top and bottom (running headers, page numbers) where no figure starts."""
JOIN_GAP = 40.0
"""Points between two drawing objects (or labels) that still belong to one figure."""
LABEL_REACH = 6.0
"""Points beside a figure's drawings within which text is its own (tick labels, an axis title)."""
TEXT_PAST = 3.0
"""Points past the farthest drawing that a figure's text may reach (a panel title set on its frame)."""
RULE = 2.0
"""Points: a drawing this thin is a rule, a figure of nothing but rules is none."""
MIN_SIDE = 12.0
"""Points: a figure narrower or lower than this is a sliver, not a picture."""
FULL_LINE = 0.95
"""Share of a line of body text from which a line of words inside a table's reach is the body's."""
NOWHERE: Box = (0.0, 0.0, 0.0, 0.0)
"""The box of a caption whose figure or table was not found (``Figure.located`` is false)."""


@dataclass
class _Caption:
    index: int
    kind: Kind
    number: int
    label: str
    span: tuple[float, float]
    text: str = ""
    bottom: float = 0.0
    down: Box | None = None
    """A table's rows under the caption, if any."""
    up: Box | None = None
    """A table's rows over the caption, if any."""


@dataclass
class _Page:
    number: int
    page: Any
    textpage: Any
    frame: Box
    runs: list[Run]
    graphics: list[Box]
    column: float
    """The width of a full line of body text."""
    justified: bool
    """Whether the body's lines are justified (so all as wide as ``column``)."""
    captions: list[_Caption]

    def close(self) -> None:
        self.textpage.close()
        self.page.close()


def find_figures(path: str, data: bytes) -> tuple[tuple[Figure, ...], tuple[Figure, ...]]:
    """(figures, tables) of the PDF, each label once, in page order; raises ``PaperError`` like
    ``extract_document``. A label found on several pages is the first one whose picture was found."""
    error = pdfium().PdfiumError
    found: list[Figure] = []
    with PDFIUM:
        doc = open_document(path, data)
        pages: list[_Page] = []
        try:
            for index in range(len(doc)):
                try:
                    state = _read_page(doc[index], index + 1)
                except error:  # pdfium on a malformed page: that page's figures are lost, not the others
                    continue
                if state is not None:
                    pages.append(state)
            below = _captions_below(pages)
            for state in pages:
                found += _page_figures(state, below)
        finally:
            for state in pages:
                state.close()
            doc.close()
    chosen: dict[str, Figure] = {}
    for figure in sorted(found, key=lambda f: (f.page, -f.bbox[3])):
        if figure.label not in chosen or (figure.located and not chosen[figure.label].located):
            chosen[figure.label] = figure
    ordered = sorted(chosen.values(), key=lambda f: (f.page, f.number))
    return tuple(f for f in ordered if f.kind == "figure"), tuple(f for f in ordered if f.kind == "table")


def _read_page(page: Any, number: int) -> _Page | None:
    """A page's text runs, drawings and captions, or ``None`` (page closed) when it has no caption."""
    textpage = page.get_textpage()
    if not LABEL.search(textpage.get_text_range()):
        textpage.close()  # no caption here: its text boxes (most of the time taken here) are not needed
        page.close()
        return None
    frame = page.get_bbox()  # user space: a page box need not start at (0, 0)
    runs = label_runs(textpage, text_runs(textpage))
    two = _two_columns(runs, frame)
    graphics = _decorations_out(page_graphics(page, frame), runs, frame)
    column, justified = _line_width(runs, frame, two)
    state = _Page(number, page, textpage, frame, runs, graphics, column, justified, [])
    for i, run in enumerate(runs):
        what = caption_label(run.text) if run.labelled else None
        if what is None:
            continue
        span = _span(run, two, frame)
        if _starts_paragraph(runs, i, graphics, span):
            state.captions.append(_Caption(i, *what, span))
    _share_lines(state)
    for cap in state.captions:
        cap.text, cap.bottom = _caption(runs, cap.index, cap.span)
        if cap.kind == "table":
            cap.down, cap.up = _table_boxes(state, cap)
    return state


def _captions_below(pages: Sequence[_Page]) -> bool:
    """Whether the paper sets table captions under their tables: the side most tables found on one side only
    take (a CVPR paper's ``Table 3`` over ``Table 4``'s rows is taken by neither on its own)."""
    votes = [cap.up is not None for state in pages for cap in state.captions
             if cap.kind == "table" and (cap.up is None) != (cap.down is None)]
    return sum(votes) > len(votes) - sum(votes)


def _page_figures(state: _Page, below: bool) -> list[Figure]:
    """The figures and tables whose captions are on this page (tables first: a figure never reaches into one)."""
    out: list[Figure] = []
    claimed: list[Box] = []
    for cap in state.captions:
        if cap.kind != "table":
            continue
        options = (cap.up, cap.down) if below else (cap.down, cap.up)
        box = next((b for b in options if b is not None and not _taken(b, claimed)), None)
        rows: tuple[tuple[str, ...], ...] = ()
        if box is not None:
            claimed.append(box)
            rects = [r for run in state.runs if _inside(run, box) for r in run.rects]
            rules = [g for g in state.graphics if g[3] - g[1] <= RULE and _overlaps(g[0], g[2], box[0], box[2])
                     and box[1] - 1 <= g[1] <= box[3] + 1]
            rows = table_rows(state.textpage, box, rects, rules)
        out.append(_record(state, cap, box, rows))
    for cap in state.captions:
        if cap.kind == "figure":
            box = _figure_box(state, cap, claimed)
            if box is not None:
                claimed.append(box)
            out.append(_record(state, cap, box, ()))
    return out


def _record(state: _Page, cap: _Caption, box: Box | None, rows: tuple[tuple[str, ...], ...]) -> Figure:
    bbox = NOWHERE if box is None else tuple(round(v, 1) for v in box)
    return Figure(cap.kind, cap.label, cap.number, state.number, bbox, cap.text, rows)  # type: ignore[arg-type]


def _decorations_out(graphics: list[Box], runs: Sequence[Run], frame: Box) -> list[Box]:
    """``graphics`` without a running header's or footer's rule: a wide rule right under the page's topmost
    text (or over its lowest) with nothing else beyond it."""
    width, height = frame[2] - frame[0], frame[3] - frame[1]
    out = []
    for g in graphics:
        if g[3] - g[1] <= RULE and g[2] - g[0] >= 0.4 * width:
            top = g[1] > frame[3] - 0.15 * height
            if top or g[3] < frame[1] + 0.15 * height:
                beyond = [r for r in runs if (r.y0 >= g[3] - 0.5 if top else r.y1 <= g[1] + 0.5)]
                clear = not any((o[1] >= g[3] if top else o[3] <= g[1]) for o in graphics if o is not g)
                near = beyond and min((r.y0 - g[3]) if top else (g[1] - r.y1) for r in beyond) <= 1.5 * max(
                    r.height for r in beyond)
                if clear and near and not any(r.labelled for r in beyond):
                    continue
        out.append(g)
    return out


def _span(run: Run, two_columns: bool, frame: Box) -> tuple[float, float]:
    """The horizontal stretch a caption's figure or table may occupy: its column, or the page."""
    width, mid = frame[2] - frame[0], (frame[0] + frame[2]) / 2
    if two_columns and run.x1 <= mid + 0.02 * width:
        return frame[0], mid
    if two_columns and run.x0 >= mid - 0.02 * width:
        return mid, frame[2]
    return frame[0], frame[2]


def _share_lines(state: _Page) -> None:
    """Captions side by side on one line split the line between them: each figure is over its own caption."""
    runs = state.runs
    for cap in state.captions:
        run = runs[cap.index]
        for other in state.captions:
            o = runs[other.index]
            if other is cap or min(o.y1, run.y1) - max(o.y0, run.y0) < 0.5 * min(o.height, run.height):
                continue
            if o.x0 >= run.x1:
                cap.span = (cap.span[0], min(cap.span[1], (run.x1 + o.x0) / 2))
            elif o.x1 <= run.x0:
                cap.span = (max(cap.span[0], (o.x1 + run.x0) / 2), cap.span[1])


def _two_columns(runs: Sequence[Run], frame: Box) -> bool:
    """Whether most long lines stay on one side of the middle of the page."""
    width = frame[2] - frame[0]
    long = [r for r in runs if r.x1 - r.x0 > 0.25 * width]
    crossing = sum(1 for r in long if r.x0 < frame[0] + 0.45 * width and r.x1 > frame[0] + 0.55 * width)
    return bool(long) and crossing < 0.3 * len(long)


def _line_width(runs: Sequence[Run], frame: Box, two: bool) -> tuple[float, bool]:
    """The width of a full line of body text and whether the lines are justified: the commonest width of the long
    lines when at least three share it (justified lines are all as wide as their column), else the column's."""
    column = (frame[2] - frame[0]) / (2 if two else 1)
    widths = Counter(round(r.x1 - r.x0) for r in runs if 0.5 * column < r.x1 - r.x0 <= 1.02 * column)
    if not widths:
        return column, False
    width, count = widths.most_common(1)[0]
    return (float(width), True) if count >= 3 else (column, False)


def _overlaps(a0: float, a1: float, b0: float, b1: float) -> bool:
    return min(a1, b1) - max(a0, b0) > 0


def _inside(run: Run, box: Box) -> bool:
    return box[0] - 1 <= run.x0 and run.x1 <= box[2] + 1 and box[1] - 1 <= run.y0 and run.y1 <= box[3] + 1


def _taken(box: Box, claimed: Sequence[Box]) -> bool:
    """Whether most of ``box`` is already another figure's or table's."""
    area = max((box[2] - box[0]) * (box[3] - box[1]), 1.0)
    return any(max(0.0, min(box[2], c[2]) - max(box[0], c[0])) * max(0.0, min(box[3], c[3]) - max(box[1], c[1]))
               > 0.3 * area for c in claimed)


def _starts_paragraph(runs: Sequence[Run], i: int, graphics: Sequence[Box], span: tuple[float, float]) -> bool:
    """No line of body text right above the caption that goes on into it (``… as shown in`` / ``Figure 1. We …``).

    A drawing's own text (an axis label over the caption: inside a drawing, or short) does not count.
    """
    run = runs[i]
    above = [r for r in runs[:i] if r.y0 >= run.y1 - 0.3 * run.height and _overlaps(r.x0, r.x1, run.x0, run.x1)
             and r.x1 - r.x0 >= 0.5 * (span[1] - span[0]) and not any(_inside(r, g) for g in graphics)]
    if not above:
        return True
    near = min(above, key=lambda r: r.y0)
    return near.y0 - run.y1 > 1.2 * run.height or near.text.endswith(TERMINAL)


def _caption(runs: Sequence[Run], i: int, span: tuple[float, float]) -> tuple[str, float]:
    """The whole caption starting at ``runs[i]`` (its following lines, close together) and its lowest edge."""
    parts, bottom, last = [runs[i].text], runs[i].y0, runs[i]
    for r in runs[i + 1:]:
        if last.y0 - r.y1 > 0.8 * last.height or len(parts) >= 25:
            break
        if r.y1 > last.y0 + 0.5 * last.height or not _overlaps(r.x0, r.x1, *span):
            continue
        if last.text.endswith(TERMINAL) and abs(r.x0 - runs[i].x0) > 2.0:
            break  # a sentence ended and the next line does not start where the caption's lines do: a table's header
        row = [o for o in runs if o is not r and abs(o.y0 - r.y0) < 0.4 * r.height and _overlaps(o.x0, o.x1, *span)]
        if row or (r.labelled and CAPTION.match(r.text)):  # a table's first row, or the next caption
            break
        parts.append(r.text)
        bottom, last = min(bottom, r.y0), r
    text = " ".join(" ".join(parts).split())
    return re.sub(r"(\w)- (\w)", r"\1\2", text) if "- " in text else text, bottom


def _is_prose(run: Run, column: float, full: float) -> bool:
    if run.x1 - run.x0 < full * column:
        return False
    return _words(run) >= 6


def _stops(run: Run, state: _Page, span: tuple[float, float], full: float = 0.55) -> bool:
    """Body text (a line of words ``full`` of a line wide, not framed by a drawing), a section's heading or another
    caption: where a figure or table ends. A table's header row can be as wordy as a sentence: for a table only a
    full line of words counts (``full`` near 1)."""
    if run.labelled and CAPTION.match(run.text) is not None or HEADING.match(run.text):
        return True
    column = min(span[1] - span[0], state.column)
    return _is_prose(run, column, full if state.justified else min(full, 0.55)) and not PANEL.match(run.text) and not any(
        _inside(run, g) for g in state.graphics)


def _figure_box(state: _Page, cap: _Caption, claimed: Sequence[Box]) -> Box | None:
    """The drawings next to the caption, above it, else below it."""
    return _grow(state, cap, claimed, True) or _grow(state, cap, claimed, False)


def _grow(state: _Page, cap: _Caption, claimed: Sequence[Box], upward: bool) -> Box | None:
    """The drawings and their labels reachable from the caption in steps of at most ``JOIN_GAP`` points, up to
    body text, a caption or a claimed box; ``None`` when that is no picture (rules only, or a sliver)."""
    run, frame, span = state.runs[cap.index], state.frame, cap.span
    margin = MARGIN * (frame[3] - frame[1])
    low, high = frame[1] + margin, frame[3] - margin
    edge = run.y1 if upward else cap.bottom
    ahead = [r for r in state.runs if _overlaps(r.x0, r.x1, *span)
             and (r.y0 >= edge - 0.5 if upward else r.y1 <= edge + 0.5)]
    ahead.sort(key=lambda r: r.y0 if upward else -r.y1)
    # only text over the caption ends its figure: a wrapped figure has the body's lines beside it
    stop = next((r for r in ahead if _overlaps(r.x0, r.x1, run.x0, run.x1) and _stops(r, state, span)), None)
    limit = (stop.y0 if stop else high) if upward else (stop.y1 if stop else low)
    for c in claimed:
        if _overlaps(c[0], c[2], *span):
            limit = min(limit, c[1]) if upward and c[1] >= edge - 0.5 else limit
            limit = max(limit, c[3]) if not upward and c[3] <= edge + 0.5 else limit
    ends = ((edge - 2, limit + 2) if upward else (limit - 2, edge + 2))
    # a drawing wholly in the top or bottom margin is the page's (a logo, a page number's ornament)
    items = [(g, True) for g in state.graphics if _overlaps(g[0], g[2] + 0.1, *span) and g[3] > low
             and g[1] < high and ends[0] <= g[1] and g[3] <= ends[1] and not _owned(g, claimed)]
    items += [(r.box, False) for r in ahead if ends[0] <= r.y0 and r.y1 <= ends[1] and not _owned(r.box, claimed)
              and _label_like(r, state)]
    items.sort(key=lambda item: item[0][1] if upward else -item[0][3])
    reach, members = edge, []
    for box, drawn in items:
        if (box[1] - reach if upward else reach - box[3]) > JOIN_GAP:
            break
        members.append((box, drawn))
        reach = max(reach, box[3]) if upward else min(reach, box[1])
    shapes = [b for b, drawn in members if drawn]
    if not any(b[2] - b[0] > RULE and b[3] - b[1] > RULE for b in shapes):
        return None
    found = _union(shapes)
    far = found[3] if upward else found[1]
    labels = [b for b, drawn in members if not drawn and (b[3] <= far + TEXT_PAST if upward else b[1] >= far - TEXT_PAST)]
    grown = True
    while grown:  # labels beside the drawings, or beside labels already taken (an axis title by its ticks)
        grown = False
        for b in labels:
            if b[0] < found[2] + LABEL_REACH and b[2] > found[0] - LABEL_REACH and not (
                    found[0] <= b[0] and b[2] <= found[2] and found[1] <= b[1] and b[3] <= found[3]):
                if b[1] < found[3] + LABEL_REACH and b[3] > found[1] - LABEL_REACH:
                    found, grown = _union([found, b]), True
    if found[2] - found[0] < MIN_SIDE or found[3] - found[1] < MIN_SIDE:
        return None
    return found


def _label_like(run: Run, state: _Page) -> bool:
    """Whether a line can be a figure's own text: few words (a tick, a legend, an axis title), a panel's
    sub-caption, or words framed by a drawing; a sentence beside a figure (the body wrapped around it) is not."""
    if _words(run) < 6 or PANEL.match(run.text):
        return True
    return any(_inside(run, g) for g in state.graphics)


def _words(run: Run) -> int:
    return sum(1 for w in run.text.split() if len(w) > 1 and w[0].isalpha())


def _owned(box: Box, claimed: Sequence[Box]) -> bool:
    """Whether the middle of ``box`` lies in a claimed box."""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(c[0] <= x <= c[2] and c[1] <= y <= c[3] for c in claimed)


def _union(boxes: Sequence[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _table_boxes(state: _Page, cap: _Caption) -> tuple[Box | None, Box | None]:
    """(rows and rules under the caption, those over it): lines close together, up to body text or a caption."""
    run, span = state.runs[cap.index], cap.span
    rules: list[tuple[Box, Run | None]] = [(g, None) for g in state.graphics if g[3] - g[1] <= RULE
                                           and _overlaps(g[0], g[2], *span)]
    texts: list[tuple[Box, Run | None]] = [(r.box, r) for r in state.runs
                                           if not (r.y0 >= cap.bottom - 0.5 and r.y1 <= run.y1 + 0.5)
                                           and _overlaps(r.x0, r.x1, *span)]
    out: list[Box | None] = []
    for downward in (True, False):
        edge = cap.bottom if downward else run.y1
        side = [(b, r) for b, r in (*texts, *rules) if (b[3] <= edge + 0.5 if downward else b[1] >= edge - 0.5)]
        side.sort(key=lambda item: -item[0][3] if downward else item[0][1])
        found: Box | None = None
        ruled: list[Box] = []
        rows: list[int] = []
        for b, r in side:
            gap = edge - b[3] if downward else b[1] - edge
            if gap > (3.0 if found is None else 2.2) * run.height or (r is not None and _stops(r, state, span, FULL_LINE)):
                break
            found = b if found is None else _union([found, b])
            ruled += [b] if r is None else []
            rows += [round((b[1] + b[3]) / 2 / run.height)] if r is not None else []
            edge = min(edge, b[1]) if downward else max(edge, b[3])
        if found is not None and ruled:  # a ruled table ends at its last rule; text past it is the body's
            found = ((found[0], min(b[1] for b in ruled), found[2], found[3]) if downward
                     else (found[0], found[1], found[2], max(b[3] for b in ruled)))
        # rows, or cells side by side under a rule: not one short line at the end of a paragraph
        table = rows and (len(set(rows)) >= 2 or (ruled and len(rows) > len(set(rows))))
        out.append(found if table and found is not None and found[3] - found[1] >= RULE else None)
    return out[0], out[1]
