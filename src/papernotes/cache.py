"""The build cache: one SQLite database under ``CORPUS/.papernotes/``, read and written only here.

It remembers, per note file, the parse result keyed by (mtime, size), and per
built site what was published: a ``Published`` record (salt, counts, the
site's directory pages, the resolve stage's diagnostics), a ``PublishedNote``
row per note (digest, listing key, URL, place on its venue × domain page) and
the fingerprint of every page. A rebuild compares the corpus with that record,
re-parses and re-renders only what changed, and — when only note bodies
changed — never decodes the other notes. Deleting the directory is always safe.
"""
from __future__ import annotations

import marshal
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from dataclasses import replace as replace_state
from pathlib import Path
from typing import Any

from papernotes import __version__
from papernotes.errors import Diagnostic, Severity

SCHEMA_VERSION = f"{__version__}-9"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, digest TEXT NOT NULL, problems BLOB);
CREATE TABLE IF NOT EXISTS note_records (path TEXT PRIMARY KEY, record BLOB);
CREATE TABLE IF NOT EXISTS published (site TEXT PRIMARY KEY, record BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS published_notes (
    site TEXT NOT NULL, path TEXT NOT NULL, digest TEXT NOT NULL, listing TEXT NOT NULL, url TEXT NOT NULL,
    cell TEXT NOT NULL, position INTEGER NOT NULL, title TEXT NOT NULL, PRIMARY KEY (site, path));
CREATE INDEX IF NOT EXISTS published_notes_cell ON published_notes (site, cell, position);
CREATE TABLE IF NOT EXISTS pages (
    site TEXT NOT NULL, url TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (site, url));
CREATE TABLE IF NOT EXISTS page_problems (site TEXT NOT NULL, url TEXT NOT NULL, record BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS page_problems_url ON page_problems (site, url);
"""
_STATS = "note-stats"
_TABLES = ("blobs", "notes", "note_records", "published", "published_notes", "pages", "page_problems")


def encode_problem(d: Diagnostic) -> tuple[str, int, str, str, str]:
    return (d.path, d.line, d.message, d.severity.value, d.code)


def decode_problem(row: Sequence[Any]) -> Diagnostic:
    path, line, message, severity, code = row
    return Diagnostic(path, line, message, Severity(severity), code)


@dataclass(frozen=True, slots=True)
class NoteRow:
    """One note file as the parse cache knows it."""

    mtime_ns: int
    size: int
    digest: str
    """SHA-1 of the file's bytes."""
    record: Any
    """``Note.to_row()`` (``None`` when the file did not parse); stored apart, decoded only on demand."""
    problems: tuple[tuple[str, int, str, str, str], ...]
    """The parse diagnostics, encoded."""


@dataclass(frozen=True, slots=True)
class Published:
    """What the last successful build of one site published (everything but the per-note rows)."""

    salt: str
    """Code, config and taxonomy fingerprint the site was built with; another salt means a full rebuild."""
    notes: int
    """Notes on the site."""
    pages: int
    """Pages on the site."""
    urls: frozenset[str]
    """Every directory page, for resolving the links of a re-rendered note without the other notes."""
    digests: dict[str, str]
    """Note path -> digest of the file its pages show: what a rebuild compares the corpus with."""
    problems: tuple[Diagnostic, ...]
    """Diagnostics of the resolve stage (duplicates, unknown taxonomy names)."""


@dataclass(frozen=True, slots=True)
class PublishedNote:
    """A note as its site shows it."""

    path: str
    digest: str
    """The file digest the page was rendered from."""
    listing: str
    """Digest of what other pages show of the note (``resolve.listing_key``)."""
    url: str
    cell: str
    """URL of its venue × domain page."""
    position: int
    """Index on that page (notes are ordered by slug): neighbours are ``position ± 1``."""
    title: str
    """Plain title, the label of the links its neighbours' pages make to it."""


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
        row = None
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.OperationalError:
            pass
        if row is None or row[0] != SCHEMA_VERSION:
            with self.db:  # an older layout: start afresh (it is only a cache)
                for table in (*_TABLES, "meta"):
                    self.db.execute(f"DROP TABLE IF EXISTS {table}")
                self.db.executescript(_SCHEMA)
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> BuildCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- notes: one row per file; the parse record is marshalled (fast to load) and decoded on demand
    def note_stats(self) -> dict[str, tuple[int, int, str]]:
        """``{path: (mtime_ns, size, digest)}`` of every cached note, without decoding any record.

        Kept as one marshalled blob besides the rows: a no-op build reads it for every note, and
        one ``marshal.loads`` is several times faster than iterating over the rows.
        """
        stats = self.load_blob(_STATS)
        if stats is None:
            stats = {path: (mtime, size, digest) for path, mtime, size, digest
                     in self.db.execute("SELECT path, mtime_ns, size, digest FROM notes")}
        return stats

    def note_records(self, paths: Iterable[str] | None = None) -> dict[str, Any]:
        """``{path: Note.to_row() or None}`` of ``paths`` (all when ``None``); the records, unmarshalled."""
        if paths is None:
            rows = list(self.db.execute("SELECT path, record FROM note_records"))
        else:
            wanted = list(paths)
            rows = []
            for i in range(0, len(wanted), 500):
                chunk = wanted[i:i + 500]
                rows.extend(self.db.execute(
                    f"SELECT path, record FROM note_records WHERE path IN ({','.join('?' * len(chunk))})", chunk))
        return {path: marshal.loads(record) if record is not None else None for path, record in rows}

    def note_problems(self) -> dict[str, tuple[Diagnostic, ...]]:
        """Parse diagnostics of every note that has some (cheap: notes without problems are not read)."""
        return {path: tuple(decode_problem(r) for r in marshal.loads(blob))
                for path, blob in self.db.execute("SELECT path, problems FROM notes WHERE problems IS NOT NULL")}

    def save_notes(self, changed: dict[str, NoteRow], removed: Iterable[str] = (),
                   stats: dict[str, tuple[int, int, str]] | None = None) -> None:
        """Store the rows of ``changed`` notes, drop ``removed`` ones; ``stats`` is the new ``note_stats``."""
        with self.db:
            if stats is not None:
                self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (_STATS, marshal.dumps(stats)))
            self.db.executemany("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?)", (
                (p, r.mtime_ns, r.size, r.digest, marshal.dumps(r.problems) if r.problems else None)
                for p, r in changed.items()))
            self.db.executemany("INSERT OR REPLACE INTO note_records VALUES (?, ?)", (
                (p, marshal.dumps(r.record) if r.record is not None else None) for p, r in changed.items()))
            self.db.executemany("DELETE FROM notes WHERE path = ?", ((p,) for p in removed))
            self.db.executemany("DELETE FROM note_records WHERE path = ?", ((p,) for p in removed))

    # -- small keyed values (the topic memo)
    def load_blob(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM blobs WHERE key = ?", (key,)).fetchone()
        return marshal.loads(row[0]) if row else None

    def save_blob(self, key: str, value: Any) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (key, marshal.dumps(value)))

    def delete_blobs(self, prefix: str) -> None:
        with self.db:
            self.db.execute("DELETE FROM blobs WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))

    # -- what a site published
    def published(self, site: str) -> Published | None:
        row = self.db.execute("SELECT record FROM published WHERE site = ?", (site,)).fetchone()
        if row is None:
            return None
        salt, notes, pages, urls, digests, problems = marshal.loads(row[0])
        return Published(salt, notes, pages, frozenset(urls), digests, tuple(decode_problem(p) for p in problems))

    def published_notes(self, site: str, paths: Iterable[str]) -> dict[str, PublishedNote]:
        out = {}
        for path in paths:
            row = self.db.execute("SELECT path, digest, listing, url, cell, position, title FROM published_notes "
                                  "WHERE site = ? AND path = ?", (site, path)).fetchone()
            if row is not None:
                out[path] = PublishedNote(*row)
        return out

    def neighbour(self, site: str, cell: str, position: int) -> PublishedNote | None:
        row = self.db.execute("SELECT path, digest, listing, url, cell, position, title FROM published_notes "
                              "WHERE site = ? AND cell = ? AND position = ?", (site, cell, position)).fetchone()
        return PublishedNote(*row) if row is not None else None

    def published_urls_by_path(self, site: str) -> dict[str, str]:
        return dict(self.db.execute("SELECT path, url FROM published_notes WHERE site = ?", (site,)))

    def record_published(self, site: str, state: Published, notes: Iterable[PublishedNote], *,
                         replace: bool) -> None:
        """Record a publication; ``replace`` drops the rows of notes not given (a full plan)."""
        record = marshal.dumps((state.salt, state.notes, state.pages, sorted(state.urls), state.digests,
                                [encode_problem(d) for d in state.problems]))
        with self.db:
            if replace:
                self.db.execute("DELETE FROM published_notes WHERE site = ?", (site,))
            self.db.executemany("INSERT OR REPLACE INTO published_notes VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (
                (site, n.path, n.digest, n.listing, n.url, n.cell, n.position, n.title) for n in notes))
            self.db.execute("INSERT OR REPLACE INTO published VALUES (?, ?)", (site, record))

    def unpublish(self, site: str, state: Published, paths: Iterable[str], urls: Iterable[str]) -> None:
        """Forget that these notes and pages are published as recorded (they are about to change)."""
        gone = set(paths)
        digests = {p: d for p, d in state.digests.items() if p not in gone}
        with self.db:
            self.db.executemany("DELETE FROM published_notes WHERE site = ? AND path = ?", ((site, p) for p in gone))
            self.db.executemany("DELETE FROM pages WHERE site = ? AND url = ?", ((site, u) for u in urls))
        self.record_published(site, replace_state(state, digests=digests), (), replace=False)

    def forget_site(self, site: str) -> None:
        with self.db:
            for table in ("published", "published_notes", "pages", "page_problems"):
                self.db.execute(f"DELETE FROM {table} WHERE site = ?", (site,))

    # -- pages
    def page_fingerprints(self, site: str, urls: Iterable[str] | None = None) -> dict[str, str]:
        if urls is None:
            return dict(self.db.execute("SELECT url, fingerprint FROM pages WHERE site = ?", (site,)))
        out = {}
        for url in urls:
            row = self.db.execute("SELECT fingerprint FROM pages WHERE site = ? AND url = ?", (site, url)).fetchone()
            if row is not None:
                out[url] = row[0]
        return out

    def record_pages(self, site: str, fingerprints: dict[str, str], removed: Iterable[str] = (), *,
                     replace: bool = False) -> None:
        with self.db:
            if replace:
                self.db.execute("DELETE FROM pages WHERE site = ?", (site,))
            self.db.executemany("DELETE FROM pages WHERE site = ? AND url = ?", ((site, u) for u in removed))
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
