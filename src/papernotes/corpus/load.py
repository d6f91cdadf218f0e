"""Load stage: a corpus directory becomes parsed notes plus diagnostics.

I/O edge of the pipeline: walks the directory, parses the files whose mtime or
size changed since the cache saw them (in parallel when there are many) and
keeps the rest in the cache, decoded only when asked for: a rebuild after one
edit parses one file and decodes only the notes its pages show.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from papernotes.cache import BuildCache, NoteRow, decode_problem, encode_problem
from papernotes.config import CACHE_DIR
from papernotes.corpus.model import Note
from papernotes.errors import CorpusError, Diagnostic, error

SKIP_FILES = {"README.md", "readme.md", "CHANGELOG.md", "LICENSE.md"}
PARALLEL_THRESHOLD = 400


class SourceFile(NamedTuple):
    """A note file found by ``scan`` (a tuple: tens of thousands are made on every build)."""

    path: str
    """Relative to the corpus root, ``/``-separated."""
    mtime_ns: int
    size: int


def scan(root: Path) -> Iterator[SourceFile]:
    """Every note file under ``root``; skips hidden and ``_``-prefixed entries and README-like files."""
    stack = [("", root)]
    while stack:
        prefix, directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            raise CorpusError(f"{directory}: cannot list directory: {exc.strerror}") from exc
        for entry in entries:
            name = entry.name
            if name.startswith((".", "_")) or name == "node_modules":
                continue
            if entry.is_dir(follow_symlinks=True):
                stack.append((f"{prefix}{name}/", Path(entry.path)))
            elif name.endswith(".md") and not (prefix == "" and name in SKIP_FILES):
                st = entry.stat()
                yield SourceFile(prefix + name, st.st_mtime_ns, st.st_size)


def read_note(root: Path, rel: str) -> tuple[Note | None, list[Diagnostic], str]:
    """Read and parse one file; undecodable or unreadable files become diagnostics."""
    try:
        data = (root / rel).read_bytes()
    except OSError as exc:
        return None, [error(rel, 0, f"cannot read file: {exc.strerror}", "io")], ""
    from papernotes.corpus.parse import (
        parse_note,  # the Markdown engine loads only when a file changed
    )

    digest = hashlib.sha1(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [error(rel, line, "file is not valid UTF-8", "encoding")], digest
    note, problems = parse_note(rel, text, digest)
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
    digests: dict[str, str]
    """Every note file (path order) -> digest of its bytes."""
    fresh: dict[str, tuple[Note | None, list[Diagnostic], str]]
    """Files parsed by this run (new or changed since the cache saw them)."""
    cache: BuildCache
    _notes: tuple[Note, ...] | None = field(default=None, repr=False)
    _diagnostics: tuple[Diagnostic, ...] | None = field(default=None, repr=False)

    def parsed(self, paths: list[str]) -> dict[str, Note | None]:
        """The notes at ``paths`` (``None`` for files that did not parse)."""
        out: dict[str, Note | None] = {p: self.fresh[p][0] for p in paths if p in self.fresh}
        rest = [p for p in paths if p not in out]
        for path, record in self.cache.note_records(rest).items():
            out[path] = Note.from_row(record) if record is not None else None
        return out

    @property
    def notes(self) -> tuple[Note, ...]:
        """Every note that parsed (possibly with errors), sorted by path; decodes the whole cache once."""
        if self._notes is None:
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
            stored = self.cache.note_problems() if len(self.fresh) < len(self.digests) else {}
            out: list[Diagnostic] = []
            for path in self.digests:
                found = self.fresh.get(path)
                out.extend(found[1] if found is not None else stored.get(path, ()))
            self._diagnostics = tuple(out)
        return self._diagnostics


def load_corpus(root: Path, cache: BuildCache, workers: int | None = None) -> LoadedCorpus:
    """Scan ``root`` and parse what changed since the cache saw it."""
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    workers = workers or os.cpu_count() or 1
    files = sorted(scan(root))  # tuples: by path first
    known = cache.note_stats()
    stale = [f for f in files if (old := known.get(f.path)) is None or old[0] != f.mtime_ns or old[1] != f.size]
    fresh = _parse_files(root, [f.path for f in stale], workers)
    current = {f.path for f in files}
    removed = [p for p in known if p not in current]
    digests = {f.path: (fresh[f.path][2] if f.path in fresh else known[f.path][2]) for f in files}
    if fresh or removed:
        stats = {f.path: (f.mtime_ns, f.size, digests[f.path]) for f in files}
        cache.save_notes({f.path: NoteRow(f.mtime_ns, f.size, fresh[f.path][2], *_encoded(*fresh[f.path][:2]))
                          for f in stale}, removed, stats)
    return LoadedCorpus(root, digests, fresh, cache)
