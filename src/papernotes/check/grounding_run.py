"""Check stage, grounding over a corpus: every note with its paper beside it gets its numbers checked (I/O edge).

In: the corpus root and its parsed notes. A note's paper is the PDF with the
same stem beside it (``foo.md`` ↔ ``foo.pdf``); notes without one are skipped.
Out: a ``GroundingReport`` — per note the numbers checked and unsupported, a
``path:line: warning: 0.673 is not in the paper (nearest: 0.4642, p. 7)``
diagnostic per unsupported number, one warning per unreadable PDF — also
saved as ``CORPUS/.papernotes/grounding.json`` for ``check --json`` and later
stages. Papers are read through the reading cache (by PDF hash), in worker
processes when many are new.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from papernotes.corpus.frontmatter import split_front_matter
from papernotes.corpus.model import Note
from papernotes.disk import atomic_write
from papernotes.errors import Diagnostic, warning
from papernotes.extras import require
from papernotes.intake.grounding import Finding, ground, note_numbers
from papernotes.intake.paper import cache_dir, paper_path, PaperError, read_paper
from papernotes.intake.paper.read import is_cached
from papernotes.layout import CACHE_DIR

REPORT = "grounding.json"
PARALLEL_THRESHOLD = 8


@dataclass(frozen=True, slots=True)
class NoteGrounding:
    """What the grounding check found for one note (the record phase 2 writes into front matter)."""

    path: str
    pdf: str
    """The paper, relative to the corpus."""
    pdf_sha256: str
    checked: int
    """Numbers the note states that were looked up in the paper."""
    unsupported: tuple[Finding, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "pdf": self.pdf, "pdf_sha256": self.pdf_sha256, "checked": self.checked,
                "unsupported": len(self.unsupported),
                "numbers": [{"line": f.number.where, "text": f.number.text,
                             "nearest": f.nearest.text if f.nearest else None,
                             "page": f.nearest.where if f.nearest else None} for f in self.unsupported]}


@dataclass(frozen=True, slots=True)
class GroundingReport:
    notes: tuple[NoteGrounding, ...]
    skipped: int
    """Notes without a PDF beside them."""
    unreadable: tuple[str, ...]
    """PDFs that could not be read (reported as warnings)."""
    diagnostics: tuple[Diagnostic, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"checked_notes": len(self.notes), "skipped": self.skipped, "unreadable": list(self.unreadable),
                "numbers": sum(n.checked for n in self.notes),
                "unsupported": sum(len(n.unsupported) for n in self.notes),
                "notes": [n.to_dict() for n in self.notes]}


def ground_note(root: Path, path: str, summary: str = "", summary_line: int = 0) -> NoteGrounding | None:
    """Ground one note (``path`` relative to ``root``); ``None`` when it has no PDF. Raises ``PaperError``."""

    note_file = root / path
    pdf = paper_path(note_file)
    if not pdf.is_file():
        return None
    paper = read_paper(pdf, cache_dir(root))
    text = note_file.read_text(encoding="utf-8").replace("\r\n", "\n")
    _, body, body_line = split_front_matter(text)
    findings = ground(note_numbers(body, body_line, summary, summary_line), paper)
    return NoteGrounding(path, pdf.relative_to(root).as_posix(), paper.sha256, len(findings),
                         tuple(f for f in findings if not f.supported))


def _ground_many(args: tuple[str, list[tuple[str, str, int]]]) -> list[tuple[str, NoteGrounding | None, str]]:
    """Worker: (path, result or None, error message) per note."""
    root = Path(args[0])
    out: list[tuple[str, NoteGrounding | None, str]] = []
    for path, summary, summary_line in args[1]:
        try:
            out.append((path, ground_note(root, path, summary, summary_line), ""))
        except PaperError as exc:
            out.append((path, None, exc.reason))
        except (OSError, UnicodeDecodeError) as exc:
            out.append((path, None, f"cannot read: {exc}"))
    return out


def ground_corpus(root: Path, notes: Sequence[Note], workers: int | None = None) -> GroundingReport:
    """Ground every note that has its PDF beside it; save the report under ``.papernotes/``."""
    # the summary counts when front matter states it; one taken from the body is checked there
    jobs = [(n.path, n.summary, n.line_of("summary") if "summary" in n.field_lines else 0) for n in notes
            if (root / n.path).with_suffix(".pdf").is_file()]
    if jobs:
        require("pypdf", "check --grounding")
    workers = workers or os.cpu_count() or 1
    if len(jobs) >= PARALLEL_THRESHOLD and workers >= 2:
        folder = cache_dir(root)  # worker processes pay off only for papers not read yet
        fresh = sum(not is_cached((root / path).with_suffix(".pdf"), folder) for path, _, _ in jobs)
        workers = workers if fresh >= PARALLEL_THRESHOLD else 1
    if len(jobs) < PARALLEL_THRESHOLD or workers < 2:
        results = _ground_many((str(root), jobs))
    else:
        chunk = max(1, len(jobs) // (workers * 4))
        parts = [(str(root), jobs[i:i + chunk]) for i in range(0, len(jobs), chunk)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = [row for part in pool.map(_ground_many, parts) for row in part]
    grounded: list[NoteGrounding] = []
    unreadable: list[str] = []
    diagnostics: list[Diagnostic] = []
    for path, result, failure in results:
        if result is None and not failure:  # the PDF went away meanwhile
            continue
        if result is None:
            pdf = Path(path).with_suffix(".pdf").as_posix()
            unreadable.append(pdf)
            diagnostics.append(warning(pdf, 0, f"{failure}; the numbers of {path} are not checked", "paper-unreadable"))
            continue
        grounded.append(result)
        diagnostics.extend(warning(path, f.number.where, f.message(), "ungrounded") for f in result.unsupported)
    report = GroundingReport(tuple(grounded), len(notes) - len(jobs), tuple(unreadable), tuple(diagnostics))
    save_report(root, report)
    return report


def save_report(root: Path, report: GroundingReport) -> None:
    try:
        atomic_write(root / CACHE_DIR / REPORT, json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
    except OSError:  # a read-only corpus is still checked; only the saved report is missing
        pass


def load_report(root: Path) -> dict[str, Any] | None:
    """The report the last ``check --grounding`` saved, or ``None``."""
    try:
        return json.loads((root / CACHE_DIR / REPORT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
