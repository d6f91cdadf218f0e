"""Reading stage, figures: a PDF's figures and tables, found from their captions, and their pictures.

In: the PDF's bytes. Out: ``Figure`` records (label, page, box in PDF points
with the origin bottom-left, caption) for figures and tables, and on request
one of them rendered as an ``Image`` (WebP or PNG). The only module that
imports pypdfium2 (the ``pdf`` extra).

A caption is a line that starts a paragraph with ``Figure N``/``Fig. N``/``Table
N``, with or without punctuation after the number (without it, the next word
must be capitalised: ``Table 1 reports …`` is a sentence, ``Figure 1 RL
training …`` a caption). A figure is the drawing, image and form objects next
to its caption (above it, else below), up to the body text around it; a table
is the text rows and rules under its caption (else above it); its rows of cells
are read by ``papernotes.intake.paper.tables``.
"""
from __future__ import annotations

import io
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from papernotes.extras import require
from papernotes.intake.paper.cleanup import CAPTION, caption_label, clean_text
from papernotes.intake.paper.extract import sniff
from papernotes.intake.paper.model import Figure, PaperError
from papernotes.intake.paper.tables import table_rows

__all__ = ["Figure", "Image", "find_figures", "render_figure"]

LABEL_WORDS = ("Figure", "FIGURE", "Fig.", "FIG.", "Table", "TABLE")
LABEL = re.compile(r"(?:Fig(?:ure)?\.?|FIG(?:URE)?\.?|Table|TABLE)\s*\d")
"""A caption's label anywhere in a page's text: pages without one are skipped."""
TERMINAL = (".", ":", "?", "!", ";")
MARGIN = 0.05
"""Share of the page height at the top and bottom (running headers, page numbers) never taken into a figure."""
JOIN_GAP = 40.0
"""Points between two drawing objects that still belong to one figure."""
PDFIUM = threading.Lock()
"""PDFium is not thread-safe (pypdfium2 says so): every use of it holds this lock. The LLM engines read
papers in worker threads; two of them in pdfium at once crashed the process."""
PAD = 2.0
"""Points of white kept around a rendered figure."""
WEBP_QUALITY = 90
WEBP_METHOD = 0
"""WebP's fastest method. Lossless first: plots, diagrams and tables (text and lines) come out smaller than PNG or
lossy WebP, sharp, in PNG's time; past ``LOSSY_PAST`` bytes a pixel (a photograph) lossy quality 90 is tried too and
the smaller kept (BENCHMARKS.md)."""
LOSSY_PAST = 0.125
Box = tuple[float, float, float, float]


class Run:
    """Text that pdfium reports as one rectangle (rectangles on one baseline joined when close).

    Its text is read when first asked for: pdfium scans the whole page for each rectangle, and most of a page's
    rectangles only need their position.
    """

    __slots__ = ("x0", "y0", "x1", "y1", "rects", "textpage", "labelled", "_text")

    def __init__(self, rects: list[Box], textpage: Any) -> None:
        self.x0, self.y0 = min(r[0] for r in rects), min(r[1] for r in rects)
        self.x1, self.y1 = max(r[2] for r in rects), max(r[3] for r in rects)
        self.rects = rects
        self.textpage = textpage
        self.labelled = False
        """Begins with a label word (``_label_runs``): only such a run can be a caption."""
        self._text: str | None = None

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)

    @property
    def text(self) -> str:
        if self._text is None:
            parts = (clean_text(self.textpage.get_text_bounded(*r)) for r in self.rects)
            self._text = " ".join(" ".join(parts).split())
        return self._text


@dataclass(frozen=True, slots=True)
class Image:
    data: bytes
    format: Literal["webp", "png"]
    width: int
    height: int


def open_document(path: str, data: bytes) -> Any:
    """A ``pypdfium2.PdfDocument``; a ``PaperError`` for what cannot be opened (as ``extract_document`` says it)."""
    pdfium = require("pypdfium2", "finding figures in PDFs")
    sniff(path, data)
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise PaperError(path, "encrypted PDF: it needs a password; save an unprotected copy",
                             "encrypted") from None
        raise PaperError(path, f"cannot read PDF: {exc}", "unreadable") from None


def _runs(textpage: Any) -> list[Run]:
    """The page's text rectangles, top to bottom; neighbours on one line less than an em apart joined.

    Glyph boxes are tight (a run with descenders reaches lower than one without), so a line is rectangles that
    overlap vertically by half their height, not ones with the same middle.
    """
    rects = [textpage.get_rect(i) for i in range(textpage.count_rects())]
    rects.sort(key=lambda r: -(r[1] + r[3]))
    lines: list[list[Box]] = []
    for r in rects:
        line = lines[-1] if lines else None
        if line is not None and min(line[0][3], r[3]) - max(line[0][1], r[1]) >= 0.5 * min(
                r[3] - r[1], line[0][3] - line[0][1]):
            line.append(r)
        else:
            lines.append([r])
    groups: list[list[Box]] = []
    for line in lines:
        line.sort(key=lambda r: r[0])
        groups.append([line[0]])
        for r in line[1:]:
            last = groups[-1][-1]
            if -1.0 <= r[0] - last[2] < max(r[3] - r[1], 1.0):
                groups[-1].append(r)
            else:
                groups.append([r])
    return [Run(group, textpage) for group in groups]


def _label_runs(textpage: Any, runs: Sequence[Run]) -> list[int]:
    """Indexes of the runs that begin with a label word (``Figure``, ``Fig.``, ``Table``), found by pdfium's search;
    each marked ``labelled``."""
    out: set[int] = set()
    for word in LABEL_WORDS:
        searcher = textpage.search(word, match_case=True)
        while (hit := searcher.get_next()) is not None:
            left, bottom, _, top = textpage.get_charbox(hit[0])
            middle = (bottom + top) / 2
            out.update(k for k, run in enumerate(runs) if abs(run.x0 - left) < 1.5 and run.y0 - 1 <= middle <= run.y1 + 1)
    for k in out:
        runs[k].labelled = True
    return sorted(out)


def _graphics(page: Any, frame: Box) -> list[Box]:
    """Bounds of the page's image, path and form objects (top level), page-size backgrounds left out."""
    raw = require("pypdfium2", "finding figures in PDFs").raw
    kinds = (raw.FPDF_PAGEOBJ_IMAGE, raw.FPDF_PAGEOBJ_PATH, raw.FPDF_PAGEOBJ_SHADING, raw.FPDF_PAGEOBJ_FORM)
    left, bottom, right, top = (raw.FS_FLOAT(), raw.FS_FLOAT(), raw.FS_FLOAT(), raw.FS_FLOAT())
    out: list[Box] = []
    for i in range(raw.FPDFPage_CountObjects(page.raw)):
        obj = raw.FPDFPage_GetObject(page.raw, i)
        if raw.FPDFPageObj_GetType(obj) not in kinds or not raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
            continue
        box = (left.value, bottom.value, right.value, top.value)
        if (box[2] - box[0]) * (box[3] - box[1]) < 0.6 * (frame[2] - frame[0]) * (frame[3] - frame[1]):
            out.append(box)
    return out


def _span(run: Run, two_columns: bool, frame: Box) -> tuple[float, float]:
    """The horizontal stretch a caption's figure or table may occupy: its column, or the page."""
    width, mid = frame[2] - frame[0], (frame[0] + frame[2]) / 2
    if two_columns and run.x1 <= mid + 0.02 * width:
        return frame[0], mid
    if two_columns and run.x0 >= mid - 0.02 * width:
        return mid, frame[2]
    return frame[0], frame[2]


def _two_columns(runs: Sequence[Run], frame: Box) -> bool:
    """Whether most long lines stay on one side of the middle of the page."""
    width = frame[2] - frame[0]
    long = [r for r in runs if r.x1 - r.x0 > 0.25 * width]
    crossing = sum(1 for r in long if r.x0 < frame[0] + 0.45 * width and r.x1 > frame[0] + 0.55 * width)
    return bool(long) and crossing < 0.3 * len(long)


def _overlaps(a0: float, a1: float, b0: float, b1: float) -> bool:
    return min(a1, b1) - max(a0, b0) > 0


def _inside(run: Run, box: Box) -> bool:
    return box[0] - 1 <= run.x0 and run.x1 <= box[2] + 1 and box[1] - 1 <= run.y0 and run.y1 <= box[3] + 1


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


def _is_prose(run: Run, span: tuple[float, float]) -> bool:
    if run.x1 - run.x0 < 0.55 * (span[1] - span[0]):
        return False
    return sum(1 for w in run.text.split() if len(w) > 1 and w[0].isalpha()) >= 6


def _figure_box(runs: Sequence[Run], graphics: Sequence[Box], i: int, bottom: float, span: tuple[float, float],
                frame: Box, claimed: Sequence[Box]) -> Box | None:
    """The graphics above the caption (else below it), up to the nearest body text, caption or table."""
    cap = runs[i]
    margin = MARGIN * (frame[3] - frame[1])
    low, high = frame[1] + margin, frame[3] - margin
    beside = [r for r in runs if r is not cap and _overlaps(r.x0, r.x1, *span)]
    tables = [b for b in claimed if _overlaps(b[0], b[2], *span)]
    inside = [g for g in graphics if _overlaps(g[0], g[2] + 0.1, *span) and g[1] >= low and g[3] <= high]
    above = sorted((r for r in beside if r.y0 >= cap.y1 - 0.5), key=lambda r: r.y0)
    ceiling = min([next((r.y0 for r in above if _stops(r, span)), high), *(b[1] for b in tables if b[1] >= cap.y1)])
    box = _cluster([g for g in inside if g[1] >= cap.y1 - 2 and g[3] <= ceiling + 2], cap.y1, True)
    if box is not None:
        return box
    below = sorted((r for r in beside if r.y1 <= bottom + 0.5), key=lambda r: -r.y1)
    floor = max([next((r.y1 for r in below if _stops(r, span)), low), *(b[3] for b in tables if b[3] <= bottom)])
    return _cluster([g for g in inside if g[3] <= bottom + 2 and g[1] >= floor - 2], bottom, False)


def _stops(run: Run, span: tuple[float, float]) -> bool:
    """Body text or another caption: where a figure or table ends."""
    return _is_prose(run, span) or (run.labelled and CAPTION.match(run.text) is not None)


def _cluster(boxes: list[Box], start: float, upward: bool) -> Box | None:
    """The boxes reachable from ``start`` in steps of at most ``JOIN_GAP`` points, as one box."""
    boxes.sort(key=lambda b: b[1] if upward else -b[3])
    edge, found = start, None
    for b in boxes:
        if (b[1] - edge if upward else edge - b[3]) > JOIN_GAP:
            break
        found = b if found is None else _union(found, b)
        edge = found[3] if upward else found[1]
    return found


def _union(a: Box, b: Box) -> Box:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _table_box(runs: Sequence[Run], graphics: Sequence[Box], i: int, bottom: float, span: tuple[float, float]
               ) -> Box | None:
    """The rows and rules under the caption (else above it): lines close together, up to body text or a caption."""
    cap = runs[i]
    rules: list[tuple[Box, Run | None]] = [(g, None) for g in graphics if g[3] - g[1] <= 2.0
                                           and _overlaps(g[0], g[2], *span)]
    texts: list[tuple[Box, Run | None]] = [((r.x0, r.y0, r.x1, r.y1), r) for r in runs
                                           if r is not cap and _overlaps(r.x0, r.x1, *span)]
    for downward in (True, False):
        edge = bottom if downward else cap.y1
        side = [(b, r) for b, r in (*texts, *rules) if (b[3] <= edge + 0.5 if downward else b[1] >= edge - 0.5)]
        side.sort(key=lambda item: -item[0][3] if downward else item[0][1])
        found: Box | None = None
        ruled: list[Box] = []
        rows: list[int] = []
        for b, r in side:
            gap = edge - b[3] if downward else b[1] - edge
            if gap > 2.2 * cap.height or (r is not None and _stops(r, span)):
                break
            found = b if found is None else _union(found, b)
            ruled += [b] if r is None else []
            rows += [round((b[1] + b[3]) / 2 / cap.height)] if r is not None else []
            edge = min(edge, b[1]) if downward else max(edge, b[3])
        if found is not None and ruled:  # a ruled table ends at its last rule; text past it is the body's
            found = ((found[0], min(b[1] for b in ruled), found[2], found[3]) if downward
                     else (found[0], found[1], found[2], max(b[3] for b in ruled)))
        if found is not None and (ruled or len(rows) > len(set(rows)) or len(set(rows)) >= 2):
            # rules, cells side by side or rows: not one short line at the end of a paragraph
            return found
    return None


def _page_figures(page: Any, number: int, known: set[str]) -> list[Figure]:
    """The figures and tables whose captions are on this page (labels in ``known`` already found elsewhere)."""
    textpage = page.get_textpage()
    if not LABEL.search(textpage.get_text_range()):
        return []  # no caption here: its text boxes (most of the time taken here) are not needed
    frame = page.get_bbox()  # user space: a page box need not start at (0, 0)
    runs = _runs(textpage)
    graphics = _graphics(page, frame)
    two = _two_columns(runs, frame)
    captions = []
    for i in _label_runs(textpage, runs):
        run = runs[i]
        what = caption_label(run.text)
        if what is not None and what[2] not in known and _starts_paragraph(runs, i, graphics, _span(run, two, frame)):
            captions.append((i, what))
    out: list[Figure] = []
    claimed: list[Box] = []
    for wanted in ("table", "figure"):  # tables first: a figure never reaches into one
        for i, (kind, n, label) in captions:
            if kind != wanted or label in known:
                continue
            span = _span(runs[i], two, frame)
            text, bottom = _caption(runs, i, span)
            box = (_table_box(runs, graphics, i, bottom, span) if kind == "table"
                   else _figure_box(runs, graphics, i, bottom, span, frame, claimed))
            if box is None:
                continue
            x0, y0, x1, y1 = (round(v, 1) for v in box)
            claimed.append((x0, y0, x1, y1))
            known.add(label)
            rows = table_rows(textpage, box, [r for run in runs if _inside(run, box) for r in run.rects],
                              [g for g in graphics if g[3] - g[1] <= 2.0 and _overlaps(g[0], g[2], box[0], box[2])
                               and box[1] - 1 <= g[1] <= box[3] + 1]) if kind == "table" else ()
            out.append(Figure(kind, label, n, number, (x0, y0, x1, y1), text, rows))
    return out


def find_figures(path: str, data: bytes) -> tuple[tuple[Figure, ...], tuple[Figure, ...]]:
    """(figures, tables) of the PDF, each label once, in page order; raises ``PaperError`` like ``extract_document``."""
    found: list[Figure] = []
    known: set[str] = set()
    with PDFIUM:
        doc = open_document(path, data)
        try:
            for index in range(len(doc)):
                try:
                    found += _page_figures(doc[index], index + 1, known)
                except Exception:  # pdfium on a malformed page: that page's figures are lost, not the others
                    continue
        finally:
            doc.close()
    found.sort(key=lambda f: (f.page, f.number))
    return tuple(f for f in found if f.kind == "figure"), tuple(f for f in found if f.kind == "table")


def render_figure(data: bytes, figure: Figure, min_width: int = 800) -> Image:
    """The figure's box rendered at a scale giving at least ``min_width`` pixels of width."""
    return encode(render_picture(data, figure, min_width))


def render_picture(data: bytes, figure: Figure, min_width: int = 800) -> Any:
    """The figure's box as a Pillow RGB picture, at least ``min_width`` pixels wide (``render_figure`` unencoded)."""
    require("PIL", "rendering figures")
    with PDFIUM:
        doc = open_document("PDF", data)  # the caller knows which file; PaperError.reason says why
        try:
            page = doc[figure.page - 1]
            left, bottom, right, top = page.get_bbox()
            x0, y0 = max(figure.bbox[0] - PAD, left), max(figure.bbox[1] - PAD, bottom)
            x1, y1 = min(figure.bbox[2] + PAD, right), min(figure.bbox[3] + PAD, top)
            scale = (min_width + 2) / max(x1 - x0, 1.0)  # pdfium rounds the page and each crop apart: up to 1.5 px lost
            # the box is in user space; undo the page's /Rotate so the crop (applied after rotation) is too
            bitmap = page.render(scale=scale, crop=(x0 - left, y0 - bottom, right - x1, top - y1),
                                 rotation=(360 - page.get_rotation()) % 360)
            return bitmap.to_pil().convert("RGB")
        finally:
            doc.close()


def encode(picture: Any, format: Literal["webp", "png"] = "webp") -> Image:
    """A Pillow picture as an ``Image``: WebP (lossless, or lossy when that is smaller for a photograph); PNG when
    asked or when Pillow lacks WebP."""
    data = b""
    if format == "webp":
        try:
            data = _save(picture, "WEBP", lossless=True, method=WEBP_METHOD)
            if len(data) > LOSSY_PAST * picture.width * picture.height:
                data = min(data, _save(picture, "WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD), key=len)
        except (KeyError, OSError):  # a Pillow built without libwebp
            format = "png"
    if format == "png":
        data = _save(picture, "PNG")
    return Image(data, format, picture.width, picture.height)


def _save(picture: Any, format: str, **options: Any) -> bytes:
    out = io.BytesIO()
    picture.save(out, format, **options)
    return out.getvalue()
