"""Test PDFs, generated with fpdf2: papers whose every word and number the tests know.

``Paper`` lays out blocks (headings, paragraphs, result tables, raw lines) in
one or two columns. Two-column pages are *drawn* line by line across the
columns (left line 1, right line 1, left line 2…), so a reader that follows
the drawing order mixes the columns and only one that reads positions gets the
text right. Headings are bold and, optionally, outline entries (bookmarks);
every page has a running header and a page number, as real papers do.

Damaged files: ``truncated``, ``not_pdf``, ``encrypted`` (pypdf, RC4, user
password), ``scanned`` (an image and no text layer).
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from fpdf import FPDF

PAGE_W, PAGE_H = 612.0, 792.0
MARGIN_X, TOP, BOTTOM = 54.0, 72.0, 740.0
GUTTER = 24.0
SIZE, LEADING = 10.0, 12.0


@dataclass(frozen=True)
class Heading:
    number: str
    title: str
    level: int = 1


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Table:
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""


@dataclass(frozen=True)
class Lines:
    """Lines drawn exactly as given (to force a hyphenated break, a base64 blob…)."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Figure:
    """A figure: drawn boxes and lines (``vector``) or an embedded PNG (``raster``), its caption below it."""

    caption: str
    kind: str = "vector"
    height: float = 110.0
    label: str = ""
    """Small text right under the drawing and over the caption, as an axis label in a TikZ plot."""
    caption_above: bool = False
    inside: tuple[str, ...] = ()
    """Labels written inside a vector figure's three boxes, as a diagram's node names."""


@dataclass(frozen=True)
class RuledTable:
    """A table as LaTeX's booktabs draws it: caption above, rules above and below the header and at the end."""

    rows: tuple[tuple[str, ...], ...]
    caption: str
    spans: tuple[tuple[str, int, int], ...] = ()
    """Headers over several columns, ``(text, first, last)`` (0 is the label column), above the header row
    with a short rule under each (booktabs' ``\\cmidrule``)."""


@dataclass(frozen=True)
class ColumnBreak:
    """Continue at the top of the next column (or page), as LaTeX does before a float it moved there."""


Block = Heading | Para | Table | Lines | Figure | RuledTable | ColumnBreak


@dataclass(frozen=True)
class Drawn:
    """Where a generated figure or table was drawn: what the tests compare ``find_figures`` with."""

    kind: str
    label: str
    page: int
    bbox: tuple[float, float, float, float]
    """x0, y0, x1, y1 in PDF points, origin bottom-left, the graphics (or the table's rules) only."""


@dataclass
class _Op:
    x: float
    y: float
    text: str
    bold: bool = False
    size: float = SIZE
    column: int = 0
    row: int = 0
    """Cells of one table row share a number (0: not a table cell)."""


@dataclass
class _Page:
    ops: list[_Op] = field(default_factory=list)
    sections: list[tuple[str, int, float]] = field(default_factory=list)
    drawings: list[tuple[str, float, float, float, float]] = field(default_factory=list)
    """(``rect``|``line``|``image``, x, y, w, h) in fpdf2's top-left coordinates; a line goes (x, y) → (x+w, y+h)."""


class Paper:
    """Build a paper page by page: ``front(...)``, ``flow(blocks, columns=2)``, ``save(path)``."""

    def __init__(self, title: str = "A Generated Paper", outline: bool = True, header: str = "Generated Paper 2026",
                 pdflatex: bool = False) -> None:
        """``pdflatex``: draw text as pdflatex does — a line in many short runs (math, superscripts and font
        changes split it; here a change of font every two words) and a table row as one run whose cells are
        kerned apart (one ``TJ`` array)."""
        self.title = title
        self.outline = outline
        self.header = header
        self.pdflatex = pdflatex
        self.rows = 0
        self.pdf = FPDF(unit="pt", format="letter")
        self.pdf.set_auto_page_break(False)
        self.pdf.set_title(title)
        self.pages: list[_Page] = []
        self.y = self.top = self.bottom = TOP
        self.column, self.columns = 0, 0
        self.drawn: list[Drawn] = []

    def _width(self, text: str, bold: bool = False, size: float = SIZE) -> float:
        self.pdf.set_font("Helvetica", "B" if bold else "", size)
        return self.pdf.get_string_width(text)

    def _wrap(self, text: str, width: float, indent: float = 0.0) -> list[str]:
        lines, current = [], ""
        for word in text.split():
            trial = f"{current} {word}".strip()
            if current and self._width(trial) > width - (indent if not lines else 0):
                lines.append(current)
                current = word
            else:
                current = trial
        if current:
            lines.append(current)
        return lines

    def new_page(self) -> _Page:
        self.pages.append(_Page())
        self.y = self.bottom = TOP
        return self.pages[-1]

    def front(self, authors: str, abstract: str) -> None:
        """Full-width title, authors and abstract at the top of a new page."""
        page = self.new_page()
        width = PAGE_W - 2 * MARGIN_X
        for line in self._wrap(self.title, width):
            page.ops.append(_Op((PAGE_W - self._width(line, True, 14)) / 2, self.y, line, True, 14))
            self.y += 18
        page.ops.append(_Op((PAGE_W - self._width(authors)) / 2, self.y, authors))
        self.y += 2 * LEADING
        page.ops.append(_Op((PAGE_W - self._width("Abstract", True)) / 2, self.y, "Abstract", True))
        self.y += LEADING
        for line in self._wrap(abstract, width):
            page.ops.append(_Op(MARGIN_X, self.y, line))
            self.y += LEADING
        self.y += LEADING

    def flow(self, blocks: list[Block], columns: int = 2, new_page: bool = False) -> None:
        """Lay blocks out in ``columns`` columns, continuing on new pages as needed.

        A flow with as many columns as the previous one continues where it stopped; a
        change of column count starts a new band below everything on the page.
        """
        if new_page or not self.pages:
            self.new_page()
            self.column, self.top, self.bottom = 0, TOP, TOP
        elif columns != self.columns:
            self.column, self.top = 0, max(self.bottom, self.y)
            self.y = self.top
        self.columns = columns
        width = (PAGE_W - 2 * MARGIN_X - (GUTTER if columns == 2 else 0)) / columns

        def advance(height: float) -> tuple[_Page, float]:
            if self.y + height > BOTTOM:
                self.column += 1
                if self.column >= columns:
                    self.new_page()
                    self.column, self.top = 0, TOP
                self.y = self.top
            y = self.y
            self.y += height
            self.bottom = max(self.bottom, self.y)
            return self.pages[-1], y

        def left() -> float:
            return MARGIN_X + self.column * (width + GUTTER)

        def col() -> int:
            return self.column + 1 if columns == 2 else 0

        def place(height: float) -> tuple[_Page, float, float, int]:
            pg, y = advance(height)
            return pg, y, left(), col()

        for block in blocks:
            if isinstance(block, Heading):
                self.y += LEADING / 2
                pg, y = advance(LEADING * 1.5)
                text = f"{block.number} {block.title}".strip()
                pg.ops.append(_Op(left(), y, text, True, column=col()))
                pg.sections.append((text, block.level - 1, y - SIZE))
            elif isinstance(block, Para):
                for i, line in enumerate(self._wrap(block.text, width, indent=12)):
                    pg, y = advance(LEADING)
                    pg.ops.append(_Op(left() + (12 if i == 0 else 0), y, line, column=col()))
                self.y += LEADING / 3
            elif isinstance(block, Lines):
                for line in block.lines:
                    pg, y = advance(LEADING)
                    pg.ops.append(_Op(left(), y, line, column=col()))
            elif isinstance(block, ColumnBreak):
                self.y = BOTTOM + 1
            elif isinstance(block, Figure):
                self._figure(block, place, width)
            elif isinstance(block, RuledTable):
                self._ruled_table(block, place, width)
            else:
                if block.caption:
                    pg, y = advance(LEADING)
                    pg.ops.append(_Op(left(), y, block.caption, column=col()))
                first = 0.34 * width  # the label column is wider, as in real tables
                cell = (width - first) / max(len(r) - 1 for r in block.rows)
                for row in block.rows:
                    pg, y = advance(LEADING)
                    self.rows += 1
                    for k, text in enumerate(row):
                        pg.ops.append(_Op(left() + (first + (k - 1) * cell if k else 0), y, text, column=col(),
                                          row=self.rows))
                self.y += LEADING / 2

    def _record(self, caption: str, x0: float, top: float, x1: float, bottom: float) -> None:
        kind = "table" if caption.startswith("Table") else "figure"
        label = f"{kind.capitalize()} {caption.replace(':', ' ').replace('.', ' ').split()[1]}"  # "Fig. 3." → Figure 3
        self.drawn.append(Drawn(kind, label, len(self.pages), (x0, PAGE_H - bottom, x1, PAGE_H - top)))

    def _caption(self, caption: str, place, width: float) -> None:  # type: ignore[no-untyped-def]
        for line in self._wrap(caption, width):
            pg, y, x, column = place(LEADING)
            pg.ops.append(_Op(x, y, line, size=9, column=column))

    def _figure(self, block: Figure, place, width: float) -> None:  # type: ignore[no-untyped-def]
        if block.caption_above:
            self._caption(block.caption, place, width)
        pg, y, x, _ = place(block.height + LEADING)
        top, bottom = y - SIZE + 4, y - SIZE + 4 + block.height
        if block.kind == "raster":
            pg.drawings.append(("image", x + 10, top, width - 20, block.height))
        else:
            w, h = (width - 40) / 3, block.height
            for k in range(3):  # three boxes joined by arrows, a method diagram
                pg.drawings.append(("rect", x + 10 + k * (w + 10), top + h / 4, w, h / 2))
                if k < len(block.inside):
                    pg.ops.append(_Op(x + 14 + k * (w + 10), top + h / 2 + 3, block.inside[k], size=8))
                if k:
                    pg.drawings.append(("line", x + k * (w + 10), top + h / 2, 10, 0))
            pg.drawings.append(("line", x + 10, top, width - 20, 0))
            pg.drawings.append(("line", x + 10, bottom, width - 20, 0))
        self._record(block.caption, x + 10, top, x + width - 10, bottom)
        if block.label:
            pg.ops.append(_Op(x + (width - self._width(block.label, size=7)) / 2, bottom + 8, block.label, size=7))
        if not block.caption_above:
            self._caption(block.caption, place, width)
        self.y += LEADING

    def _ruled_table(self, block: RuledTable, place, width: float) -> None:  # type: ignore[no-untyped-def]
        self.y += LEADING / 2
        self._caption(block.caption, place, width)
        first = 0.34 * width
        cell = (width - first) / max(len(r) - 1 for r in block.rows)
        pg, rule, x, column = place(LEADING * 0.75)  # abovetopsep: the rule clear of the caption
        top = rule - 4
        pg.drawings.append(("line", x, top, width, 0))
        if block.spans:
            pg, y, x, column = place(LEADING)
            for text, a, b in block.spans:
                x0, x1 = x + first + (a - 1) * cell, x + first + b * cell - 6
                pg.ops.append(_Op((x0 + x1 - self._width(text)) / 2, y, text, column=column))
                pg.drawings.append(("line", x0, y + 3, x1 - x0, 0))
        for i, row in enumerate(block.rows):
            pg, y, x, column = place(LEADING)
            self.rows += 1
            for k, text in enumerate(row):
                pg.ops.append(_Op(x + (first + (k - 1) * cell if k else 0), y, text, bold=i == 0, column=column,
                                  row=self.rows))
            if i == 0:
                pg.drawings.append(("line", x, y + 3, width, 0))
        pg, y, x, column = place(LEADING / 2)
        bottom = y - SIZE + 2
        pg.drawings.append(("line", x, bottom, width, 0))
        self._record(block.caption, x, top, x + width, bottom)
        self.y += LEADING

    def _draw(self, page: _Page) -> None:
        from PIL import Image, ImageDraw

        self.pdf.set_line_width(1)
        for what, x, y, w, h in page.drawings:
            if what == "rect":
                self.pdf.set_fill_color(120, 160, 220)
                self.pdf.rect(x, y, w, h, style="DF")
            elif what == "line":
                self.pdf.line(x, y, x + w, y + h)
            else:  # a plot as a picture: bars on a white ground
                image = Image.new("RGB", (300, 200), "white")
                draw = ImageDraw.Draw(image)
                for k in range(6):
                    draw.rectangle((20 + 45 * k, 190 - 25 * (k + 1), 50 + 45 * k, 190), fill=(200, 60 + 30 * k, 40))
                self.pdf.image(image, x=x, y=y, w=w, h=h)

    def scanned_page(self) -> None:
        """A page that is only an image, like a scan."""
        self.pages.append(_Page([_Op(0, 0, "\0image")]))

    def render(self) -> bytes:
        for number, page in enumerate(self.pages, 1):
            self.pdf.add_page()
            if page.ops and page.ops[0].text == "\0image":
                from PIL import Image, ImageDraw

                image = Image.new("L", (400, 500), 255)
                ImageDraw.Draw(image).rectangle((40, 40, 360, 120), fill=0)
                self.pdf.image(image, x=100, y=100, w=400)
                continue
            if self.outline:
                for name, level, y in page.sections:
                    self.pdf.set_y(y)
                    self.pdf.start_section(name, level, strict=False)
            self._draw(page)
            self.pdf.set_font("Helvetica", "", 8)
            self.pdf.text(MARGIN_X, 40, self.header)
            self.pdf.text(PAGE_W / 2, 765, str(number))
            # across the columns, line by line: the drawing order is not the reading order
            ops = sorted(page.ops, key=lambda o: (round(o.y), o.column, o.x))
            for op in ops:
                if self.pdflatex and op.row:
                    cells = [o for o in ops if o.row == op.row]
                    if op is cells[0]:
                        kerned_row(self.pdf, [(o.x, o.text) for o in cells], op.y, op.bold, op.size)
                elif self.pdflatex:
                    _runs(self.pdf, op)
                else:
                    self.pdf.set_font("Helvetica", "B" if op.bold else "", op.size)
                    self.pdf.text(op.x, op.y, op.text)
        return bytes(self.pdf.output())

    def save(self, path: Path) -> Path:
        path.write_bytes(self.render())
        return path


def _runs(pdf: FPDF, op: _Op) -> None:
    """A line as pdflatex draws one with math in it: runs of two words, the font changing between them."""
    words, x = op.text.split(" "), op.x
    for k in range(0, len(words), 2):
        run = " ".join(words[k:k + 2]) + (" " if k + 2 < len(words) else "")
        pdf.set_font("Times" if k % 4 else "Helvetica", "B" if op.bold else "", op.size)
        pdf.text(x, op.y, run)
        x += pdf.get_string_width(run)


def kerned_row(pdf: FPDF, cells: list[tuple[float, str]], y: float, bold: bool = False, size: float = SIZE) -> None:
    """Cells at their x, drawn as pdflatex draws a table row: one ``TJ`` array, the gaps as kerns (thousandths of
    an em; pypdf reads each as a single space)."""
    pdf.set_font("Helvetica", "B" if bold else "", size)
    pdf.text(cells[0][0], y, "")  # the font is used on this page: fpdf2 lists it in the page's resources
    parts, end = [], cells[0][0]
    for x, text in cells:
        if parts:
            parts.append(f"{-(x - end) * 1000 / size:.0f}")
        parts.append("(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")")
        end = x + pdf.get_string_width(text)
    pdf._out(f"BT /F{pdf.current_font.i} {size:.2f} Tf {cells[0][0]:.2f} {PAGE_H - y:.2f} Td [{' '.join(parts)}] TJ ET")


def encrypted(data: bytes, password: str = "secret") -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def truncated(data: bytes) -> bytes:
    return data[: len(data) * 2 // 3]


NOT_PDF = b"<!DOCTYPE html>\n<html><body>Please log in to download this paper.</body></html>\n"

BASE64_BLOB = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg"
               "Q2xhdWRlIGlzIGEgaGVscGZ1bCBhc3Npc3RhbnQgdGhhdCByZWFkcyBwYXBlcnMgYW5kIGNoZWNrcyBudW1iZXJz")


# A paper with known content: what the reading and grounding tests check against.
ABSTRACT = ("We present Gutter Networks, a method for reading two-column papers. On the GutterBench benchmark "
            "it reaches 46.42% accuracy, 3.1 points above the strongest baseline, at 1.8x the speed.")
INTRO = ("Reading order matters for every downstream step. Prior readers follow the drawing order of the page and "
         "interleave the two columns of a conference paper, which breaks sentences in half. We measure this on "
         "1500 papers and find that 38.5% of them are affected.")
METHOD = ("Our method detects the column gutter from glyph positions. It then reads the left column before the "
          "right one and keeps full-width blocks in place. The learning rate is 0.0003 with a batch size of 256.")
RESULTS = ("Table 1 reports the main results. Our model reaches 0.4642 on the hard split and 0.5131 on the easy "
           "split, with a latency of 12.5 ms per page and a memory footprint of 1.2 GB.")
ABLATION = ("Removing the gutter detector lowers the score to 0.4017, and removing the band splitter lowers it "
            "to 0.4388. Training takes 3.5 hours on one GPU.")
LIMITS = ("Pages with three columns are read as if they had two. Scanned papers need OCR first; we leave this "
          "to future work, as discussed in Section 5.")
APPENDIX_TEXT = ("We list every hyper-parameter here. The warmup lasts 500 steps and the dropout rate is 0.15. "
                 "The hard split has 2400 questions.")
REFERENCES = ("[1] A. Author and B. Author. A prior reader of papers. In Proceedings of a Conference, 2019. "
              "[2] C. Author. Another reader with 99.99% claims. Journal of Readings, 2021.")
RESULTS_TABLE = Table((("Method", "Hard", "Easy", "Latency"),
                       ("PlainReader", "0.3925", "0.4410", "8.1"),
                       ("LayoutLM-ish", "0.4210", "0.4862", "30.4"),
                       ("Ours", "0.4642", "0.5131", "12.5")),
                      caption="Table 1: Accuracy on GutterBench (higher is better).")


FILLER = ("Careful readers of conference papers move from the left column to the right column and only then "
          "turn the page. A reader that follows the drawing order instead produces sentences that stop in the "
          "middle and resume with words from the other column, which no later step can repair.")


def sample_blocks() -> list[Block]:
    return [
        Heading("1", "Introduction"), Para(INTRO), Para(FILLER), Para(FILLER),
        Heading("2", "Method"), Para(METHOD), Para(FILLER),
        Lines(("The gutter detector is a light-weight compo-", "nent that runs before any other step.")),
        Heading("2.1", "Band Splitting", 2),
        Para("Full-width lines split a page into bands that are read one after the other."),
        Heading("3", "Experiments"), Para(RESULTS), RESULTS_TABLE,
        Heading("3.1", "Ablations", 2), Para(ABLATION),
        Lines((BASE64_BLOB[:60], BASE64_BLOB[60:120], BASE64_BLOB[120:])),
        Para(FILLER), Para(FILLER),
        Heading("4", "Limitations"), Para(LIMITS), Para(FILLER), Para(FILLER), Para(FILLER),
    ]


def sample_paper(path: Path, outline: bool = True, columns: int = 2) -> Path:
    """The reference test paper: front matter, numbered sections, a results table, references, an appendix."""
    paper = Paper("Gutter Networks: Reading Two-Column Papers in Order", outline=outline)
    paper.front("Ada Reader, Bob Parser", ABSTRACT)
    paper.flow(sample_blocks(), columns=columns)
    paper.flow([Heading("", "References"), Para(REFERENCES)], columns=columns)
    paper.flow([Heading("A", "Hyper-parameters"), Para(APPENDIX_TEXT)], columns=1, new_page=True)
    return paper.save(path)


# ---------------------------------------------------------------- first pages, as conference templates print them

WINANSI = str.maketrans({"†": "\x86", "‡": "\x87", "∗": "*", "–": "\x96", "—": "\x97"})
"""Core fonts draw WinAnsi: daggers are bytes 0x86/0x87 there, and pypdf reads them back as † and ‡."""
SUPERSCRIPT = re.compile(r"\^\{([^}]*)\}")
VENUE_LINES = {
    "ICLR": "Published as a conference paper at ICLR 2026",
    "NeurIPS": "39th Conference on Neural Information Processing Systems (NeurIPS 2025).",
    "ICML": ("Proceedings of the 43rd International Conference on Machine Learning, Seoul, South Korea. "
             "PMLR 306, 2026. Copyright 2026 by the author(s)."),
}
"""What each template prints, and where: ICLR a running header, NeurIPS a footnote under the text, ICML a
footnote at the foot of the first column."""


def _fit(pdf: FPDF, text: str, width: float, size: float) -> list[str]:
    pdf.set_font("Helvetica", "", size)
    lines, current = [], ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if current and pdf.get_string_width(trial) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    return [*lines, current] if current else lines


def _marked(pdf: FPDF, x: float, y: float, text: str, size: float, bold: bool = False, draw: bool = True) -> float:
    """Draw ``text`` with ``^{…}`` parts as raised superscripts; returns its width."""
    start = x
    for k, part in enumerate(SUPERSCRIPT.split(text)):
        if not part:
            continue
        sup = k % 2 == 1
        pdf.set_font("Helvetica", "B" if bold and not sup else "", size * 0.65 if sup else size)
        part = part.translate(WINANSI)
        if draw:
            pdf.text(x, y - (size * 0.4 if sup else 0), part)
        x += pdf.get_string_width(part)
    return x - start


def _small_caps(pdf: FPDF, x: float, y: float, line: str) -> None:
    """``line`` in small caps as LaTeX fakes them: capitals (and digits, marks) at 17 pt, lower-case letters as
    capitals at 13.6 pt, each run drawn where the previous one ends (no space between them)."""
    for word in line.split(" "):
        for big, run in re.findall(r"([^a-z]*)([a-z]*)", word):
            for text, size in ((big, 17.0), (run.upper(), 13.6)):
                if text:
                    pdf.set_font("Helvetica", "", size)
                    pdf.text(x, y, text)
                    x += pdf.get_string_width(text)
        pdf.set_font("Helvetica", "", 17)
        x += pdf.get_string_width(" ")


def front_page(path: Path, title: tuple[str, ...], authors: tuple[str | tuple[str, ...], ...], abstract: str, *,
               affiliations: tuple[str | tuple[str, ...], ...] = (), heading: str = "Abstract", venue: str = "",
               stamp: str = "", columns: int = 1, metadata_title: str = "", floats: bool = False,
               header: str = "", footer: str = "", small_caps: bool = False) -> Path:
    """A paper's first page (and a second page of text) laid out as a conference template does.

    ``title`` lines in 17 pt bold; ``authors`` and ``affiliations`` lines centred, a tuple being cells spread
    across the page (NeurIPS puts each author over their affiliation), ``^{1,*}`` a superscript; ``heading``
    the abstract's heading (``""``: none); ``venue`` a key of ``VENUE_LINES`` printed where that template
    prints it; ``stamp`` drawn rotated in the left margin, as arXiv stamps its PDFs; ``columns=2`` puts the
    abstract in the left column and the introduction in the right one, as ICML does. The PDF metadata holds
    ``metadata_title`` only (real papers often carry none). ``floats`` (two columns) puts floats at the top of the
    columns, as LaTeX does under a full-width title: a figure over the abstract, the results table (a header row of
    words, as an author line looks) over the introduction, reaching higher than the abstract's heading. ``header``
    and ``footer`` are any venue line, printed at the top (a running header: AAAI's, JMLR's, the CVF watermark) or
    the foot of page 1 (a footnote: IJCAI, TMLR); ``small_caps`` sets the title as ICLR does: each word's capital
    at 17 pt, its other letters as capitals at 13.6 pt right after it.
    """
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(False)
    if metadata_title:
        pdf.set_title(metadata_title)
    pdf.add_page()
    if venue == "ICLR":
        pdf.set_font("Helvetica", "", 9)
        pdf.text(MARGIN_X, 40, VENUE_LINES[venue])
    if header:
        pdf.set_font("Helvetica", "", 8)
        pdf.text(MARGIN_X, 40, header)
    if footer:
        pdf.set_font("Helvetica", "", 8)
        pdf.text(MARGIN_X, 740, footer)
    if stamp:
        pdf.set_font("Helvetica", "", 18)
        with pdf.rotation(90, 30, 560):
            pdf.text(30, 560, stamp)
    y = 96.0
    for line in title:
        if small_caps:
            _small_caps(pdf, MARGIN_X, y, line)
            y += 21
            continue
        pdf.set_font("Helvetica", "B", 17)
        pdf.text((PAGE_W - pdf.get_string_width(line.translate(WINANSI))) / 2, y, line.translate(WINANSI))
        y += 21
    y += 6
    for size, rows in ((10.0, authors), (9.0, affiliations)):
        for row in rows:
            cells = (row,) if isinstance(row, str) else row
            for k, cell in enumerate(cells):
                width = _marked(pdf, 0, 0, cell, size, bold=size == 10, draw=False)
                centre = PAGE_W / 2 if len(cells) == 1 else MARGIN_X + (k + 0.5) * (PAGE_W - 2 * MARGIN_X) / len(cells)
                _marked(pdf, centre - width / 2, y, cell, size, bold=size == 10)
            y += size + 3
    y += 16
    left, width = (MARGIN_X, (PAGE_W - 2 * MARGIN_X - GUTTER) / 2) if columns == 2 else (90.0, PAGE_W - 180)
    if floats and columns == 2:
        right = left + width + GUTTER
        pdf.set_font("Helvetica", "", 9)
        for k, row in enumerate(RESULTS_ROWS):  # rows as pdflatex draws them: one run, cells kerned apart
            kerned_row(pdf, [(right + (0.34 + (i - 1) * 0.22) * width if i else right, cell)
                             for i, cell in enumerate(row)], y + 11 * k, size=9)
        pdf.set_font("Helvetica", "", 9)
        pdf.text(right, y + 11 * len(RESULTS_ROWS) + 4, TABLE_1)
        pdf.set_fill_color(120, 160, 220)
        pdf.rect(left + 20, y - 8, width - 40, 40, style="DF")
        pdf.set_font("Helvetica", "", 9)
        pdf.text(left, y + 50, FIGURE_1[:60])
        y += 72
    if heading:
        pdf.set_font("Helvetica", "B", 12)
        pdf.text(left + (width - pdf.get_string_width(heading)) / 2, y, heading)
        y += 16
    for line in _fit(pdf, abstract, width, SIZE):
        pdf.set_font("Helvetica", "", SIZE)
        pdf.text(left, y, line)
        y += LEADING
    if columns == 2:
        top, left, width = y - LEADING * len(_fit(pdf, abstract, width, SIZE)) - (16 if heading else 0), \
            MARGIN_X + width + GUTTER, width
        y = top
    else:
        y += 18
        left, width = MARGIN_X, PAGE_W - 2 * MARGIN_X
    pdf.set_font("Helvetica", "B", 12)
    pdf.text(left, y, "1 Introduction")
    y += 16
    for line in _fit(pdf, f"{INTRO} {FILLER} {FILLER}", width, SIZE):
        pdf.set_font("Helvetica", "", SIZE)
        pdf.text(left, y, line)
        y += LEADING
    if venue == "NeurIPS":
        pdf.set_font("Helvetica", "", 9)
        pdf.text(MARGIN_X, 730, VENUE_LINES[venue])
    elif venue == "ICML":
        lines = _fit(pdf, VENUE_LINES[venue], (PAGE_W - 2 * MARGIN_X - GUTTER) / 2, 8)
        for k, line in enumerate(lines):
            pdf.set_font("Helvetica", "", 8)
            pdf.text(MARGIN_X, 740 - 10 * (len(lines) - k), line)
    pdf.add_page()
    if venue == "ICLR":
        pdf.set_font("Helvetica", "", 9)
        pdf.text(MARGIN_X, 40, VENUE_LINES[venue])
    y = TOP
    pdf.set_font("Helvetica", "B", 12)
    pdf.text(MARGIN_X, y, "2 Method")
    for line in _fit(pdf, f"{METHOD} {RESULTS} {FILLER}", PAGE_W - 2 * MARGIN_X, SIZE):
        y += LEADING
        pdf.set_font("Helvetica", "", SIZE)
        pdf.text(MARGIN_X, y, line)
    path.write_bytes(bytes(pdf.output()))
    return path


def empty(path: Path) -> Path:
    path.write_bytes(b"")
    return path


# A paper shaped like a real RL-for-LLMs paper: what the extractive engine's tests check against.
# Its abstract opens with the motivation; the contribution comes third. Its experiments hold a
# benchmark table without the method, the main table (header row, group header rows, the method
# and baselines, two rows run together), an ablation table followed by two rows run together on
# one prose line, and an algorithm block.
RESULTS_TITLE = "Jackpot: Stable Off-Policy Reinforcement Learning with Budgeted Rejection"
RESULTS_ABSTRACT = (
    "Reinforcement learning has become the standard way to improve the reasoning of large language models. "
    "Decoupling rollout generation from policy training makes training faster, but the mismatch between the "
    "rollout policy and the trained policy destabilizes learning. "
    "We propose Jackpot, a rejection sampling scheme that keeps running estimates of the importance ratio and "
    "discards tokens whose ratio falls outside a budget, achieving performance comparable to on-policy training. "
    "Its thresholds rarely need tuning across model sizes. "
    "On math reasoning benchmarks Jackpot improves accuracy by 4.2 points over truncated importance sampling "
    "and trains 1.9x faster than synchronous training.")
ALGORITHM = ("Algorithm 1 Jackpot budgeted rejection", "Require: rollout policy mu, trained policy pi, budget B",
             "1: for each batch of rollouts do", "2: Compute token ratios r = pi / mu",
             "20: Estimate correction factor kappa = 0.8375 from running means", "21: end for")
MERGED_LINE = "Only Reverse KL 0.7417 0.4535 TIS + Reverse KL 0.8250 0.4771"
BENCHMARK_TABLE = Table((("Benchmark", "Problems", "Tokens"), ("MATH500", "500", "312.5"), ("AIME24", "30", "1024.0")),
                        caption="Table 1: Benchmarks and their mean answer length.")
MAIN_TABLE = Table((("Method", "MATH500", "AIME24", "Avg"),
                    ("Qwen3-1.7B",),
                    ("GRPO", "0.6120", "0.1333", "0.3727"),
                    ("TIS", "0.6380", "0.1667", "0.4024"),
                    ("Jackpot (ours)", "0.6800", "0.2000", "0.4400"),
                    ("Qwen3-8B",),
                    ("GRPO", "0.8020", "0.3000", "0.5510"),
                    ("RKL", "0.7417", "0.4535", "TIS+RKL", "0.8250"),
                    ("Jackpot (ours)", "0.8460", "0.3667", "0.6064")),
                   caption="Table 2: Accuracy after 400 steps of off-policy training.")
ABLATION_TABLE = Table((("Variant", "MATH500", "AIME24"), ("No budget", "0.8100", "0.3333"),
                        ("Fixed threshold", "0.8270", "0.3333")),
                       caption="Table 3: Ablations on Qwen3-8B.")
RESULTS_PROSE = ("Table 2 compares Jackpot with the baselines. On Qwen3-8B, Jackpot reaches 0.8460 on MATH500, "
                 "4.4 points above GRPO, and its average of 0.6064 is the best of all methods.")


def results_paper(path: Path) -> Path:
    """A paper with a results table (header row, groups, baselines, the method) and an algorithm block."""
    paper = Paper(RESULTS_TITLE)
    paper.front("Ada Reader, Bob Parser", RESULTS_ABSTRACT)
    paper.flow([Heading("1", "Introduction"), Para(INTRO), Heading("2", "Method"), Para(METHOD)], columns=2)
    paper.flow([Heading("3", "Experiments"), Para("We train on math problems and report accuracy."),
                BENCHMARK_TABLE, Para("Our setup follows the usual recipe, listed in Algorithm 1."),
                Lines(ALGORITHM), Heading("3.1", "Main Results", 2), Para(RESULTS_PROSE), MAIN_TABLE,
                Heading("3.2", "Ablations", 2), Para(ABLATION), ABLATION_TABLE, Lines((MERGED_LINE,)),
                Heading("4", "Limitations"), Para(LIMITS)], columns=1, new_page=True)
    return paper.save(path)


# A paper with figures and tables: what the figure tests check against.
FIGURE_1 = "Figure 1: Overview of Gutter Networks. Three stages read a page: gutter, bands, lines."
FIGURE_2 = "Figure 2 Accuracy grows with the number of bands on GutterBench."
TABLE_1 = "Table 1: Results on GutterBench, accuracy in percent."
RESULTS_ROWS = (("Method", "Hard", "Easy", "Mean"), ("PlainReader", "39.25", "44.10", "41.68"),
                ("Ours", "46.42", "51.31", "48.87"))
SPLIT_START = "Each stage keeps the order of the lines it gets, and"
SPLIT_END = "none of them looks at a line twice."
MATH_JUNK = "The loss is L = \x00x\x01 + \x1fy summed over pages."


def figures_blocks() -> list[Block]:
    """A vector figure captioned "Figure 1:" that interrupts a running sentence at a column turn, a raster
    figure captioned "Figure 2 …" (no colon), a ruled results table, control bytes from a "math font"."""
    return [
        Heading("1", "Introduction"), Para(INTRO), Para(FILLER), Para(FILLER), Para(FILLER), Para(FILLER),
        Para(FILLER), Para(FILLER), Lines((SPLIT_START,)), ColumnBreak(), Figure(FIGURE_1, "vector"),
        Lines((SPLIT_END,)), Para("As shown in Figure 1 and Table 1, the reader is fast. " + MATH_JUNK),
        Heading("2", "Experiments"), Para(RESULTS), RuledTable(RESULTS_ROWS, TABLE_1), Para(ABLATION),
        Figure(FIGURE_2, "raster", 90.0), Para(FILLER),
    ]


def figures_paper(path: Path, columns: int = 2, pdflatex: bool = False) -> tuple[Path, list[Drawn]]:
    """A paper with two figures and a table; the PDF and where each was drawn (``pdflatex``: see ``Paper``)."""
    paper = Paper("Gutter Networks with Figures", header="", pdflatex=pdflatex)
    paper.front("Ada Reader, Bob Parser", ABSTRACT)
    paper.flow(figures_blocks(), columns=columns)
    paper.flow([Heading("", "References"), Para(REFERENCES)], columns=columns)
    return paper.save(path), paper.drawn
