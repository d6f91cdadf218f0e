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
is the text rows and rules under its caption (else above it).
"""
from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from papernotes.extras import require
from papernotes.intake.paper.cleanup import CAPTION, caption_label, clean_text
from papernotes.intake.paper.extract import sniff
from papernotes.intake.paper.model import Figure, PaperError

__all__ = ["Figure", "Image", "find_figures", "render_figure"]

TERMINAL = (".", ":", "?", "!", ";")
MARGIN = 0.05
"""Share of the page height at the top and bottom (running headers, page numbers) never taken into a figure."""
JOIN_GAP = 40.0
"""Points between two drawing objects that still belong to one figure."""
PAD = 2.0
"""Points of white kept around a rendered figure."""
WEBP_QUALITY = 90
"""Lossy WebP, see BENCHMARKS.md: smaller than PNG at a fraction of its encoding time, line art kept sharp."""
Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Run:
    """Text that pdfium reports as one rectangle, runs on one baseline joined when close."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)


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
            raise PaperError(path, "encrypted PDF: it needs a password; save an unprotected copy", "encrypted") from None
        raise PaperError(path, f"cannot read PDF: {exc}", "unreadable") from None


def _runs(page: Any) -> list[Run]:
    """The page's text rectangles, top to bottom; neighbours on one baseline less than an em apart joined."""
    textpage = page.get_textpage()
    rects = []
    for i in range(textpage.count_rects()):
        x0, y0, x1, y1 = textpage.get_rect(i)
        text = clean_text(textpage.get_text_bounded(x0, y0, x1, y1))
        if text.strip():
            rects.append(Run(" ".join(text.split()), x0, y0, x1, y1))
    rects.sort(key=lambda r: (-round((r.y0 + r.y1) / 2), r.x0))
    out: list[Run] = []
    for r in rects:
        last = out[-1] if out else None
        if (last is not None and abs((last.y0 + last.y1) / 2 - (r.y0 + r.y1) / 2) < 0.4 * r.height
                and 0 <= r.x0 - last.x1 < r.height):
            out[-1] = Run(f"{last.text} {r.text}", last.x0, min(last.y0, r.y0), r.x1, max(last.y1, r.y1))
        else:
            out.append(r)
    return out


def _graphics(page: Any, width: float, height: float) -> list[Box]:
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
        if (box[2] - box[0]) * (box[3] - box[1]) < 0.6 * width * height:
            out.append(box)
    return out


def _span(run: Run, two_columns: bool, width: float) -> tuple[float, float]:
    """The horizontal stretch a caption's figure or table may occupy: its column, or the page."""
    mid = width / 2
    if two_columns and run.x1 <= mid + 0.02 * width:
        return 0.0, mid
    if two_columns and run.x0 >= mid - 0.02 * width:
        return mid, width
    return 0.0, width


def _two_columns(runs: Sequence[Run], width: float) -> bool:
    long = [r for r in runs if r.x1 - r.x0 > 0.25 * width]
    crossing = sum(1 for r in long if r.x0 < 0.45 * width and r.x1 > 0.55 * width)
    return bool(long) and crossing < 0.3 * len(long)


def _overlaps(a0: float, a1: float, b0: float, b1: float) -> bool:
    return min(a1, b1) - max(a0, b0) > 0


def _starts_paragraph(runs: Sequence[Run], i: int) -> bool:
    """No line right above the caption that goes on into it (``… as shown in`` / ``Figure 1. We …``)."""
    run = runs[i]
    above = [r for r in runs[:i] if r.y0 >= run.y1 - 0.3 * run.height and _overlaps(r.x0, r.x1, run.x0, run.x1)]
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
        if CAPTION.match(r.text):
            break
        parts.append(r.text)
        bottom, last = min(bottom, r.y0), r
    text = " ".join(" ".join(parts).split())
    return re.sub(r"(\w)- (\w)", r"\1\2", text) if "- " in text else text, bottom


def _is_prose(run: Run, span: tuple[float, float]) -> bool:
    words = sum(1 for w in run.text.split() if len(w) > 1 and w[0].isalpha())
    return words >= 6 and run.x1 - run.x0 >= 0.55 * (span[1] - span[0])


def _figure_box(runs: Sequence[Run], graphics: Sequence[Box], i: int, bottom: float, span: tuple[float, float],
                height: float, claimed: Sequence[Box]) -> Box | None:
    """The graphics above the caption (else below it), up to the nearest body text, caption or table."""
    cap = runs[i]
    low, high = MARGIN * height, (1 - MARGIN) * height
    stops = [(r.y0, r.y1) for r in runs if r is not cap and _overlaps(r.x0, r.x1, *span)
             and (CAPTION.match(r.text) or _is_prose(r, span))]
    stops += [(b[1], b[3]) for b in claimed if _overlaps(b[0], b[2], *span)]
    inside = [g for g in graphics if _overlaps(g[0], g[2] + 0.1, *span) and g[1] >= low and g[3] <= high]
    ceiling = min([y0 for y0, _ in stops if y0 >= cap.y1 - 0.5] + [high])
    box = _cluster([g for g in inside if g[1] >= cap.y1 - 2 and g[3] <= ceiling + 2], cap.y1, True)
    if box is not None:
        return box
    floor = max([y1 for _, y1 in stops if y1 <= bottom + 0.5] + [low])
    return _cluster([g for g in inside if g[3] <= bottom + 2 and g[1] >= floor - 2], bottom, False)


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
        for b, r in side:
            gap = edge - b[3] if downward else b[1] - edge
            if gap > 2.2 * cap.height or (r is not None and (CAPTION.match(r.text) or _is_prose(r, span))):
                break
            found = b if found is None else _union(found, b)
            edge = min(edge, b[1]) if downward else max(edge, b[3])
        if found is not None:
            return found
    return None


def find_figures(path: str, data: bytes) -> tuple[tuple[Figure, ...], tuple[Figure, ...]]:
    """(figures, tables) of the PDF, each label once, in page order; raises ``PaperError`` like ``extract_document``."""
    doc = open_document(path, data)
    found: dict[str, Figure] = {}
    try:
        for index in range(len(doc)):
            page = doc[index]
            width, height = page.get_size()
            runs = _runs(page)
            graphics = _graphics(page, width, height)
            two = _two_columns(runs, width)
            captions = []
            for i, run in enumerate(runs):
                what = caption_label(run.text)
                if what is not None and what[2] not in found and _starts_paragraph(runs, i):
                    captions.append((i, what))
            claimed: list[Box] = []
            for kinds in (("table",), ("figure",)):  # tables first: a figure never reaches into one
                for i, (kind, number, label) in captions:
                    if kind not in kinds or label in found:
                        continue
                    span = _span(runs[i], two, width)
                    text, bottom = _caption(runs, i, span)
                    box = (_table_box(runs, graphics, i, bottom, span) if kind == "table"
                           else _figure_box(runs, graphics, i, bottom, span, height, claimed))
                    if box is None:
                        continue
                    box = tuple(round(v, 1) for v in box)
                    claimed.append(box)
                    found[label] = Figure(kind, label, number, index + 1, box, text)  # type: ignore[arg-type]
    except PaperError:
        raise
    except Exception as exc:  # pdfium on a malformed page; the paper's text is still read
        raise PaperError(path, f"cannot read PDF: {exc}", "unreadable") from None
    finally:
        doc.close()
    items = sorted(found.values(), key=lambda f: (f.page, f.number))
    return (tuple(f for f in items if f.kind == "figure"), tuple(f for f in items if f.kind == "table"))


def render_figure(data: bytes, figure: Figure, min_width: int = 800) -> Image:
    """The figure's box rendered at a scale giving at least ``min_width`` pixels of width."""
    require("PIL", "rendering figures")
    doc = open_document("", data)
    try:
        page = doc[figure.page - 1]
        left, bottom, right, top = page.get_bbox()
        x0, y0 = max(figure.bbox[0] - PAD, left), max(figure.bbox[1] - PAD, bottom)
        x1, y1 = min(figure.bbox[2] + PAD, right), min(figure.bbox[3] + PAD, top)
        scale = (min_width + 2) / max(x1 - x0, 1.0)  # pdfium rounds the page and each crop apart: up to 1.5 px lost
        bitmap = page.render(scale=scale, crop=(x0 - left, y0 - bottom, right - x1, top - y1))
        picture = bitmap.to_pil().convert("RGB")
    finally:
        doc.close()
    return encode(picture)


def encode(picture: Any, format: Literal["webp", "png"] = "webp") -> Image:
    """A Pillow picture as an ``Image``: lossy WebP (``WEBP_QUALITY``), PNG when asked or when Pillow lacks WebP."""
    out = io.BytesIO()
    if format == "webp":
        try:
            picture.save(out, "WEBP", quality=WEBP_QUALITY, method=4)
        except (KeyError, OSError):  # a Pillow built without libwebp
            format, out = "png", io.BytesIO()
    if format == "png":
        picture.save(out, "PNG")
    return Image(out.getvalue(), format, picture.width, picture.height)
