"""Load stage: a corpus directory becomes parsed notes plus diagnostics.

I/O edge of the pipeline: walks the directory, parses the files whose mtime or
size changed since the cache saw them (in parallel when there are many) and
keeps the rest in the cache, decoded only when asked for: a rebuild after one
edit parses one file and decodes only the notes its pages show.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from papernotes.cache import BuildCache, NoteRow, decode_problem, encode_problem
from papernotes.layout import CACHE_DIR
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
    fresh: dict[str, tuple[Note | None, list[Diagnostic], str]]
    """Files parsed by this run (new or changed since the cache saw them)."""
    removed: tuple[str, ...]
    """Files the cache knew that are gone."""
    cache: BuildCache
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
            found: dict[str, tuple[Diagnostic, ...] | list[Diagnostic]] = dict(self.cache.note_problems())
            found.update((path, problems) for path, (_, problems, _) in self.fresh.items())
            self._diagnostics = tuple(d for path in sorted(found) for d in found[path])
        return self._diagnostics


@dataclass(frozen=True)
class Scan:
    """Every note file of a corpus with its mtime and size, and a digest of the lot."""

    files: list[SourceFile]
    """In path order."""
    digest: str
    """Equal digests mean no file was added, removed or modified (by mtime and size)."""


def scan_corpus(root: Path) -> Scan:
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    files = sorted(scan(root))  # tuples: by path first
    text = "\n".join([f"{path}\0{mtime}\0{size}" for path, mtime, size in files])
    return Scan(files, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest())


def load_corpus(root: Path, cache: BuildCache, workers: int | None = None, found: Scan | None = None) -> LoadedCorpus:
    """Parse what changed in ``root`` (scanned now, unless ``found`` is given) since the cache saw it."""
    files = (found or scan_corpus(root)).files
    workers = workers or os.cpu_count() or 1
    stale, removed = cache.stale_notes(files)
    fresh = _parse_files(root, [f.path for f in stale], workers)
    if fresh or removed:
        cache.save_notes({f.path: NoteRow(f.mtime_ns, f.size, fresh[f.path][2], *_encoded(*fresh[f.path][:2]))
                          for f in stale}, removed)
    return LoadedCorpus(root, fresh, tuple(removed), cache)


def load_paths(root: Path, cache: BuildCache, paths: Collection[str]) -> LoadedCorpus:
    """Parse just ``paths`` (a watcher saw them change); a path that is gone is dropped from the cache."""
    found, gone = [], []
    for rel in sorted(paths):
        try:
            st = os.stat(root / rel)
        except OSError:
            gone.append(rel)
            continue
        found.append(SourceFile(rel, st.st_mtime_ns, st.st_size))
    fresh = _parse_files(root, [f.path for f in found], 1)
    cache.save_notes({f.path: NoteRow(f.mtime_ns, f.size, fresh[f.path][2], *_encoded(*fresh[f.path][:2]))
                      for f in found}, gone)
    return LoadedCorpus(root, fresh, tuple(gone), cache)
