"""Reading stage, extraction: PDF bytes become positioned text fragments (the only module that imports pypdf).

In: the PDF's bytes. Out: a ``RawDocument`` (per page: text fragments with
their position, size, estimated width and boldness; the outline; the metadata
title), or a ``PaperError`` saying why the file cannot be read (not a PDF,
truncated, encrypted, no text layer). Positions come from pypdf's text
visitor, and a run whose cells are kerned a column apart is split at the kerns
(``papernotes.intake.paper.kerns``, fed by pypdf's operator hook); everything
after this module is pure Python on these records.

No lone UTF-16 surrogate leaves this module (``model.well_formed``): a font's
ToUnicode map, or a text layer read one UTF-16 unit at a time (pdfium's
characters), may give a mathematical letter (𝛽, U+1D6FD) as its two halves;
they are joined into the one character, and a half without its other half is
dropped (no encoder writes it: JSON, the cache, a note, the terminal).

Superscripts: a run set smaller and raised next to the run it belongs to, made
only of digits and signs (an exponent, a footnote mark), is written with
Unicode superscript characters (``10²⁰``, ``10⁻⁹``, ``⁵We used``), so it is not
read as part of the number beside it (``1020``) and a footnote mark can be
told from the word it touches (``papernotes.intake.paper.cleanup``).
"""
from __future__ import annotations

import io
import logging
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from papernotes.extras import require
from papernotes.intake.paper.forms import FormSpace
from papernotes.intake.paper.kerns import KernSplitter
from papernotes.intake.paper.model import PaperError, well_formed

HEAD_BYTES = 1024
"""The ``%PDF-`` header may follow some junk, within the first kilobyte (PDF 1.7, 7.5.2)."""
TAIL_BYTES = 2048
AVG_EM = {"courier": 0.6, "times": 0.45, "helvetica": 0.52, "arial": 0.52}
BOLD_MARKS = ("bold", "cmbx", "medi", "black", "heavy", "semibold", "-bd", "demi")
SUPERSCRIPT = str.maketrans("0123456789+-−=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾")
SUPERSCRIPTABLE = re.compile(r"[\d+\-−=(),]*\d[\d+\-−=(),]*")
"""A raised run written in superscripts: digits and signs (``20``, ``−9``, ``1,2``); letters stay as they are."""
RAISE = (0.15, 0.75)
"""A superscript's baseline is this many of its neighbour's ems above the neighbour's."""
SMALLER = 0.85
"""And its type at most this share of the neighbour's."""


@dataclass(frozen=True, slots=True)
class Fragment:
    """One run of text as the PDF draws it, in upright page coordinates (y grows upwards)."""

    text: str
    x: float
    y: float
    """Baseline."""
    width: float
    """Estimated from the font's glyph widths (an average em when the font has none)."""
    size: float
    bold: bool


@dataclass(frozen=True, slots=True)
class RawPage:
    number: int
    """1-based."""
    width: float
    height: float
    fragments: tuple[Fragment, ...]
    """In drawing order, text of the page's dominant direction only (margin stamps and rotated labels dropped)."""
    stamps: tuple[str, ...] = ()
    """The text drawn in other directions (an arXiv margin stamp, rotated axis labels), in drawing order."""
    origin: tuple[float, float] = (0.0, 0.0)
    """The page box's lower-left corner in user space, where figure boxes are measured."""
    upright: bool = True
    """Whether the page's text runs the page's own way up (positions are then user space minus ``origin``)."""


@dataclass(frozen=True, slots=True)
class OutlineItem:
    title: str
    page: int
    level: int


@dataclass(frozen=True, slots=True)
class RawDocument:
    pages: tuple[RawPage, ...]
    outline: tuple[OutlineItem, ...]
    title: str


def sniff(path: str, data: bytes) -> None:
    """Reject what is not a complete PDF before pypdf sees it (pypdf would guess its way through)."""
    if not data:
        raise PaperError(path, "empty file", "not-pdf")
    if b"%PDF-" not in data[:HEAD_BYTES]:
        start = data[:40].decode("utf-8", "replace").strip().splitlines()
        shown = start[0][:30] if start else ""
        raise PaperError(path, f"not a PDF (it starts with {shown!r})", "not-pdf")
    if b"%%EOF" not in data[-TAIL_BYTES:]:
        raise PaperError(path, "truncated PDF (no %%EOF marker at the end); download it again", "truncated")


def open_pdf(path: str, data: bytes) -> Any:
    """A ``pypdf.PdfReader`` over ``data``, decrypted when it only has an owner password."""
    pypdf = require("pypdf", "reading PDFs")
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its recoverable-structure warnings are not the user's business
    sniff(path, data)
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except Exception as exc:  # pypdf raises DependencyError for AES without a crypto package, among others
                raise PaperError(path, f"encrypted PDF ({exc})", "encrypted") from None
            if not ok:
                raise PaperError(path, "encrypted PDF: it needs a password; save an unprotected copy", "encrypted")
        len(reader.pages)
    except PaperError:
        raise
    except Exception as exc:  # malformed input surfaces as many exception types inside pypdf
        raise PaperError(path, f"cannot read PDF: {exc}", "unreadable") from None
    return reader


def _core_widths(name: str) -> dict[str, float]:
    """Glyph widths of a standard-14 font (Helvetica, Times…), which PDFs may use without a ``/Widths`` array.

    pypdf carries Adobe's core font metrics in a private module; without it the average em is the estimate.
    """
    try:
        from pypdf._codecs.core_font_metrics import CORE_FONT_METRICS  # private: guarded, optional
    except ImportError:
        return {}
    metrics = CORE_FONT_METRICS.get(name.lstrip("/").split("+")[-1])
    return dict(metrics.character_widths) if metrics is not None else {}


class _FontWidths:
    """Glyph widths per font dictionary, to estimate where a fragment ends."""

    def __init__(self) -> None:
        self._fonts: dict[int, tuple[int, list[float], float, bool, dict[str, float]]] = {}

    def _load(self, font: Any) -> tuple[int, list[float], float, bool, dict[str, float]]:
        key = id(font)
        if key not in self._fonts:
            name = str(font.get("/BaseFont", "")) if font is not None else ""
            first, widths = 0, []
            try:
                if font is not None and "/Widths" in font:
                    first = int(font.get("/FirstChar", 0))
                    widths = [float(w) for w in font["/Widths"]]
            except (TypeError, ValueError):
                widths = []
            core = {} if widths else _core_widths(name)
            known = [w for w in widths if w > 0]
            avg = sum(known) / len(known) if known else core.get("default", next(
                (v * 1000 for k, v in AVG_EM.items() if k in name.lower()), 500.0))
            self._fonts[key] = (first, widths, avg, any(mark in name.lower() for mark in BOLD_MARKS), core)
        return self._fonts[key]

    def code_width(self, font: Any, code: int) -> float | None:
        """Width of a one-byte code in thousandths of an em; ``None`` for a font of two-byte codes or none."""
        if font is None or str(font.get("/Subtype", "")) == "/Type0":
            return None
        first, widths, avg, _, core = self._load(font)
        i = code - first
        return widths[i] if 0 <= i < len(widths) and widths[i] > 0 else core.get(chr(code), avg)

    def measure(self, font: Any, text: str) -> tuple[float, bool]:
        """Width of ``text`` in thousandths of an em, and whether the font is bold."""
        first, widths, avg, bold, core = self._load(font)
        total = 0.0
        for ch in text:
            i = ord(ch) - first
            total += widths[i] if 0 <= i < len(widths) and widths[i] > 0 else core.get(ch, avg)
        return total, bold


def _direction(a: float, b: float) -> int:
    return int(round(math.degrees(math.atan2(b, a)) / 90.0)) % 4 * 90


def page_fragments(page: Any, number: int, fonts: _FontWidths) -> RawPage:
    """The page's text fragments via pypdf's visitor, rotated so its dominant text direction is upright."""
    raw: list[tuple[str, float, float, float, float, int, bool]] = []
    try:
        resources = page["/Resources"]["/Font"]
    except (KeyError, TypeError):
        resources = None
    kerns = KernSplitter(resources, fonts.code_width)
    try:
        forms = FormSpace(page["/Resources"]["/XObject"])
    except (KeyError, TypeError):
        forms = FormSpace(None)

    def before(op: bytes, operands: Any, cm: Any, tm: Any) -> None:
        forms.before(op, operands, cm)
        kerns.before(op, operands, forms.to_page(cm), tm)

    def visit(text: str, cm: Any, tm: Any, font: Any, size: float) -> None:
        if not text or text.isspace():
            return
        text = well_formed(text)
        cm = forms.to_page(cm)  # a form's text (a figure drawn from a PDF) where the page shows it
        a = tm[0] * cm[0] + tm[1] * cm[2]
        b = tm[0] * cm[1] + tm[1] * cm[3]
        c = tm[2] * cm[0] + tm[3] * cm[2]
        d = tm[2] * cm[1] + tm[3] * cm[3]
        e = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        f = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale_x = math.hypot(a, b) or 1.0
        height = abs(size) * (math.hypot(c, d) or 1.0)
        pieces = kerns.split(text, e, f)
        if len(pieces) > 1:  # one run, its cells kerned apart
            for part, x, y in pieces:
                em, bold = fonts.measure(font, part.rstrip())
                raw.append((part.rstrip(), x, y, em / 1000 * abs(size) * scale_x, height, _direction(a, b), bold))
            return
        for k, part in enumerate(text.split("\n")):
            if not part.strip():
                continue
            em, bold = fonts.measure(font, part)
            raw.append((part, e, f - k * height * 1.2, em / 1000 * abs(size) * scale_x, height,
                        _direction(a, b), bold))

    try:
        page.extract_text(visitor_text=visit, visitor_operand_before=before,
                          visitor_operand_after=lambda op, *_: forms.after(op))
    except Exception:  # one broken page must not lose the paper; it counts as a page without text
        raw = []
    box = page.mediabox
    width, height = float(box.width), float(box.height)
    x0, y0 = float(box.left), float(box.bottom)
    if not raw:
        return RawPage(number, width, height, ())
    weight: dict[int, int] = {}
    for item in raw:
        weight[item[5]] = weight.get(item[5], 0) + len(item[0])
    angle = max(weight, key=lambda k: weight[k])
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    if angle in (90, 270):
        width, height = height, width
    frags = []
    stamps = []
    for text, x, y, w, size, direction, bold in raw:
        if direction != angle:
            stamps.append(text)
            continue
        x, y = x - x0, y - y0
        ux, uy = x * cos + y * sin, -x * sin + y * cos
        if angle == 90:
            uy += height
        elif angle == 180:
            ux, uy = ux + width, uy + height
        elif angle == 270:
            ux += width
        frags.append(Fragment(text, ux, uy, w, size, bold))
    return RawPage(number, width, height, tuple(superscripts(frags)), tuple(stamps), (x0, y0), angle == 0)


def _raised(small: Fragment, big: Fragment) -> bool:
    rise = small.y - big.y
    return small.size <= SMALLER * big.size and RAISE[0] * big.size <= rise <= RAISE[1] * big.size


def _touch(left: Fragment, right: Fragment, size: float) -> bool:
    """``right`` starts where ``left`` ends (widths are estimates, a leading space included: an em of slack)."""
    return left.x < right.x and -size <= right.x - (left.x + left.width) <= 0.5 * size


def superscripts(frags: list[Fragment]) -> list[Fragment]:
    """``frags`` with each raised run of digits and signs written in superscripts (see the module docstring).

    A run is the fragments drawn one after the other on one raised baseline (``10`` then ``−`` then ``9``);
    its neighbour is the fragment drawn just before it that it follows on the line (an exponent, a mark after
    a word) or the one drawn just after it that it precedes (a footnote's mark before its text).
    """
    out = list(frags)
    i = 0
    while i < len(frags):
        j = i + 1
        while j < len(frags) and abs(frags[j].y - frags[i].y) <= 0.1 * frags[i].size \
                and abs(frags[j].size - frags[i].size) <= 0.1 * frags[i].size and _touch(frags[j - 1], frags[j], frags[i].size):
            j += 1
        run = frags[i:j]
        text = "".join(f.text for f in run).strip()
        if SUPERSCRIPTABLE.fullmatch(text):
            before = frags[i - 1] if i else None
            after = frags[j] if j < len(frags) else None
            if (before is not None and _raised(run[0], before) and _touch(before, run[0], before.size)) or (
                    after is not None and _raised(run[-1], after) and _touch(run[-1], after, after.size)):
                out[i:j] = [Fragment(f.text.translate(SUPERSCRIPT), f.x, f.y, f.width, f.size, f.bold) for f in run]
        i = j
    return out


def _outline(reader: Any) -> Iterator[OutlineItem]:
    def walk(items: Any, level: int) -> Iterator[OutlineItem]:
        for item in items:
            if isinstance(item, list):
                yield from walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
                title = well_formed(str(item.title or "")).strip()
            except Exception:  # dangling destinations are common; the entry is skipped
                continue
            if title and page is not None and page >= 0:
                yield OutlineItem(" ".join(title.split()), page + 1, level)

    try:
        return walk(reader.outline, 1)
    except Exception:
        return iter(())


def extract_document(path: str, data: bytes) -> RawDocument:
    reader = open_pdf(path, data)
    fonts = _FontWidths()
    pages = tuple(page_fragments(page, i + 1, fonts) for i, page in enumerate(reader.pages))
    if not any(p.fragments for p in pages):
        raise PaperError(path, f"no text layer on any of its {len(pages)} page(s) (a scanned paper?); "
                               "run OCR on it first (e.g. ocrmypdf)", "no-text")
    try:
        outline = tuple(_outline(reader))
    except Exception:
        outline = ()
    try:
        title = well_formed(str((reader.metadata or {}).get("/Title") or "")).strip()
    except Exception:
        title = ""
    return RawDocument(pages, outline, " ".join(title.split()))


def first_page_text(path: str, data: bytes) -> tuple[str, str]:
    """(metadata title, plain text of page 1, margin stamps included): for filing PDFs by id or title."""
    reader = open_pdf(path, data)
    try:
        title = well_formed(str((reader.metadata or {}).get("/Title") or "")).strip()
    except Exception:
        title = ""
    try:
        text = well_formed(reader.pages[0].extract_text()) if len(reader.pages) else ""
    except Exception:
        text = ""
    return title, text
