"""Search stage, cache edge: ``CORPUS/.papernotes/search.sqlite``.

Owned by the search index alone. It keeps each note's tokenised ``Record``
keyed by what it was made from (the note's digest, its topics, the tokeniser
version), the text of every hashed term code (the vocabulary), and the *base*: the record keys of the documents behind the shard
files last written in full, and those files. A rebuild that only edits notes
writes a small delta next to the base instead of re-cutting every shard, and
records the last index as what changed since the base (not 50,000 keys again).
Deleting the file is always safe: the next build re-tokenises everything.
"""
from __future__ import annotations

import hashlib
import json
import marshal
import os
import sqlite3
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from papernotes.site.search.tokenize import Record

FORMAT = "search-6"
"""Bump when tokenising or the shard format changes: every record is then made again."""
PAGE_SIZE = 65_536
KNOWN_WORDS = 1_000_000
"""Vocabulary entries a store object remembers having written (~100 bytes each)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, codes BLOB NOT NULL, impacts BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vocab (code INTEGER PRIMARY KEY, term TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS shards (path TEXT PRIMARY KEY, digest TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, digest TEXT NOT NULL, data BLOB NOT NULL);
"""


def _reuse(path: Path) -> sqlite3.Connection | None:
    """The store at ``path`` opened for reuse, or ``None`` when there is none of this ``FORMAT`` to reuse."""
    if not path.exists():
        return None
    db = sqlite3.connect(path, timeout=30, check_same_thread=False)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.DatabaseError:  # not a database, or a damaged one: made anew
        row = None
    if row is None or row[0] != FORMAT:
        db.close()
        return None
    return db


def updatable(path: Path) -> bool:
    """Whether the store at ``path`` holds a base and a last index that ``search_update`` can bring up to
    date; read without making a store (one missing, damaged or of another format cannot)."""
    db = _reuse(path)
    if db is None:
        return False
    try:
        kept = db.execute(f"SELECT count(*) FROM meta WHERE key IN ({', '.join('?' * len(_INDEX_KEYS))})",
                          _INDEX_KEYS).fetchone()[0]
        shards = db.execute("SELECT 1 FROM shards LIMIT 1").fetchone()
    finally:
        db.close()
    return kept == len(_INDEX_KEYS) and shards is not None


def forget_base(path: Path) -> None:
    """Make the store at ``path`` one that cannot take body edits (``updatable`` is then False), so that the
    next build makes the whole index; its records stay."""
    db = _reuse(path)
    if db is None:
        return
    try:
        with db:
            db.execute("DELETE FROM meta WHERE key IN ('base', 'prefixes')")
    finally:
        db.close()


_INDEX_KEYS = ("base", "prefixes", "last", "last-paths")
"""What an index saved in full leaves in ``meta`` (a store of an older papernotes has no ``prefixes``)."""


def document_index(paths: str, path: str) -> int | None:
    """The document of ``path`` in ``SearchStore.last``'s paths (two C scans of the string, no list made)."""
    at = paths.find("\0" + path + "\0")
    return None if at < 0 else paths.count("\0", 0, at)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


class SearchStore:
    """Thin wrapper over the search cache; ``None`` as the path keeps it in memory (no reuse).

    A store that does not exist yet, has another ``FORMAT`` or cannot be read is made anew beside
    its path (``search.sqlite.new``), without a journal, and renamed over it when closed without
    an error: a first build writes its records once instead of twice (WAL, then checkpoint), and a
    build that fails or is killed leaves the old file (or none) in place.
    """

    def __init__(self, path: Path | None) -> None:
        self._swap: tuple[Path, Path] | None = None
        self._base: tuple[list[str], list[str], dict[str, list[int]]] | tuple[()] | None = None
        self._words: dict[int, str] = {}
        """Vocabulary this object wrote: not written twice, nor read back."""
        self._writer: threading.Thread | None = None
        self._failure: BaseException | None = None
        db: sqlite3.Connection | None
        if path is None:
            db = sqlite3.connect(":memory:", check_same_thread=False)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = _reuse(path)
            if db is None:
                new = path.with_name(path.name + ".new")
                new.unlink(missing_ok=True)
                self._swap = (new, path)
                db = sqlite3.connect(new, check_same_thread=False)
                db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # records and shards are KB-sized blobs
                db.execute("PRAGMA journal_mode=OFF")  # a half-written file is never renamed into place
                db.execute("PRAGMA synchronous=OFF")
        self._db = db
        self._blank = self.made_anew = self._swap is not None or path is None
        """``made_anew``: this object made the store; every record and word in it is one it was given."""
        """Made anew and no index saved yet: there is no base nor last index to read."""
        if self._blank:
            db.executescript(_SCHEMA)
            with db:
                db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))

    @property
    def db(self) -> sqlite3.Connection:
        """The connection, once records written in the background (``put_records(wait=False)``) are stored."""
        self._wait()
        return self._db

    def _wait(self) -> None:
        """Wait for the records being written in the background, and raise what writing them raised."""
        if self._writer is not None:
            self._writer.join()
            self._writer = None
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def close(self) -> None:
        """Close; a store made anew replaces the old file now (unless records written in the background
        failed: then it is abandoned and their error raised)."""
        try:
            db = self.db
        except BaseException:
            self.abandon()
            raise
        db.close()
        if self._swap is not None:
            new, path = self._swap
            self._swap = None
            for stale in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                stale.unlink(missing_ok=True)  # the old file's journal must not be applied to the new one
            os.replace(new, path)

    def abandon(self) -> None:
        """Close without keeping what a store made anew holds (the old file, if any, stays)."""
        if self._writer is not None:
            self._writer.join()
            self._writer = None
        self._db.close()
        if self._swap is not None:
            self._swap[0].unlink(missing_ok=True)
            self._swap = None

    def __enter__(self) -> SearchStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abandon()

    # -- records
    def record_keys(self, among: Iterable[str] | None = None) -> set[str]:
        """The stored record keys (only those ``among`` the given ones, when given)."""
        if among is None:
            return {key for (key,) in self.db.execute("SELECT key FROM records")}
        wanted = list(among)
        if len(wanted) > 5_000:
            return self.record_keys() & set(wanted)
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            found.update(key for (key,) in self.db.execute(
                f"SELECT key FROM records WHERE key IN ({','.join('?' * len(part))})", part))  # noqa: S608
        return found

    def records(self, keys: Sequence[str], batch: int = 400) -> Iterator[Record]:
        """The records of ``keys`` in that order (every key must be stored)."""
        for start in range(0, len(keys), batch):
            part = keys[start:start + batch]
            marks = ",".join("?" * len(part))
            rows = {key: Record(codes, impacts) for key, codes, impacts in self.db.execute(
                f"SELECT key, codes, impacts FROM records WHERE key IN ({marks})", part)}  # noqa: S608
            for key in part:
                yield rows[key]

    def put_records(self, items: Iterable[tuple[str, Record]], *, wait: bool = True) -> None:
        """Store records and the text of their hashed terms. ``wait=False``: return at once and write them
        in a thread (SQLite lets go of the GIL while it writes) while the caller computes; the next use of
        ``db`` waits for the thread and raises what it raised."""
        items = sorted(items, key=lambda item: item[0])  # in key order: B-tree pages filled one after another
        known = self._words
        words = sorted({code: term for _, rec in items for code, term in rec.vocabulary()
                        if code not in known}.items())
        if len(known) < KNOWN_WORDS:  # every process reports its words: written once
            known.update(words)
        db = self.db

        def write() -> None:
            try:
                with db:
                    db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?)",
                                   ((key, rec.codes, rec.impacts) for key, rec in items))
                    db.executemany("INSERT OR IGNORE INTO vocab VALUES (?, ?)", words)
            except BaseException as failure:  # noqa: BLE001 - raised again by the next use of ``db``
                self._failure = failure

        if wait:
            write()
            self._wait()
        else:
            self._writer = threading.Thread(target=write, name="search-records", daemon=True)
            self._writer.start()

    def vocabulary(self) -> dict[int, str] | None:
        """The text of every term code a store made anew holds (the words of the records it was given);
        None when it was not made anew or holds more words than this object remembers."""
        return self._words if self.made_anew and len(self._words) < KNOWN_WORDS else None

    def words(self, codes: Iterable[int]) -> dict[int, str]:
        """The text of hashed term codes (all of them must be known)."""
        known = self._words
        wanted = set(codes.tolist() if isinstance(codes, np.ndarray) else map(int, codes))
        found = {code: known[code] for code in wanted.intersection(known)}
        wanted -= found.keys()
        if not wanted:
            return found
        if len(wanted) > 20_000:  # most of the vocabulary: one scan
            found.update((code, term) for code, term in self.db.execute("SELECT code, term FROM vocab")
                         if code in wanted)
        else:
            ordered = sorted(wanted)
            for start in range(0, len(ordered), 500):
                part = ordered[start:start + 500]
                found.update(self.db.execute(
                    f"SELECT code, term FROM vocab WHERE code IN ({','.join('?' * len(part))})", part))  # noqa: S608
        missing = wanted.difference(found)
        if missing:
            raise KeyError(f"{len(missing)} term codes missing from the search vocabulary")
        return found

    def keep_words(self, live: Iterable[int]) -> None:
        """Forget the text of terms no document holds any more."""
        if self.made_anew:  # every term it holds was reported by a record it holds
            return
        dead = {code for (code,) in self.db.execute("SELECT code FROM vocab")} - set(map(int, live))
        if dead:
            with self.db:
                self.db.executemany("DELETE FROM vocab WHERE code = ?", ((code,) for code in dead))
            for code in dead.intersection(self._words):
                del self._words[code]

    def keep_records(self, live: Collection[str], candidates: Iterable[str] | None = None) -> None:
        """Forget the records of notes that are gone or changed (among ``candidates``, when given: a few, each
        looked for in ``live``, which is then not made a set)."""
        if candidates is None:
            if self.made_anew:  # it holds only records it was given, for the notes of its one index
                return
            dead = self.record_keys() - set(live)
        else:
            dead = {key for key in candidates if key not in live}
        if dead:
            with self.db:
                self.db.executemany("DELETE FROM records WHERE key = ?", ((key,) for key in dead))

    # -- the base: documents and shard files last written in full
    def base(self) -> tuple[list[str], list[str], dict[str, list[int]]] | None:
        """``(record key of each document, first term of each shard, the shards of wide prefixes)``
        (``encode.wide_prefixes``); None when no shard is stored, or they were stored without the prefixes."""
        if self._blank:
            return None
        if self._base is None:
            rows = dict(self.db.execute("SELECT key, value FROM meta WHERE key IN ('base', 'prefixes')"))
            self._base = (*marshal.loads(rows["base"]), marshal.loads(rows["prefixes"])) if len(rows) == 2 else ()
        if not self._base or self.db.execute("SELECT 1 FROM shards LIMIT 1").fetchone() is None:
            return None
        return self._base

    def save_base(self, docs: list[str], firsts: list[str], prefixes: dict[str, list[int]],
                  shards: Iterable[tuple[str, bytes]]) -> dict[str, str]:
        """Replace the base with ``shards`` (consumed one at a time, so they need not all be in memory)."""
        digests: dict[str, str] = {}

        def rows() -> Iterator[tuple[str, str, bytes]]:
            for path, data in shards:
                digests[path] = digest(data)
                yield path, digests[path], data

        with self.db:
            self.db.execute("DELETE FROM shards")
            self.db.executemany("INSERT INTO shards VALUES (?, ?, ?)", rows())
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('base', ?)", (marshal.dumps((docs, firsts)),))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('prefixes', ?)", (marshal.dumps(prefixes),))
            self.db.execute("DELETE FROM meta WHERE key = 'digests'")  # until save_last records them
        self._base = (docs, firsts, prefixes)
        self._blank = False
        return digests

    # -- the last index written
    def last(self) -> tuple[str, dict[int, str], dict[str, Any]] | None:
        """``(paths, changes, facets)`` of the last index written: its documents' note paths, each between two
        NULs (``document_index`` finds one); the record keys that differ from the base's, by document; facets."""
        rows = dict(self.db.execute("SELECT key, value FROM meta WHERE key IN ('last', 'last-paths')"))
        if len(rows) != 2:
            return None
        changes, found = marshal.loads(rows["last"])
        return marshal.loads(rows["last-paths"]), changes, json.loads(found)

    def save_last(self, paths: list[str] | None, changes: dict[int, str], found: dict[str, Any],
                  files: dict[str, bytes], every: dict[str, str], *, replace: bool, remove: Iterable[str] = ()) -> None:
        """Record the index just made: its record keys as ``changes`` to the base's; ``files`` are its files
        besides the base shards (all of them when ``replace``, else the ones that changed, ``remove`` the
        ones gone); ``every``: the digest of each of its files. ``paths`` None: the documents' paths are
        those of the last index (4.6 MB at 50,000 notes, not written again on a body edit)."""
        digests = {path: digest(data) for path, data in files.items()}
        if replace:
            known = dict(self.db.execute("SELECT path, digest FROM files"))
            gone = [p for p in known if p not in files]
        else:  # a few files: each looked up
            known = {path: row[0] for path in files
                     if (row := self.db.execute("SELECT digest FROM files WHERE path = ?", (path,)).fetchone())}
            gone = list(remove)
        with self.db:  # rows whose bytes did not change are left alone
            self.db.executemany("DELETE FROM files WHERE path = ?", ((p,) for p in gone))
            self.db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?)",
                                ((path, digests[path], data) for path, data in files.items()
                                 if known.get(path) != digests[path]))
            if paths is not None:
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('last-paths', ?)",
                                (marshal.dumps("\0" + "\0".join(paths) + "\0"),))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('last', ?)",
                            (marshal.dumps((changes, json.dumps(found, ensure_ascii=False))),))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('digests', ?)", (marshal.dumps(every),))
        self._blank = False

    def digests(self) -> dict[str, str]:
        """Every file of the last index: base shards and the others."""
        if self._blank:
            return {}
        row = self.db.execute("SELECT value FROM meta WHERE key = 'digests'").fetchone()
        if row is not None:
            return marshal.loads(row[0])
        return {**dict(self.db.execute("SELECT path, digest FROM shards")),
                **dict(self.db.execute("SELECT path, digest FROM files"))}

    def read(self, path: str) -> bytes:
        for table in ("shards", "files"):
            row = self.db.execute(f"SELECT data FROM {table} WHERE path = ?", (path,)).fetchone()  # noqa: S608
            if row is not None:
                return bytes(row[0])
        raise KeyError(path)
