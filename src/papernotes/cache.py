"""The build cache: one SQLite database under ``CORPUS/.papernotes/``, read and written only here.

It remembers, per note file, the parse result keyed by (mtime, size), and per
built site what was published: a ``Published`` record (salt, counts, a digest
of the corpus scan, the resolve stage's diagnostics), a ``PublishedNote`` row
per note file (digest, listing key, URL, place on its venue × domain page), on
a site with several editions the same for each file an edition shows
(``EditionRows``), the site's directory pages and the fingerprint of every
page. A rebuild compares the corpus with that record, re-parses and re-renders
only what changed, and — when only note bodies changed — never decodes the
other notes. Small keyed values (the topic memo, the search files' digests and the
notes whose search entries are pending, the related papers' last computation) are
read and written through named accessors, each with its record type
(``cache_records.py``). Deleting the directory is always safe.
"""
from __future__ import annotations

import marshal
import sqlite3
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace as replace_state
from pathlib import Path
from typing import Any

from papernotes import __version__
from papernotes.cache_records import (
    EditionRows,
    NoteRow,
    Published,
    PublishedNote,
    RelatedRows,
    RelatedState,
    decode_problem,
    edition_key,
    encode_problem,
    rows,
)
from papernotes.errors import Diagnostic, Severity

SCHEMA_VERSION = f"{__version__}-17"  # 17: a site's record names the publish it describes

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, digest TEXT NOT NULL, problems BLOB,
    generation INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS notes_generation ON notes (generation);
CREATE TABLE IF NOT EXISTS removed_notes (path TEXT PRIMARY KEY, generation INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS removed_notes_generation ON removed_notes (generation);
CREATE TABLE IF NOT EXISTS note_records (path TEXT PRIMARY KEY, record BLOB);
CREATE TABLE IF NOT EXISTS published (site TEXT PRIMARY KEY, record BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS published_notes (
    site TEXT NOT NULL, path TEXT NOT NULL, digest TEXT NOT NULL, listing TEXT, url TEXT,
    cell TEXT, position INTEGER, title TEXT, groups BLOB, PRIMARY KEY (site, path));
CREATE INDEX IF NOT EXISTS published_notes_cell ON published_notes (site, cell, position);
CREATE TABLE IF NOT EXISTS pages (
    site TEXT NOT NULL, url TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (site, url));
CREATE TABLE IF NOT EXISTS page_problems (site TEXT NOT NULL, url TEXT NOT NULL, record BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS page_problems_url ON page_problems (site, url);
"""
_TABLES = ("blobs", "notes", "removed_notes", "note_records", "published", "published_notes", "pages", "page_problems")


_SCANNED = "scanned-times"
"""Blob: the scan the note rows were last saved with: the mtimes and sizes of ``columns``."""
_SCANNED_PATHS = "scanned-paths"
"""Blob: that scan's paths, the first of ``columns``: written again only when they change (2.5 MB at
50,000 notes, which an edit leaves as they were)."""
_SEARCH_PENDING = "search-pending:"
"""Blob per site: ``search_pending``."""
_UNPUBLISHED = "unpublished:"
"""Blob per site: the note files ``unpublish`` set aside since the site's last settled publish."""
NARROW_CANDIDATES = 2_000
"""Up to this many files saved since a site was built are compared one by one; more, in one join."""


_NOTE_COLUMNS = "path, digest, listing, url, cell, position, title, groups"


def _published_note(row: Sequence[Any]) -> PublishedNote:
    *fields, groups = row
    topics, aliases = marshal.loads(groups) if groups is not None else ((), ())
    return PublishedNote(*fields, topics, aliases)


def damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether ``exc`` says the database file is damaged or not a database at all (rather than busy, or full)."""
    return getattr(exc, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def discard(path: Path, exc: sqlite3.DatabaseError) -> Diagnostic:
    """Delete the damaged cache database ``path`` (with its journal files); the warning that says so."""
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
        (path.parent / name).unlink(missing_ok=True)
    return Diagnostic(str(path), 0, f"the build cache was damaged ({exc}) and is made anew: this build renders "
                                    "every page", Severity.WARNING, "cache-damaged")


class BuildCache:
    """Thin wrapper over the cache database; every method is one transaction or less.

    A damaged database (``damaged``) found on opening is deleted and made anew, with a warning in ``problems``."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.problems: list[Diagnostic] = []
        """Warnings about the cache itself (``discard``), for the command to print."""
        self._saved_paths: str | None = None
        """The scan's paths as stored (read by ``stale_notes``, written by ``save_notes``)."""
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            if path is None or not damaged(exc):
                raise
            self.db.close()
            self.problems.append(discard(path, exc))
            self._open()

    def _open(self) -> None:
        path = self.path
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
    def stale_notes(self, packed: tuple[str, bytes, bytes]) -> tuple[list[tuple[str, int, int]], list[str]]:
        """The ``(path, mtime_ns, size)`` rows of ``packed`` (every file a scan found, as ``columns``) that differ
        from the cached row or have none, and the paths of cached rows with no file.

        Compared with the scan the rows were last saved with (three columns in one blob: the
        same paths in the same order is one string comparison, then one pass over two integer
        arrays, and only the files that changed are unpacked); without one, inside SQLite (the
        scan goes into a temporary table).
        """
        snapshot = self._scan_snapshot()
        paths, mtimes, sizes = packed
        if snapshot is not None:
            old_paths, old_mtimes, old_sizes = snapshot
            if paths == old_paths:
                if mtimes == old_mtimes and sizes == old_sizes:
                    return [], []
                now, then = (array("q", mtimes), array("q", sizes)), (array("q", old_mtimes), array("q", old_sizes))
                changed = [i for i, (mtime, size, then_mtime, then_size) in enumerate(zip(*now, *then, strict=True))
                           if mtime != then_mtime or size != then_size]
                names = paths.split("\0")
                return [(names[i], now[0][i], now[1][i]) for i in changed], []
            known = dict(zip(old_paths.split("\0") if old_paths else (),
                             zip(array("q", old_mtimes), array("q", old_sizes), strict=True), strict=True))
            stale = [f for f in rows(packed) if known.pop(f[0], None) != (f[1], f[2])]
            return stale, sorted(known)
        files = rows(packed)
        with self.db:
            self.db.execute("CREATE TEMP TABLE IF NOT EXISTS scan (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER)")
            self.db.execute("DELETE FROM temp.scan")
            self.db.executemany("INSERT INTO temp.scan VALUES (?, ?, ?)", files)
            stale = {path for (path,) in self.db.execute(
                "SELECT s.path FROM temp.scan s LEFT JOIN notes n ON n.path = s.path "
                "WHERE n.path IS NULL OR n.mtime_ns != s.mtime_ns OR n.size != s.size")}
            removed = [path for (path,) in self.db.execute(
                "SELECT n.path FROM notes n LEFT JOIN temp.scan s ON s.path = n.path WHERE s.path IS NULL")]
            self.db.execute("DELETE FROM temp.scan")
        return [f for f in files if f[0] in stale], removed

    def _scan_snapshot(self) -> tuple[str, bytes, bytes] | None:
        rows = dict(self.db.execute("SELECT key, value FROM blobs WHERE key IN (?, ?)", (_SCANNED, _SCANNED_PATHS)))
        if len(rows) != 2:
            return None
        self._saved_paths = marshal.loads(rows[_SCANNED_PATHS])
        return (self._saved_paths, *marshal.loads(rows[_SCANNED]))

    def has_scan(self) -> bool:
        """Whether the rows were last saved with a whole scan (``stale_notes`` then compares with it)."""
        return self.db.execute("SELECT count(*) FROM blobs WHERE key IN (?, ?)",
                               (_SCANNED, _SCANNED_PATHS)).fetchone()[0] == 2

    def note_digests(self) -> dict[str, str]:
        """Every cached note's path (in path order) -> digest of its bytes."""
        return dict(self.db.execute("SELECT path, digest FROM notes ORDER BY path"))

    def changed_since_published(self, site: str, paths: Iterable[str] | None = None,
                                since: int | None = None) -> tuple[set[str], set[str]]:
        """Note files whose digest differs from (or is missing in) what ``site`` was built from, and
        files it was built from that are gone.

        ``paths`` limits the comparison to those files. ``since``: the generation the site was built from
        (``Published.generation``); only the files saved or removed after it and those ``unpublish`` set
        aside can differ, so a few are compared one by one (an edit at 50,000 notes: 0.1 s less) and
        many inside SQLite, in one join.
        """
        if paths is None and since is not None:
            candidates = {path for (path,) in self.db.execute(
                "SELECT path FROM notes WHERE generation > ? UNION SELECT path FROM removed_notes WHERE generation > ?",
                (since, since))}
            candidates.update(self.unpublished(site))
            if len(candidates) <= NARROW_CANDIDATES:
                paths = candidates
        if paths is not None:
            changed, removed = set(), set()
            for path in paths:
                now = self.db.execute("SELECT digest FROM notes WHERE path = ?", (path,)).fetchone()
                then = self.db.execute("SELECT digest FROM published_notes WHERE site = ? AND path = ?",
                                       (site, path)).fetchone()
                if now is None and then is not None:
                    removed.add(path)
                elif now is not None and (then is None or then[0] != now[0]):
                    changed.add(path)
            return changed, removed
        changed = {path for (path,) in self.db.execute(
            "SELECT n.path FROM notes n LEFT JOIN published_notes p ON p.site = ? AND p.path = n.path "
            "WHERE p.digest IS NULL OR p.digest != n.digest", (site,))}
        removed = {path for (path,) in self.db.execute(
            "SELECT p.path FROM published_notes p LEFT JOIN notes n ON n.path = p.path "
            "WHERE p.site = ? AND n.path IS NULL", (site,))}
        return changed, removed

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

    def generation(self) -> int:
        """How many times note rows were saved (``save_notes``)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def save_notes(self, changed: dict[str, NoteRow], removed: Iterable[str] = (),
                   scanned: tuple[str, bytes, bytes] | None = None) -> int:
        """Store the rows of ``changed`` notes and drop ``removed`` ones, as a new generation; its number.
        ``scanned``: every file, as the scan that found the changes saw them (the rows now match it), as
        ``columns``; without it (some files only) the last scan no longer describes the rows and is forgotten."""
        removed = list(removed)
        with self.db:
            # the write that opens the transaction: no other save can take the same number
            self.db.execute("INSERT INTO meta VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE "
                            "SET value = CAST(value AS INTEGER) + 1")
            generation = self.generation()
            if scanned is not None:
                if scanned[0] != self._saved_paths:
                    self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)",
                                    (_SCANNED_PATHS, marshal.dumps(scanned[0])))
                self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (_SCANNED, marshal.dumps(scanned[1:])))
            else:
                self.db.execute("DELETE FROM blobs WHERE key IN (?, ?)", (_SCANNED, _SCANNED_PATHS))
            self.db.executemany("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?, ?)", (
                (p, r.mtime_ns, r.size, r.digest, marshal.dumps(r.problems) if r.problems else None, generation)
                for p, r in changed.items()))
            self.db.executemany("INSERT OR REPLACE INTO note_records VALUES (?, ?)", (
                (p, marshal.dumps(r.record) if r.record is not None else None) for p, r in changed.items()))
            self.db.executemany("DELETE FROM removed_notes WHERE path = ?", ((p,) for p in changed))
            self.db.executemany("DELETE FROM notes WHERE path = ?", ((p,) for p in removed))
            self.db.executemany("DELETE FROM note_records WHERE path = ?", ((p,) for p in removed))
            self.db.executemany("INSERT OR REPLACE INTO removed_notes VALUES (?, ?)", ((p, generation) for p in removed))
        self._saved_paths = scanned[0] if scanned is not None else None
        return generation

    # -- keyed values: one named reader and writer each
    def _load(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM blobs WHERE key = ?", (key,)).fetchone()
        return marshal.loads(row[0]) if row else None

    def _save(self, key: str, value: Any) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (key, marshal.dumps(value)))

    def topic_memo(self, taxonomy: str) -> dict[str, list[str]]:
        """Topic slugs by note digest, matched with the taxonomy of that fingerprint (``site.resolve``)."""
        return self._load(f"topics:{taxonomy}") or {}

    def save_topic_memo(self, taxonomy: str, memo: Mapping[str, Any]) -> None:
        """Keep ``memo`` as the one memo (other taxonomies' are dropped)."""
        with self.db:
            self.db.execute("DELETE FROM blobs WHERE substr(key, 1, 7) = 'topics:'")
            self.db.execute("INSERT INTO blobs VALUES (?, ?)", (f"topics:{taxonomy}", marshal.dumps(dict(memo))))

    def search_pending(self, site: str) -> set[str]:
        """The notes whose pages ``site`` published before their search entries (a body edit's second publish)."""
        return set(self._load(_SEARCH_PENDING + site) or ())

    def add_search_pending(self, site: str, paths: Iterable[str]) -> None:
        self._save(_SEARCH_PENDING + site, sorted(self.search_pending(site).union(paths)))

    def clear_search_pending(self, site: str) -> None:
        """Every note's search entry is published."""
        with self.db:
            self.db.execute("DELETE FROM blobs WHERE key = ?", (_SEARCH_PENDING + site,))

    def search_digests(self, site: str, prefix: str) -> dict[str, str]:
        """The digest of each search file the ``prefix`` edition of ``site`` has (``"?"``: being replaced)."""
        return self._load(f"search:{site}" + (f":{prefix}" if prefix else "")) or {}

    def save_search_digests(self, site: str, prefix: str, digests: Mapping[str, str]) -> None:
        self._save(f"search:{site}" + (f":{prefix}" if prefix else ""), dict(digests))

    def related_terms(self) -> dict[str, tuple[str, ...]]:
        """Each related-papers input digest's terms (tokenising is most of the cost of a small corpus)."""
        return self._load("related-terms") or {}

    def save_related_terms(self, terms: Mapping[str, tuple[str, ...]]) -> None:
        self._save("related-terms", dict(terms))

    def related_state(self) -> RelatedState | None:
        found = self._load("related-state")
        return RelatedState(*found) if found is not None else None

    def save_related_state(self, state: RelatedState) -> None:
        self._save("related-state", tuple(state))

    def related_rows(self) -> RelatedRows | None:
        found = self._load("related-rows")
        return RelatedRows(*found) if found is not None else None

    def save_related_rows(self, rows: RelatedRows) -> None:
        self._save("related-rows", tuple(rows))

    def related_shown(self, site: str) -> str | None:
        """The inputs digest of the related lists ``site``'s published pages show."""
        return self._load("related-site:" + site)

    def save_related_shown(self, site: str, digest: str) -> None:
        self._save("related-site:" + site, digest)

    def unpublished(self, site: str) -> set[str]:
        """The note files ``unpublish`` set aside since ``site``'s last settled publish."""
        return set(self._load(_UNPUBLISHED + site) or ())

    # -- what a site published
    def published(self, site: str) -> Published | None:
        row = self.db.execute("SELECT record FROM published WHERE site = ?", (site,)).fetchone()
        if row is None:
            return None
        salt, notes, pages, stamp, scan, problems, generation, translations, publish = marshal.loads(row[0])
        return Published(salt, notes, pages, stamp, scan, tuple(decode_problem(p) for p in problems), generation,
                         translations, publish)

    def published_urls(self, site: str) -> frozenset[str] | None:
        """Every directory page of the site (kept apart: only a re-rendered note with links needs it);
        ``None`` when not recorded."""
        urls = self._load(f"urls:{site}")
        return frozenset(urls) if urls is not None else None

    def published_notes(self, site: str, paths: Iterable[str]) -> dict[str, PublishedNote]:
        out = {}
        for path in paths:
            row = self.db.execute(f"SELECT {_NOTE_COLUMNS} FROM published_notes WHERE site = ? AND path = ?",
                                  (site, path)).fetchone()
            if row is not None:
                out[path] = _published_note(row)
        return out

    def neighbour(self, site: str, cell: str, position: int) -> PublishedNote | None:
        row = self.db.execute(f"SELECT {_NOTE_COLUMNS} FROM published_notes WHERE site = ? AND cell = ? AND "
                              "position = ?", (site, cell, position)).fetchone()
        return _published_note(row) if row is not None else None

    def published_urls_by_path(self, site: str) -> dict[str, str]:
        return dict(self.db.execute("SELECT path, url FROM published_notes WHERE site = ? AND url IS NOT NULL",
                                    (site,)))

    def record_published(self, site: str, state: Published, notes: Iterable[PublishedNote], *,
                         replace: bool, urls: Iterable[str] | None = None,
                         editions: Mapping[str, EditionRows] | None = None, settled: bool = False) -> None:
        """Record a publication; ``replace`` drops the rows of notes not given (a full plan).
        ``editions``: the rows of the notes each edition of a site with several shows, by language.
        ``settled``: every note file the cache holds is now published as it is, up to ``state.generation``
        (the notes ``unpublish`` set aside are forgotten)."""
        record = marshal.dumps((state.salt, state.notes, state.pages, state.stamp, state.scan,
                                [encode_problem(d) for d in state.problems], state.generation, state.translations,
                                state.publish))
        with self.db:  # one transaction: the rows of every edition describe the same publication
            for key, shown in [(site, notes), *((edition_key(site, lang), e.notes) for lang, e in (editions or {}).items())]:
                if replace:
                    self.db.execute("DELETE FROM published_notes WHERE site = ?", (key,))
                self.db.executemany("INSERT OR REPLACE INTO published_notes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (
                    (key, n.path, n.digest, n.listing, n.url, n.cell, n.position, n.title,
                     marshal.dumps((n.topics, n.aliases)) if n.url is not None else None) for n in shown))
            for lang, e in (editions or {}).items():
                if e.shown is not None:
                    self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)",
                                    (f"shown:{edition_key(site, lang)}", marshal.dumps(e.shown)))
                if e.urls is not None:
                    self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)",
                                    (f"urls:{edition_key(site, lang)}", marshal.dumps(sorted(e.urls))))
            if urls is not None:
                self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (f"urls:{site}", marshal.dumps(sorted(urls))))
            self.db.execute("INSERT OR REPLACE INTO published VALUES (?, ?)", (site, record))
            if settled:
                self.db.execute("DELETE FROM blobs WHERE key = ?", (_UNPUBLISHED + site,))
            # a removal every site was built after is compared by none of them again (``changed_since_published``
            # looks only at tombstones newer than the site): the tombstones do not pile up
            oldest = min(marshal.loads(r)[6] for (r,) in self.db.execute("SELECT record FROM published"))
            self.db.execute("DELETE FROM removed_notes WHERE generation <= ?", (oldest,))

    def edition_shown(self, site: str, lang: str) -> dict[str, str] | None:
        """The notes the ``lang`` edition of ``site`` shows in another file than their own (a translation):
        original's path -> the shown file's path; ``None`` when not recorded."""
        return self._load(f"shown:{edition_key(site, lang)}")

    def unpublish(self, site: str, state: Published, paths: Iterable[str], urls: Iterable[str]) -> None:
        """Forget that these notes and pages are published as recorded: they are about to change, and a
        publish killed half-way must leave them to be redone, whatever the notes say by then."""
        paths = set(paths)
        with self.db:
            self.db.executemany("DELETE FROM published_notes WHERE site = ? AND path = ?", ((site, p) for p in paths))
            self.db.executemany("DELETE FROM pages WHERE site = ? AND url = ?", ((site, u) for u in urls))
            if paths:  # kept until a settled publish: ``changed_since_published`` looks at them whatever they say
                self.db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (_UNPUBLISHED + site, marshal.dumps(
                    sorted(paths | self.unpublished(site)))))
        self.record_published(site, replace_state(state, scan="", stamp=""), (), replace=False)

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

    def figure_files(self, site: str, note_urls: Iterable[str]) -> set[str]:
        """The figure images (``site/figures.py``) and PDFs (``publish_pdfs``) the site has beside the note pages
        at ``note_urls``."""
        found = set()
        for url in note_urls:
            # the URLs just under ``url``: from ``url`` to ``url`` with its last ``/`` raised by one
            for (name,) in self.db.execute("SELECT url FROM pages WHERE site = ? AND url > ? AND url < ?",
                                           (site, url, url[:-1] + "0")):
                rest = name[len(url):]
                if "/" not in rest and (rest.startswith("figure-") or rest == "paper.pdf"):  # kinds/note.py PAPER_FILE
                    found.add(name)
        return found

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
