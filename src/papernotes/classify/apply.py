"""Classify stage, the one write: ``classify --apply`` files notes that have no domain.

In: the corpus root, its notes, one ``Prediction`` per note and the confidence
a prediction needs. Out: an ``Applied`` record: the notes given a domain, the
predictions left for review (below the threshold) and warnings for notes that
changed on disk meanwhile. Only ``domain:`` is written, through
``frontmatter.update`` (every other byte kept), atomically; nothing is moved,
and a note that already names a domain is never touched.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from papernotes.classify.prediction import Prediction
from papernotes.corpus.frontmatter import KEY_ORDER, FrontMatterError, read, update
from papernotes.corpus.scan import note_digest
from papernotes.corpus.model import Note
from papernotes.disk import atomic_write
from papernotes.errors import Diagnostic, warning


@dataclass(frozen=True, slots=True)
class Applied:
    written: tuple[Prediction, ...]
    """Predictions written into their note as ``domain:``."""
    review: tuple[Prediction, ...]
    """Predictions below the threshold: nothing written, listed for a person to decide."""
    diagnostics: tuple[Diagnostic, ...]
    """Notes not changed because they changed on disk or cannot be read again."""


def apply_domains(root: Path, notes: Sequence[Note], predictions: Sequence[Prediction],
                  min_confidence: float) -> Applied:
    """Write the predicted domain into each note without one whose prediction reaches ``min_confidence``."""
    by_path = {n.path: n for n in notes}
    written: list[Prediction] = []
    review: list[Prediction] = []
    problems: list[Diagnostic] = []
    for p in predictions:
        note = by_path.get(p.path)
        if note is None or note.domain:
            continue
        if not p.top or p.probability < min_confidence:  # no domain to write, or not sure enough
            review.append(p)
            continue
        why = _write(root, note, p.predicted)
        if why:
            problems.append(warning(note.path, p.line, f"not changed: {why}", "classify-apply"))
        else:
            written.append(p)
    return Applied(tuple(written), tuple(review), tuple(problems))


def _write(root: Path, note: Note, domain: str) -> str:
    """Write ``domain:`` into the note if its file is as it was read; what stopped it otherwise."""
    path = root / note.path
    try:
        data = path.read_bytes()
        source = data.decode("utf-8")
        current = read(source)[0].get("domain")
    except (OSError, UnicodeDecodeError, FrontMatterError) as exc:
        return f"cannot read it again ({exc})"
    if note.digest and note_digest(root, note.path, data)[0] != note.digest:
        return "the file changed while classifying"
    if current is not None and not (isinstance(current, str) and not current.strip()):
        return "its `domain` line is not empty"
    atomic_write(path, update(source, {"domain": domain}, order=KEY_ORDER).encode("utf-8"))
    return ""
