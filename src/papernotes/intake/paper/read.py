"""Reading stage, orchestration: a PDF path becomes a ``PaperText``.

In: the PDF and, when the paper belongs to a corpus, the cache folder. Out: a
``PaperText`` (from the cache when the PDF's hash is known) or a
``PaperError``. Steps, in order: extract (pypdf) → layout (reading order) →
cleanup (junk lines) → sections (outline or numbered headings, references
cut, appendix apart, paragraphs); beside them, page 1's front matter (title,
authors, abstract, arXiv id, venue line); figures and tables from their
captions (pypdfium2) come first, so the labels drawn inside a figure stay out
of the text. ``figure_record`` is that step alone: the site finds a PDF's
figures with it when the paper was never read, and stores them in the same
cache, where reading the paper later finds them.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path

from papernotes.layout import CACHE_DIR, CONFIG_NAME
from papernotes.intake.paper.cache import FigureRecord, load as load_cached, load_figures, save as save_cached
from papernotes.intake.paper.cleanup import clean_lines, known_hyphenated
from papernotes.intake.paper.extract import RawDocument, extract_document
from papernotes.intake.paper.figures import find_figures
from papernotes.intake.paper.front import read_front
from papernotes.intake.paper.layout import Line, reading_order
from papernotes.intake.paper.model import Figure, PaperError, PaperText
from papernotes.intake.paper.sections import split_sections
from papernotes.intake.plausible import title_problem

LABEL_WORDS = 8
"""Words from which a line inside a figure's box is a sentence, not one of the figure's labels."""


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise PaperError(str(path), "file not found", "missing") from None
    except OSError as exc:
        raise PaperError(str(path), f"cannot read file: {exc.strerror}", "unreadable") from None


def build_paper(doc: RawDocument, sha256: str, figures: tuple[Figure, ...] = (), name: str = "") -> PaperText:
    """The pure part of reading: positioned fragments to sections (a figure's own labels left out).

    The title is the first page's (``front``); when that gives none that is plausible, the PDF metadata's
    title, else the file ``name`` (its stem, ``_`` and ``-`` read as spaces), and ``doubts`` says which.
    """
    lines: list[Line] = [line for page in doc.pages for line in reading_order(page)]
    lines = clean_lines(_outside(lines, _boxes(doc, figures)), {p.number: p.height for p in doc.pages})
    body, appendix, cut, source = split_sections(lines, doc.outline, known_hyphenated(lines))
    boxes = _boxes(doc, figures)
    front = read_front(doc, boxes=boxes.get(next((p.number for p in doc.pages if p.fragments), 1), []))
    title, doubts = front.title, list(front.doubts)
    if not title:
        meta = doc.title if len(doc.title) > 3 and not re.fullmatch(r"[\w-]+\.(?:pdf|dvi|tex)", doc.title) else ""
        stem = " ".join(re.sub(r"[_-]+", " ", name).split())
        if meta and title_problem(meta) is None:
            title, taken = meta, "the title is the PDF metadata's"
        else:
            title, taken = (stem, "the title is the file name") if stem else ("", "no title found")
        doubts = [f"{taken}: {doubts[0]}" if doubts else taken, *doubts[1:]]
    empty = tuple(p.number for p in doc.pages if not p.fragments)
    return PaperText(sha256, len(doc.pages), title, body, appendix, cut, source, empty,
                     front.authors, front.abstract, front.arxiv, front.venue_text, doubts=tuple(doubts))


def _boxes(doc: RawDocument, figures: tuple[Figure, ...]) -> dict[int, list[tuple[float, float, float, float]]]:
    """Each page's figure boxes in the page's own coordinates (those of its lines), a point wider all round."""
    boxes: dict[int, list[tuple[float, float, float, float]]] = {}
    for figure in figures:
        page = doc.pages[figure.page - 1] if 0 < figure.page <= len(doc.pages) else None
        if page is not None and page.upright and figure.located:
            (ox, oy), (x0, y0, x1, y1) = page.origin, figure.bbox
            boxes.setdefault(figure.page, []).append((x0 - ox - 1, y0 - oy - 1, x1 - ox + 1, y1 - oy + 1))
    return boxes


def _outside(lines: list[Line], boxes: dict[int, list[tuple[float, float, float, float]]]) -> list[Line]:
    """``lines`` without the labels drawn inside a figure (node names, axis ticks, legends: not prose).

    A line of a sentence (``LABEL_WORDS`` words or more) is kept even there: a figure box is found, not given.
    """
    return [line for line in lines if len(line.text.split()) >= LABEL_WORDS or not any(
        b[0] <= line.x and line.right <= b[2] and b[1] <= line.y <= b[3] for b in boxes.get(line.page, ()))]


def read_paper(path: Path, cache_folder: Path | None = None) -> PaperText:
    """Read ``path``; with ``cache_folder``, reuse and store the result under the PDF's SHA-256 (a paper whose
    figures alone are stored, found by the site, is read with those figures)."""
    data = read_bytes(path)
    sha256 = hashlib.sha256(data).hexdigest()
    if cache_folder is not None and (hit := load_cached(cache_folder, sha256)) is not None:
        return hit
    doc = extract_document(str(path), data)
    found = load_figures(cache_folder, sha256) if cache_folder is not None else None
    if found is None:
        found = figure_record(str(path), data, sha256)
    paper = replace(build_paper(doc, sha256, found.figures, path.stem), figures=found.figures, tables=found.tables)
    if cache_folder is not None:
        try:
            save_cached(cache_folder, paper, found.error)
        except OSError:  # a read-only corpus still reads; it just reads again next time
            pass
    return paper


def figure_record(path: str, data: bytes, sha256: str) -> FigureRecord:
    """The figures and tables of the PDF ``data`` (named ``path`` in messages), as reading it finds them."""
    try:
        figures, tables = find_figures(path, data)
    except PaperError as exc:  # pypdf may read the text; a PDF pdfium refuses only loses its figures
        return FigureRecord(sha256, (), (), exc.reason)
    return FigureRecord(sha256, figures, tables)


def is_cached(path: Path, cache_folder: Path) -> bool:
    """Whether reading ``path`` would be a cache hit (hashes the file; no parsing)."""
    try:
        return load_cached(cache_folder, hashlib.sha256(path.read_bytes()).hexdigest()) is not None
    except OSError:
        return False


def find_corpus(pdf: Path) -> Path | None:
    """The corpus a PDF lives in: the nearest folder above it with ``papernotes.toml`` or ``.papernotes/``."""
    for folder in pdf.resolve().parents:
        if (folder / CONFIG_NAME).is_file() or (folder / CACHE_DIR).is_dir():
            return folder
    return None


def paper_path(note_file: Path) -> Path:
    """A note's paper: the PDF with the same stem beside it (``foo.md`` ↔ ``foo.pdf``)."""
    return note_file.with_suffix(".pdf")
