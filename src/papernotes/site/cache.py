"""The build cache: a SQLite database under ``CORPUS/.papernotes/``.

It remembers, per note file, the parse result keyed by (mtime, size, digest), and
per output page the fingerprint of the inputs it was rendered from, so a rebuild
re-parses and re-renders only what changed. Deleting the directory is always safe.
"""
from __future__ import annotations

import marshal
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from papernotes import __version__
from papernotes.errors import Diagnostic, Severity
from papernotes.corpus.model import Note

SCHEMA_VERSION = f"{__version__}-5"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, digest TEXT NOT NULL,
    record BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    site TEXT NOT NULL, url TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (site, url));
CREATE TABLE IF NOT EXISTS page_problems (site TEXT NOT NULL, url TEXT NOT NULL, record BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS page_problems_url ON page_problems (site, url);
"""


def encode_problem(d: Diagnostic) -> tuple[str, int, str, str, str]:
    return (d.path, d.line, d.message, d.severity.value, d.code)


def decode_problem(row: tuple[str, int, str, str, str]) -> Diagnostic:
    path, line, message, severity, code = row
    return Diagnostic(path, line, message, Severity(severity), code)


def encode_record(note: Note | None, problems: list[Diagnostic]) -> tuple[Any, Any]:
    return (note.to_row() if note is not None else None, tuple(encode_problem(d) for d in problems))


def decode_record(note_row: Any, rows: Any) -> tuple[Note | None, list[Diagnostic]]:
    note = Note.from_row(note_row) if note_row is not None else None
    return note, [decode_problem(row) for row in rows]


class BuildCache:
    """Thin wrapper over the cache database; every method is one transaction or less."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is None:
            self.db = sqlite3.connect(":memory:")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            with self.db:
                self.db.execute("DELETE FROM blobs")
                self.db.execute("DELETE FROM notes")
                self.db.execute("DELETE FROM pages")
                self.db.execute("DELETE FROM page_problems")
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> BuildCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- notes: one row per file, the parse record marshalled (fast to load for thousands of notes)
    def load_notes(self) -> dict[str, tuple[int, int, str, Any, Any]]:
        """``{path: (mtime_ns, size, digest, note row, diagnostic rows)}``."""
        return {path: (mtime, size, digest, *marshal.loads(record))
                for path, mtime, size, digest, record in self.db.execute("SELECT * FROM notes")}

    def save_notes(self, changed: dict[str, tuple[int, int, str, Any, Any]], removed: Iterable[str] = ()) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?)",
                                ((p, m, s, d, marshal.dumps((row, diag))) for p, (m, s, d, row, diag) in changed.items()))
            self.db.executemany("DELETE FROM notes WHERE path = ?", ((p,) for p in removed))

    def load_blob(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM blobs WHERE key = ?", (key,)).fetchone()
        return marshal.loads(row[0]) if row else None

    def save_blob(self, key: str, value: Any) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (key, marshal.dumps(value)))

    def delete_blobs(self, prefix: str) -> None:
        with self.db:
            self.db.execute("DELETE FROM blobs WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))

    # -- pages
    def page_fingerprints(self, site: str) -> dict[str, str]:
        return dict(self.db.execute("SELECT url, fingerprint FROM pages WHERE site = ?", (site,)))

    def replace_pages(self, site: str, fingerprints: dict[str, str]) -> None:
        with self.db:
            self.db.execute("DELETE FROM pages WHERE site = ?", (site,))
            self.db.executemany("INSERT INTO pages VALUES (?, ?, ?)", ((site, u, f) for u, f in fingerprints.items()))

    def update_pages(self, site: str, fingerprints: dict[str, str]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO pages VALUES (?, ?, ?)",
                                ((site, u, f) for u, f in fingerprints.items()))

    def page_problems(self, site: str) -> list[Diagnostic]:
        return [decode_problem(marshal.loads(b))
                for (b,) in self.db.execute("SELECT record FROM page_problems WHERE site = ?", (site,))]

    def update_page_problems(self, site: str, cleared: Iterable[str], found: Iterable[tuple[str, Diagnostic]]) -> None:
        """Forget the problems of re-rendered or removed pages, then record the new ones."""
        with self.db:
            self.db.executemany("DELETE FROM page_problems WHERE site = ? AND url = ?", ((site, u) for u in cleared))
            self.db.executemany("INSERT INTO page_problems VALUES (?, ?, ?)",
                                ((site, u, marshal.dumps(encode_problem(d))) for u, d in found))

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
