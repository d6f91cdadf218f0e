"""Reading stage, graphics: what a page draws besides its text, as boxes in PDF points.

In: a pypdfium2 page and its box. Out: the boxes of its images, shadings and visible paths, forms opened up
(an included PDF figure is one form object whose box can be a whole slide or page, most of it white or cut
away; its own objects say where it draws), page-size backgrounds left out. Call it holding ``pdfdoc.PDFIUM``.

A path that draws nothing on white paper is left out: one neither filled nor stroked (a clipping path) and a
large one filled white and not stroked (a plot's or a slide's background).
"""
from __future__ import annotations

import ctypes
from typing import Any

from papernotes.intake.paper.pdfdoc import pdfium

Box = tuple[float, float, float, float]
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
BACKGROUND = 0.6
"""Share of the page's area from which an object is a page background, not a figure."""
CHECK_PAINT = 0.002
"""Share of the page's area from which a path's paint is looked at (a small white path is harmless, and most
of a plot's thousands of paths are small: looking costs two PDFium calls each)."""
WHITE = 250
MAX_DEPTH = 4
"""Forms inside forms opened up to this depth (deeper ones count as their box)."""
MAX_FORM_OBJECTS = 20000
"""A form with more objects than this counts as its box: opening it costs more than reading the page."""


def page_graphics(page: Any, frame: Box) -> list[Box]:
    """Boxes of what ``page`` draws (images, shadings, visible paths; forms opened up), backgrounds left out."""
    raw = pdfium().raw
    area = (frame[2] - frame[0]) * (frame[3] - frame[1])
    walker = _Walker(raw, area)
    objects = [raw.FPDFPage_GetObject(page.raw, i) for i in range(raw.FPDFPage_CountObjects(page.raw))]
    walker.walk(objects, IDENTITY, 0)
    return [b for b in walker.out if (b[2] - b[0]) * (b[3] - b[1]) < BACKGROUND * area]


class _Walker:
    def __init__(self, raw: Any, area: float) -> None:
        self.raw = raw
        self.area = area
        self.kinds = (raw.FPDF_PAGEOBJ_IMAGE, raw.FPDF_PAGEOBJ_PATH, raw.FPDF_PAGEOBJ_SHADING)
        self.bounds = (raw.FS_FLOAT(), raw.FS_FLOAT(), raw.FS_FLOAT(), raw.FS_FLOAT())
        self.out: list[Box] = []

    def walk(self, objects: list[Any], matrix: Matrix, depth: int) -> None:
        raw = self.raw
        left, bottom, right, top = self.bounds
        for obj in objects:
            kind = raw.FPDFPageObj_GetType(obj)
            if kind not in self.kinds and kind != raw.FPDF_PAGEOBJ_FORM:
                continue
            if not raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
                continue
            box = _transform(matrix, (left.value, bottom.value, right.value, top.value))
            if kind == raw.FPDF_PAGEOBJ_FORM:
                count = raw.FPDFFormObj_CountObjects(obj)
                if depth >= MAX_DEPTH or count > MAX_FORM_OBJECTS:
                    self.out.append(box)
                    continue
                inner = raw.FS_MATRIX()
                if not raw.FPDFPageObj_GetMatrix(obj, inner):
                    self.out.append(box)
                    continue
                children = [raw.FPDFFormObj_GetObject(obj, i) for i in range(count)]
                self.walk(children, _compose(matrix, (inner.a, inner.b, inner.c, inner.d, inner.e, inner.f)),
                          depth + 1)
                continue
            if kind == raw.FPDF_PAGEOBJ_PATH and (box[2] - box[0]) * (box[3] - box[1]) >= CHECK_PAINT * self.area \
                    and not self._paints(obj):
                continue
            self.out.append(box)

    def _paints(self, path: Any) -> bool:
        """Whether the path leaves a mark on white paper."""
        raw = self.raw
        fill, stroke = ctypes.c_int(), ctypes.c_int()
        if not raw.FPDFPath_GetDrawMode(path, fill, stroke):
            return True
        if stroke.value:
            return True
        if not fill.value:
            return False
        r, g, b, a = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        if not raw.FPDFPageObj_GetFillColor(path, r, g, b, a):
            return True
        return a.value > 0 and min(r.value, g.value, b.value) < WHITE


def _compose(outer: Matrix, inner: Matrix) -> Matrix:
    """The matrix applying ``inner`` then ``outer`` (PDF's row-vector convention)."""
    a1, b1, c1, d1, e1, f1 = inner
    a2, b2, c2, d2, e2, f2 = outer
    return (a1 * a2 + b1 * c2, a1 * b2 + b1 * d2, c1 * a2 + d1 * c2, c1 * b2 + d1 * d2,
            e1 * a2 + f1 * c2 + e2, e1 * b2 + f1 * d2 + f2)


def _transform(m: Matrix, box: Box) -> Box:
    if m == IDENTITY:
        return box
    a, b, c, d, e, f = m
    xs, ys = [], []
    for x, y in ((box[0], box[1]), (box[0], box[3]), (box[2], box[1]), (box[2], box[3])):
        xs.append(a * x + c * y + e)
        ys.append(b * x + d * y + f)
    return min(xs), min(ys), max(xs), max(ys)
