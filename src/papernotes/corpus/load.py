"""Load stage: a corpus directory becomes parsed notes plus diagnostics.

I/O edge of the pipeline: walks the directory, reads changed files and parses
them (in parallel when there are many), and reuses cached parse results for
files whose mtime and size are unchanged.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from papernotes.site.cache import BuildCache, decode_record, encode_record
from papernotes.config import CACHE_DIR
from papernotes.errors import CorpusError, Diagnostic, error
from papernotes.corpus.model import Note

SKIP_FILES = {"README.md", "readme.md", "CHANGELOG.md", "LICENSE.md"}
PARALLEL_THRESHOLD = 400


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str
    """Relative to the corpus root, ``/``-separated."""
    mtime_ns: int
    size: int


@dataclass(frozen=True, slots=True)
class LoadedCorpus:
    notes: tuple[Note, ...]
    """Every note that parsed (possibly with errors), sorted by path."""
    diagnostics: tuple[Diagnostic, ...]


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
        parse_note,  # yaml and the Markdown engine load only when a file changed
    )

    digest = hashlib.sha1(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [error(rel, line, "file is not valid UTF-8", "encoding")], digest
    note, problems = parse_note(rel, text, digest)
    return note, problems, digest


def _read_many(args: tuple[str, list[str]]) -> list[tuple[str, Note | None, list[Diagnostic], str]]:
    root, rels = args
    base = Path(root)
    return [(rel, *read_note(base, rel)) for rel in rels]


def _read_many_rows(args: tuple[str, list[str]]) -> list[tuple[str, Any, Any, str]]:
    """Worker side of ``_parse_files``: plain tuples pickle several times faster than dataclasses."""
    return [(rel, *encode_record(note, problems), digest) for rel, note, problems, digest in _read_many(args)]


def _parse_files(root: Path, rels: list[str], workers: int) -> list[tuple[str, Note | None, list[Diagnostic], str]]:
    if len(rels) < PARALLEL_THRESHOLD or workers < 2:
        return _read_many((str(root), rels))
    chunk = max(50, len(rels) // (workers * 4) + 1)
    jobs = [(str(root), rels[i:i + chunk]) for i in range(0, len(rels), chunk)]
    out: list[tuple[str, Note | None, list[Diagnostic], str]] = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_read_many_rows, jobs):
            out.extend((rel, *decode_record(note_row, rows), digest) for rel, note_row, rows, digest in part)
    return out


def cache_path(root: Path) -> Path:
    return root / CACHE_DIR / "cache.sqlite"


def load_corpus(root: Path, cache: BuildCache, workers: int | None = None) -> LoadedCorpus:
    """Parse every note of ``root``, reusing the cache for unchanged files."""
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    workers = workers or os.cpu_count() or 1
    files = sorted(scan(root), key=lambda f: f.path)
    snapshot = cache.load_notes()
    fresh = [f for f in files if (old := snapshot.get(f.path)) is None or old[0] != f.mtime_ns or old[1] != f.size]
    parsed = _parse_files(root, [f.path for f in fresh], workers)
    by_path = {f.path: f for f in fresh}
    changed = {rel: (by_path[rel].mtime_ns, by_path[rel].size, digest, *encode_record(note, problems))
               for rel, note, problems, digest in parsed}
    snapshot.update(changed)
    current = {f.path for f in files}
    removed = frozenset(p for p in snapshot if p not in current)
    if changed or removed:
        cache.save_notes(changed, removed)
    notes: list[Note] = []
    diagnostics: list[Diagnostic] = []
    fresh_records = {rel: (note, problems) for rel, note, problems, _ in parsed}
    for f in files:
        record = fresh_records.get(f.path)
        note, problems = record if record is not None else decode_record(*snapshot[f.path][3:])
        if note is not None:
            notes.append(note)
        diagnostics.extend(problems)
    return LoadedCorpus(tuple(notes), tuple(diagnostics))
