"""Records of the reading stage: what a paper's PDF says, as the pipeline sees it.

``PaperText`` is the output of ``papernotes.intake.paper.read_paper`` and the
input of drafting and of the grounding check. It is immutable and plain enough
to go through JSON unchanged (the cache stores it that way).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from papernotes.errors import PapernotesError

OutlineSource = Literal["outline", "headings", "none"]
SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """``text`` with each UTF-16 surrogate pair that PDFium hands over as two code points joined into its
    character (``\\ud835\\udefd`` → 𝛽) and a lone half dropped: a lone surrogate cannot be encoded, so
    JSON, a prompt or a page holding one fails to write. No text leaves the reader without passing here."""
    if SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "ignore")


class PaperError(PapernotesError):
    """A PDF that cannot be read: callers report it (``path: error: …``) and fall back to the abstract."""

    exit_code = 1

    def __init__(self, path: str, reason: str, kind: str) -> None:
        self.path = path
        self.reason = reason
        self.kind = kind
        """One of ``not-pdf``, ``truncated``, ``encrypted``, ``no-text``, ``unreadable``, ``missing``."""
        super().__init__(f"{path}: {reason}")


@dataclass(frozen=True, slots=True)
class Paragraph:
    text: str
    """Prose joined into one line; table rows stay one per line (``\\n``), cells verbatim."""
    page: int
    """1-based page the paragraph starts on."""


@dataclass(frozen=True, slots=True)
class Section:
    number: str
    """As printed: ``3.2``, ``A``, ``A.1``; ``""`` for unnumbered sections and the front matter."""
    title: str
    """Heading text without its number; ``""`` for the text before the first heading (title, abstract)."""
    page: int
    level: int
    """1 for ``3``, 2 for ``3.2``…; 0 for the front matter before the first heading."""
    paragraphs: tuple[Paragraph, ...]

    @property
    def heading(self) -> str:
        return f"{self.number} {self.title}".strip()


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure or table of the paper, found from its caption (``papernotes.intake.paper.figures``)."""

    kind: Literal["figure", "table"]
    label: str
    """``Figure 1``, ``Table 2``: the printed label, spacing normalised (``Fig. 1`` reads ``Figure 1``)."""
    number: int
    page: int
    """1-based."""
    bbox: tuple[float, float, float, float]
    """x0, y0, x1, y1 in PDF points, origin bottom-left: a figure's drawings and images, a table's rows and rules."""
    caption: str
    """The whole caption, label included, cleaned."""
    rows: tuple[tuple[str, ...], ...] = ()
    """A table's rows top to bottom, cells as the page spaces them apart (verbatim); ``()`` for a figure."""

    @property
    def located(self) -> bool:
        """Whether its picture was found: a caption whose figure or table was not has a box of zeros."""
        return self.bbox[2] > self.bbox[0] and self.bbox[3] > self.bbox[1]

    def to_dict(self) -> dict[str, Any]:
        out = {"label": self.label, "page": self.page, "bbox": list(self.bbox), "caption": self.caption}
        return {**out, "rows": [list(r) for r in self.rows]} if self.kind == "table" else out

    @classmethod
    def from_dict(cls, kind: Literal["figure", "table"], data: dict[str, Any]) -> Figure:
        label = data["label"]
        x0, y0, x1, y1 = (float(v) for v in data["bbox"])
        rows = tuple(tuple(str(c) for c in row) for row in data.get("rows", ()))
        return cls(kind, label, int(label.rsplit(" ", 1)[-1]), data["page"], (x0, y0, x1, y1), data["caption"], rows)


@dataclass(frozen=True, slots=True)
class PaperText:
    """Everything the pipeline reads from one PDF."""

    sha256: str
    """Hash of the PDF's bytes: the cache key, and what a note's grounding record points at."""
    pages: int
    title: str
    """The first page's largest type (lines joined), else the PDF metadata, else the first line; may be ``""``."""
    sections: tuple[Section, ...]
    """The paper body in reading order, the front matter (title, authors, abstract) first."""
    appendix: tuple[Section, ...]
    """Sections after the references (or from the first ``A``/``Appendix`` heading), kept apart."""
    references_cut: bool
    """True when a References/Bibliography section was found and left out."""
    outline_source: OutlineSource
    """Where the sections came from: the PDF outline (bookmarks), numbered headings, or nothing found."""
    empty_pages: tuple[int, ...] = ()
    """1-based pages with no text layer (figures only, or scanned)."""
    authors: tuple[str, ...] = ()
    """Names printed under the title (``papernotes.intake.paper.front``)."""
    abstract: str = ""
    """The abstract as printed on the first page, one line; ``""`` when none was found."""
    arxiv: str = ""
    """arXiv id (no version) from the margin stamp or a line of page 1; ``""`` when none is printed."""
    venue_text: str = ""
    """Where the paper says it appeared ("Published as a conference paper at ICLR 2026"); ``""`` when it does not."""
    figures: tuple[Figure, ...] = ()
    """Figures found from their captions, in page order."""
    tables: tuple[Figure, ...] = ()
    """Tables found from their captions, in page order."""
    doubts: tuple[str, ...] = ()
    """What the first page did not give plainly, one phrase each (the title taken from the PDF metadata or the
    file name, no author names): ``ingest pdf`` and ``new --pdf`` warn and mark the note for review."""

    def paragraphs(self, appendix: bool = True) -> Iterator[tuple[Section, Paragraph]]:
        for section in (*self.sections, *(self.appendix if appendix else ())):
            for paragraph in section.paragraphs:
                yield section, paragraph

    def text(self, appendix: bool = True) -> str:
        """Plain text: headings and paragraphs separated by blank lines."""
        parts: list[str] = []
        for section in (*self.sections, *(self.appendix if appendix else ())):
            if section.heading:
                parts.append(section.heading)
            parts.extend(p.text for p in section.paragraphs)
        return "\n\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        def sections(items: tuple[Section, ...]) -> list[dict[str, Any]]:
            return [{"number": s.number, "title": s.title, "page": s.page, "level": s.level,
                     "paragraphs": [{"page": p.page, "text": p.text} for p in s.paragraphs]} for s in items]

        return {"sha256": self.sha256, "pages": self.pages, "title": self.title,
                "outline_source": self.outline_source, "references_cut": self.references_cut,
                "empty_pages": list(self.empty_pages), "authors": list(self.authors), "abstract": self.abstract,
                "arxiv": self.arxiv, "venue_text": self.venue_text,
                "sections": sections(self.sections), "appendix": sections(self.appendix),
                "figures": [f.to_dict() for f in self.figures], "tables": [t.to_dict() for t in self.tables],
                "doubts": list(self.doubts)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PaperText:
        def sections(items: list[dict[str, Any]]) -> tuple[Section, ...]:
            return tuple(Section(s["number"], s["title"], s["page"], s["level"],
                                 tuple(Paragraph(p["text"], p["page"]) for p in s["paragraphs"])) for s in items)

        return cls(data["sha256"], data["pages"], data["title"], sections(data["sections"]),
                   sections(data["appendix"]), data["references_cut"], data["outline_source"],
                   tuple(data.get("empty_pages", ())), tuple(data.get("authors", ())), data.get("abstract", ""),
                   data.get("arxiv", ""), data.get("venue_text", ""),
                   tuple(Figure.from_dict("figure", f) for f in data.get("figures", ())),
                   tuple(Figure.from_dict("table", t) for t in data.get("tables", ())),
                   tuple(data.get("doubts", ())))
