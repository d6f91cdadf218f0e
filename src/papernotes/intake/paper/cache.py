"""Reading stage, cache: what reading a PDF found, by the SHA-256 of its PDF, under ``CORPUS/.papernotes/papers/``.

In: a ``PaperText`` or a ``FigureRecord`` (or a hash to look up). Out: the same record read back, or ``None``
when absent, stale or damaged. One gzip'd JSON file per paper, written atomically, so a killed run leaves either
the old file or the new one; deleting the folder is always safe.

A paper's file holds its figure record (the figures and tables found from their captions, or why PDFium could
not look for them) and, once the paper has been read whole, its text. This is the one place a PDF's figures are
kept: the site finds a PDF's figures alone (a fraction of reading it whole) and stores them here, reading the
paper later takes them from here, and the site shows those of a paper read before; ``site/figures.py`` keeps only
the images it renders from them.

Stale means read by other code: ``reader_version()`` is a digest of the reading modules' source
(``papernotes.codeversion``), so a change of the code that reads a PDF makes each paper read again on next use,
and a change elsewhere does not. No version to bump by hand.
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from papernotes.codeversion import code_version
from papernotes.disk import atomic_write
from papernotes.intake.paper.model import Figure, PaperText
from papernotes.layout import CACHE_DIR, PAPERS_DIR, paper_cache_file

FOLDER = PAPERS_DIR
READER = "papernotes.intake.paper.read"
"""The module whose code, with all it imports, makes the records: their version is its ``code_version``."""


@dataclass(frozen=True, slots=True)
class FigureRecord:
    """The figures and tables reading a PDF finds (``papernotes.intake.paper.figures``), stored once per PDF."""

    sha256: str
    figures: tuple[Figure, ...]
    """In page order; a caption whose picture was not found is listed with ``located`` false."""
    tables: tuple[Figure, ...]
    error: str = ""
    """Why none could be looked for (PDFium refused the file), ``""`` when they were."""


def reader_version() -> str:
    return code_version(READER)


def cache_dir(corpus: Path) -> Path:
    return corpus / CACHE_DIR / FOLDER


def load(folder: Path, sha256: str) -> PaperText | None:
    """The paper read whole, ``None`` when only its figures (or nothing) are stored."""
    data = _read(folder, sha256)
    if data is None or not isinstance(data.get("text"), dict):
        return None
    try:
        return PaperText.from_dict({**data["text"], "figures": data["figures"], "tables": data["tables"]})
    except (KeyError, TypeError, ValueError, AttributeError):  # damaged: read the PDF again
        return None


def load_figures(folder: Path, sha256: str) -> FigureRecord | None:
    """The figure record of the PDF ``sha256``, whether or not its text was read."""
    data = _read(folder, sha256)
    if data is None:
        return None
    try:
        return FigureRecord(sha256, tuple(Figure.from_dict("figure", f) for f in data["figures"]),
                            tuple(Figure.from_dict("table", t) for t in data["tables"]), str(data.get("error", "")))
    except (KeyError, TypeError, ValueError, AttributeError):  # damaged: find them again
        return None


def save(folder: Path, paper: PaperText, figures_error: str = "") -> None:
    """Store a paper read whole (``figures_error``: why its figures could not be looked for)."""
    text = paper.to_dict()
    figures, tables = text.pop("figures"), text.pop("tables")
    _write(folder, paper.sha256, {"figures": figures, "tables": tables, "error": figures_error, "text": text})


def save_figures(folder: Path, record: FigureRecord) -> None:
    """Store the figure record of a PDF whose text was not read (reading it later keeps these figures)."""
    _write(folder, record.sha256, {"figures": [f.to_dict() for f in record.figures],
                                   "tables": [t.to_dict() for t in record.tables], "error": record.error})


def _file(folder: Path, sha256: str) -> Path:
    return Path(paper_cache_file(str(folder), sha256))  # the rule the build stats places by (layout.py)


def _read(folder: Path, sha256: str) -> dict[str, Any] | None:
    try:
        data = json.loads(gzip.decompress(_file(folder, sha256).read_bytes()))
    except (OSError, EOFError, ValueError):  # absent or damaged (gzip's BadGzipFile is an OSError)
        return None
    return data if isinstance(data, dict) and data.get("reader") == reader_version() else None


def _write(folder: Path, sha256: str, record: dict[str, Any]) -> None:
    payload = json.dumps({"reader": reader_version(), **record}, ensure_ascii=False)
    atomic_write(_file(folder, sha256), gzip.compress(payload.encode("utf-8"), compresslevel=6, mtime=0))
