"""Load stage: a corpus directory becomes parsed notes plus diagnostics (the files found by ``corpus/scan.py``).

I/O edge of the pipeline: walks the directory, parses the files whose mtime or
size changed since the cache saw them (in parallel when there are many) and
keeps the rest in the cache, decoded only when asked for: a rebuild after one
edit parses one file and decodes only the notes its pages show.
"""
from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papernotes.cache import BuildCache, NoteRow
from papernotes.cache_records import columns, decode_problem, encode_problem
from papernotes.corpus import limits
from papernotes.corpus.scan import (
    OutsideCorpus,
    Scan,
    SourceFile,
    paper_stat,
    note_digest,
    read_inside,
    scan_corpus,
    with_paper,
)
from papernotes.errors import Diagnostic, error, warning
from papernotes.layout import CACHE_DIR, paper_of

if TYPE_CHECKING:  # parsing and decoding load only when needed: a no-op build stays light
    from papernotes.corpus.model import Note

PARALLEL_THRESHOLD = 400


def read_note(root: Path, rel: str) -> tuple[Note | None, list[Diagnostic], str]:
    """Read and parse one file; undecodable, unreadable, oversized files and links out of the corpus
    become diagnostics (nothing is read through a link that leaves ``root``)."""
    try:
        data = read_inside(root, rel, limits.MAX_NOTE_BYTES + 1)
    except OutsideCorpus as exc:
        return None, [warning(rel, 0, f"{exc}; not read, not published", "symlink")], ""
    except OSError as exc:
        return None, [error(rel, 0, f"cannot read file: {exc.strerror or exc}", "io")], ""
    if (problem := limits.check_note_bytes(rel, data)) is not None:
        return None, [problem], ""
    # lazy: 125 ms (importtime, beside papernotes.corpus.load): an up-to-date build decodes no note
    from papernotes.corpus.parse import (
        parse_note,  # the Markdown engine loads only when a file changed
    )

    digest, paper = note_digest(root, rel, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [error(rel, line, "file is not valid UTF-8", "encoding")], digest
    note, problems = parse_note(rel, text, digest)
    if note is not None and paper:
        note = replace(note, paper=paper)
    return note, problems, digest


def _encoded(note: Note | None, problems: list[Diagnostic]) -> tuple[Any, tuple[Any, ...]]:
    return (note.to_row() if note is not None else None, tuple(encode_problem(d) for d in problems))


def _read_many(args: tuple[str, list[str]]) -> list[tuple[str, Any, Any, str]]:
    """Worker side of ``_parse_files``: plain tuples pickle several times faster than dataclasses."""
    root, rels = args
    base = Path(root)
    out = []
    for rel in rels:
        note, problems, digest = read_note(base, rel)
        out.append((rel, *_encoded(note, problems), digest))
    return out


def _parse_files(root: Path, rels: list[str], workers: int) -> dict[str, tuple[Note | None, list[Diagnostic], str]]:
    if len(rels) < PARALLEL_THRESHOLD or workers < 2:
        return {rel: read_note(root, rel) for rel in rels}
    # lazy: 38 ms (importtime, beside papernotes.corpus.load): an up-to-date build decodes no note
    from concurrent.futures import ProcessPoolExecutor

    from papernotes.corpus.model import Note

    chunk = max(50, len(rels) // (workers * 4) + 1)
    jobs = [(str(root), rels[i:i + chunk]) for i in range(0, len(rels), chunk)]
    out: dict[str, tuple[Note | None, list[Diagnostic], str]] = {}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_read_many, jobs):
            for rel, note_row, rows, digest in part:
                note = Note.from_row(note_row) if note_row is not None else None
                out[rel] = (note, [decode_problem(r) for r in rows], digest)
    return out


def cache_path(root: Path) -> Path:
    return root / CACHE_DIR / "cache.sqlite"


@dataclass
class LoadedCorpus:
    """The corpus as the cache and this run's parse see it; unchanged notes are decoded on demand.

    Reads the cache lazily: use it while the ``BuildCache`` is open.
    """

    root: Path
    fresh: dict[str, tuple[Note | None, list[Diagnostic], str]]
    """Files parsed by this run (new or changed since the cache saw them)."""
    removed: tuple[str, ...]
    """Files the cache knew that are gone."""
    cache: BuildCache
    generation: int = 0
    """The parse cache's generation every row read from now on is at least as new as (see ``Published``)."""
    _digests: dict[str, str] | None = field(default=None, repr=False)
    _notes: tuple[Note, ...] | None = field(default=None, repr=False)
    _diagnostics: tuple[Diagnostic, ...] | None = field(default=None, repr=False)

    @property
    def digests(self) -> dict[str, str]:
        """Every note file (path order) -> digest of its bytes (read from the cache on first use)."""
        if self._digests is None:
            self._digests = self.cache.note_digests()
        return self._digests

    def parsed(self, paths: list[str]) -> dict[str, Note | None]:
        """The notes at ``paths`` (``None`` for files that did not parse)."""
        out: dict[str, Note | None] = {p: self.fresh[p][0] for p in paths if p in self.fresh}
        rest = [p for p in paths if p not in out]
        # lazy: 19 ms (importtime, beside papernotes.corpus.load): an up-to-date build decodes no note
        from papernotes.corpus.model import Note

        for path, record in self.cache.note_records(rest).items():
            out[path] = Note.from_row(record) if record is not None else None
        return out

    @property
    def notes(self) -> tuple[Note, ...]:
        """Every note that parsed (possibly with errors), sorted by path; decodes the whole cache once."""
        if self._notes is None:
            # lazy: 15 ms (importtime, beside papernotes.corpus.load): an up-to-date build decodes no note
            from papernotes.corpus.model import Note

            cached = self.cache.note_records() if len(self.fresh) < len(self.digests) else {}
            notes = []
            for path in self.digests:
                found = self.fresh.get(path)
                if found is not None:
                    note = found[0]
                else:
                    record = cached[path]
                    note = Note.from_row(record) if record is not None else None
                if note is not None:
                    notes.append(note)
            self._notes = tuple(notes)
        return self._notes

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Every parse diagnostic, in path order (read without decoding the notes)."""
        if self._diagnostics is None:
            found: dict[str, tuple[Diagnostic, ...] | list[Diagnostic]] = dict(self.cache.note_problems())
            found.update((path, problems) for path, (_, problems, _) in self.fresh.items())
            self._diagnostics = tuple(d for path in sorted(found) for d in found[path])
        return self._diagnostics


def load_corpus(root: Path, cache: BuildCache, workers: int | None = None, found: Scan | None = None) -> LoadedCorpus:
    """Parse what changed in ``root`` (scanned now, unless ``found`` is given) since the cache saw it.

    Entries the scan refused are kept in the cache as files that did not parse, with
    their warning or error, so every command that loads the corpus reports them.
    """
    scanned = found or scan_corpus(root)
    refused = {r.path: r for r in scanned.refused}
    packed = scanned.columns
    if refused:  # kept as files that did not parse
        packed = columns(sorted([*scanned.files, *(SourceFile(r.path, r.mtime_ns, r.size) for r in refused.values())]))
    workers = workers or os.cpu_count() or 1
    generation = cache.generation()  # before the comparison: a save by another process after it is newer
    stale, removed = cache.stale_notes(packed)
    fresh = _parse_files(root, [path for path, _, _ in stale if path not in refused], workers)
    for path, _, _ in stale:
        if (r := refused.get(path)) is not None:
            fresh[path] = (None, [(error if r.is_error else warning)(r.path, 0, r.message, "scan")], "")
    if fresh or removed or not cache.has_scan():
        generation = _saved(generation, cache.save_notes(
            {path: NoteRow(mtime_ns, size, fresh[path][2], *_encoded(*fresh[path][:2])) for path, mtime_ns, size in stale},
            removed, scanned=packed))
    return LoadedCorpus(root, fresh, tuple(removed), cache, generation)


def _saved(before: int, saved: int) -> int:
    """The generation a load's rows are as new as: the one it saved, unless another process saved in between."""
    return saved if saved == before + 1 else before


def load_paths(root: Path, cache: BuildCache, paths: Collection[str]) -> LoadedCorpus:
    """Parse just ``paths`` (a watcher saw them change); a path that is gone is dropped from the cache."""
    found, gone = [], []
    generation = cache.generation()
    for rel in sorted(paths):
        try:
            st = os.stat(root / rel)
        except OSError:
            gone.append(rel)
            continue
        paper_st = paper_stat(root / paper_of(rel))
        found.append(SourceFile(rel, st.st_mtime_ns if paper_st is None else with_paper(st.st_mtime_ns, paper_st),
                                st.st_size))
    fresh = _parse_files(root, [f.path for f in found], 1)
    generation = _saved(generation, cache.save_notes(
        {f.path: NoteRow(f.mtime_ns, f.size, fresh[f.path][2], *_encoded(*fresh[f.path][:2])) for f in found}, gone))
    return LoadedCorpus(root, fresh, tuple(gone), cache, generation)
