"""Reading stage, pictures: a found figure's box rendered by PDFium and encoded as WebP or PNG.

In: the PDF's bytes and a ``Figure`` (``papernotes.intake.paper.figures``). Out: a Pillow picture of the box
(``render_picture``) or an encoded ``Image`` (``render_figure``). A box is rendered at least ``min_width``
pixels wide, but never into more than ``MAX_PIXELS`` pixels (a thin or huge box cannot ask for a gigabyte
bitmap); a box too small to show, or a page PDFium or Pillow cannot render, raises a ``PaperError`` naming
the page and the figure, so a caller reports that figure and goes on with the others.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Literal

from papernotes.extras import require
from papernotes.intake.paper.model import Figure, PaperError
from papernotes.intake.paper.pdfdoc import PDFIUM, open_document, pdfium

PAD = 2.0
"""Points of white kept around a rendered figure."""
MIN_SIDE = 4.0
"""Points: a box narrower or lower than this holds no picture (a rule, a hairline)."""
MAX_PIXELS = 12_000_000
"""Pixels of one rendered figure at most (48 MB as RGBA): past it the scale goes down, keeping the shape."""
WEBP_QUALITY = 90
WEBP_METHOD = 0
"""WebP's fastest method. Lossless first: plots, diagrams and tables (text and lines) come out smaller than PNG or
lossy WebP, sharp, in PNG's time; past ``LOSSY_PAST`` bytes a pixel (a photograph) lossy quality 90 is tried too and
the smaller kept (BENCHMARKS.md)."""
LOSSY_PAST = 0.125


@dataclass(frozen=True, slots=True)
class Image:
    data: bytes
    format: Literal["webp", "png"]
    width: int
    height: int


def render_figure(data: bytes, figure: Figure, min_width: int = 800, path: str = "PDF") -> Image:
    """The figure's box rendered at a scale giving at least ``min_width`` pixels of width (``MAX_PIXELS`` at
    most), encoded; a ``PaperError`` naming ``path``, the page and the figure when it cannot be."""
    picture = render_picture(data, figure, min_width, path)
    try:
        return encode(picture)
    except (OSError, ValueError) as exc:  # Pillow's encoders
        raise PaperError(path, f"page {figure.page}: {figure.label}: cannot encode it: {exc}", "unreadable") from None


def render_picture(data: bytes, figure: Figure, min_width: int = 800, path: str = "PDF") -> Any:
    """The figure's box as a Pillow RGB picture (``render_figure`` unencoded)."""
    require("PIL", "rendering figures")
    where = f"page {figure.page}: {figure.label}"
    x0, y0, x1, y1 = figure.bbox
    if x1 - x0 < MIN_SIDE or y1 - y0 < MIN_SIDE:
        raise PaperError(path, f"{where}: its box ({x1 - x0:.1f} × {y1 - y0:.1f} pt) is too small to show",
                         "unreadable")
    module = pdfium()
    with PDFIUM:
        doc = open_document(path, data)
        try:
            if not 0 < figure.page <= len(doc):
                raise PaperError(path, f"{where}: the PDF has {len(doc)} pages", "unreadable")
            page = doc[figure.page - 1]
            try:
                return _render(page, figure.bbox, min_width)
            except module.PdfiumError as exc:
                raise PaperError(path, f"{where}: PDFium cannot render it: {exc}", "unreadable") from None
            except (MemoryError, ValueError, OSError) as exc:  # Pillow taking the bitmap
                raise PaperError(path, f"{where}: cannot render it: {exc!r}", "unreadable") from None
            finally:
                page.close()
        finally:
            doc.close()


def _render(page: Any, bbox: tuple[float, float, float, float], min_width: int) -> Any:
    left, bottom, right, top = page.get_bbox()
    x0, y0 = max(bbox[0] - PAD, left), max(bbox[1] - PAD, bottom)
    x1, y1 = min(bbox[2] + PAD, right), min(bbox[3] + PAD, top)
    width, height = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
    scale = (min_width + 2) / width  # pdfium rounds the page and each crop apart: up to 1.5 px lost
    scale = min(scale, (MAX_PIXELS / (width * height)) ** 0.5)
    # the box is in user space; undo the page's /Rotate so the crop (applied after rotation) is too
    bitmap = page.render(scale=scale, crop=(x0 - left, y0 - bottom, right - x1, top - y1),
                         rotation=(360 - page.get_rotation()) % 360)
    try:
        return bitmap.to_pil().convert("RGB")  # a copy: the bitmap's buffer is freed below
    finally:
        bitmap.close()


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
